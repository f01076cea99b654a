// autocannon in a process of its own (closed-loop.ts starts it) for one or more cases of a round: a warm-up of
// each, then `{"measuring":true}`, then each case's measured run back to back in the order given, the server's
// CPU time and preemptions read from /proc around each run (no gap for a parent's round trip between two sides
// of a pair), and `{"result":ClosedLoopResult[]}` with the generator's own CPU time per answer of each.
import autocannon from 'autocannon';
import { procCpu_ms, procPreemptions } from './children.ts';
import { ownSched, say } from './client.ts';
import { type ClosedLoopOptions, type ClosedLoopResult, fromAutocannon } from './closed-loop.ts';

const runs = JSON.parse(process.env.CLOSED_LOOP_OPTIONS ?? 'null') as ClosedLoopOptions[] | null;
if (!runs) throw new Error('CLOSED_LOOP_OPTIONS is not set (closed-loop.ts sets it)');
// One pool for the warm-up and the run: a credit traded in one is gone for the other.
// Loaded only for the mixed case: its imports (the wallet derivation behind setup.ts) cost a second of start-up.
const loads = await Promise.all(
  runs.map(async (o) => (o.mixed ? (await import('./mixed.ts')).mixedLoad(o.mixed.accounts, o.mixed.api_key) : undefined)),
);
const opts = runs.map(
  (o, i): autocannon.Options => ({ url: o.url, connections: o.connections, ...(loads[i] ? { requests: loads[i].requests } : o.request) }),
);

const warm = [];
for (const [i, o] of runs.entries())
  warm.push(o.warmup_s > 0 ? fromAutocannon(await autocannon({ ...opts[i], duration: o.warmup_s })) : undefined);
say({ measuring: true });
const results: ClosedLoopResult[] = [];
for (const [i, o] of runs.entries()) {
  const pid = o.server_pid;
  const server = pid !== undefined ? { cpu_ms: procCpu_ms(pid), preemptions: procPreemptions(pid) } : undefined;
  const cpu = process.cpuUsage();
  const run = fromAutocannon(await autocannon({ ...opts[i], duration: o.duration_s }));
  const used = process.cpuUsage(cpu);
  const cpu_ms = pid !== undefined ? procCpu_ms(pid) : undefined;
  const preemptions = pid !== undefined ? procPreemptions(pid) : undefined;
  const load = loads[i];
  results.push({
    ...(warm[i] ? { warm: warm[i] } : {}),
    run,
    client_cpu_us_per_request: run.answered > 0 ? (used.user + used.system) / run.answered : 0,
    sched: ownSched(),
    ...(server?.cpu_ms !== undefined && cpu_ms !== undefined ? { server_cpu_ms: cpu_ms - server.cpu_ms } : {}),
    ...(server?.preemptions !== undefined && preemptions !== undefined ? { server_preemptions: preemptions - server.preemptions } : {}),
    ...(load ? { mixed: { accounts: load.remaining(), exhausted: load.exhausted(), cycles: load.cycles() } } : {}),
  });
}
say({ result: results });
