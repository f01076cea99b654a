// Baseline: the platform's ceiling — a `node:http` hello-world with no framework, in its own process.
import { createServer } from 'node:http';
import { announce, closeOnSignal } from './ready.ts';

const BODY = JSON.stringify({ hello: 'world' });

const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(BODY) });
  res.end(BODY);
});
server.listen(0, '127.0.0.1', () => announce(server));
closeOnSignal(() => new Promise((resolve) => server.close(() => resolve())));
