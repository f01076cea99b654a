// A benchmark webhook receiver as its own process (as an integrator's app would be): a node:http server on
// 127.0.0.1 that drains each request and answers as its first argument says: `200` (default), `500`, `slow`
// (200 after 2 s), or `hang` (never answers). Sends its port to the parent once listening; on the parent's 'count' message it
// replies with the number of requests received.
import { createServer } from 'node:http';

const answer = process.argv[2] ?? '200';
if (!['200', '500', 'slow', 'hang'].includes(answer)) throw new Error(`receiver-process: answer ${answer} is not 200, 500, slow or hang`);
let count = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    count++;
    if (answer === 'hang') return;
    if (answer === 'slow') return void setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'), 2_000);
    res.writeHead(Number(answer), { 'content-type': 'text/plain' }).end('ok');
  });
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('message', (m) => {
  if (m === 'count') process.send?.({ count });
});
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
