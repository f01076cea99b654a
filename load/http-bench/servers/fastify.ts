// Baseline: the framework swapsim is served on — the canonical fastify 5 hello-world (default settings), in its own process.
import Fastify from 'fastify';
import { announce, closeOnSignal } from './ready.ts';

const app = Fastify();
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server);
closeOnSignal(() => app.close());
