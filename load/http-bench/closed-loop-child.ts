// autocannon in a process of its own (closed-loop.ts starts it): warm-up, then `{"measuring":true}`, the
// measured run, and `{"result":ClosedLoopResult}` with the generator's own CPU time per answer.
import autocannon from 'autocannon';
import { ownSched, say } from './client.ts';
import { fromAutocannon, type ClosedLoopOptions, type ClosedLoopResult } from './closed-loop.ts';

const o = JSON.parse(process.env.CLOSED_LOOP_OPTIONS ?? 'null') as ClosedLoopOptions | null;
if (!o) throw new Error('CLOSED_LOOP_OPTIONS is not set (closed-loop.ts sets it)');
// One pool for the warm-up and the run: a credit traded in one is gone for the other.
// Loaded only for the mixed case: its imports (the wallet derivation behind setup.ts) cost a second of start-up.
const load = o.mixed ? (await import('./mixed.ts')).mixedLoad(o.mixed.accounts, o.mixed.api_key) : undefined;
const opts: autocannon.Options = { url: o.url, connections: o.connections, ...(load ? { requests: load.requests } : o.request) };

const warm = o.warmup_s > 0 ? fromAutocannon(await autocannon({ ...opts, duration: o.warmup_s })) : undefined;
say({ measuring: true });
const cpu = process.cpuUsage();
const run = fromAutocannon(await autocannon({ ...opts, duration: o.duration_s }));
const used = process.cpuUsage(cpu);
const result: ClosedLoopResult = {
  ...(warm ? { warm } : {}),
  run,
  client_cpu_us_per_request: run.answered > 0 ? (used.user + used.system) / run.answered : 0,
  sched: ownSched(),
  ...(load ? { mixed: { accounts: load.remaining(), exhausted: load.exhausted(), cycles: load.cycles() } } : {}),
};
say({ result });
