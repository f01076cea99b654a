// The open-loop generator in a process of its own (bench.ts runs the fixed-rate cases through it): its
// timers and its garbage collector then share nothing with the bench parent, whose heap holds autocannon's
// results (a generator that stalls stamps every request it owes with the stall). Protocol on stdout, one
// JSON line each: `{"measuring":true}` once the warm-up is over, then `{"result":OpenLoopResult}`.
import { openLoop, type OpenLoopOptions } from './open-loop.ts';
import { say } from './client.ts';

const o = JSON.parse(process.env.OPEN_LOOP_OPTIONS ?? 'null') as (OpenLoopOptions & { warmup_s: number }) | null;
if (!o) throw new Error('OPEN_LOOP_OPTIONS is not set (bench.ts sets it)');
// A fresh process compiles node's HTTP client on its first requests: those are not measured.
if (o.warmup_s > 0) await openLoop({ ...o, duration_s: o.warmup_s });
say({ measuring: true });
const result = await openLoop(o);
say({ result });
