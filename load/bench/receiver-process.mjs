// The engine benchmark's webhook receiver as its own process (as an integrator's app would be): a
// node:http server on 127.0.0.1 that drains each request and answers 200. Prints its port on stdout's
// first line; on the parent's 'count' message it replies with the number of requests received.
import { createServer } from 'node:http';

let count = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    count++;
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
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
