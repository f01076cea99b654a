// Baseline: the framework's floor — the canonical express 5 hello-world (default settings), in its own process.
import express from 'express';
import { announce, closeOnSignal } from './ready.ts';

const app = express();
app.get('/', (_req, res) => {
  res.json({ hello: 'world' });
});
const server = app.listen(0, '127.0.0.1', () => announce(server));
closeOnSignal(() => new Promise((resolve) => server.close(() => resolve())));
