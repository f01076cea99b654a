// swapsim as the bench serves it: `serve()` on a virtual clock with one organization whose rate limits are
// raised (still enforced, never reached), in its own process so the load generator has its own event loop.
import { serve } from '../../../fake-provider/server.ts';
import { announce, closeOnSignal } from './ready.ts';

const api_key = process.env.BENCH_API_KEY;
if (!api_key) throw new Error('BENCH_API_KEY is not set (the bench parent sets it)');
const RAISED = { reads: 1_000_000, writes: 1_000_000, indicative_rfqs: 1_000_000, firm_rfqs: 1_000_000 };

const running = await serve({ clock: 'virtual', seed: 'bench', seed_orgs: [{ api_keys: [api_key], rate_limits: RAISED }], port: 0 });
announce(running.server);
closeOnSignal(() => running.close());
