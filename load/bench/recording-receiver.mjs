// A benchmark webhook receiver as its own process that records each POST: its arrival (wall ms), path, and the
// `Svc-Webhook-Id` and `Svc-Timestamp` headers; answers 200. Sends its port to the parent once listening; on
// the parent's 'dump' message it replies with every arrival so far. In a process of its own so the load
// generator's work never delays an answer (a virtual clock's advance waits for its deliveries' answers).
import { createServer } from 'node:http';

const arrivals = [];
const server = createServer((req, res) => {
  const at_ms = Date.now();
  req.resume();
  req.on('end', () => {
    arrivals.push({
      at_ms,
      path: req.url ?? '',
      webhook_id: String(req.headers['svc-webhook-id'] ?? ''),
      stamp_ms: Number(req.headers['svc-timestamp']),
    });
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('message', (m) => {
  if (m === 'dump') process.send?.({ arrivals });
});
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
