// TEST FIXTURE, not a load tool. The worker side of one task (options, setup, one scenario, teardown
// or handleSummary) over the bundled script. A scenario runs on this worker's single VU: arrival-rate
// iterations start on schedule; one that falls due while the VU is still busy past the next slot is
// dropped and counted in dropped_iterations (k6 would have needed another VU), so no burst ever
// catches up and the offered rate is never exceeded.
import { parentPort, workerData } from 'node:worker_threads';
import { AbortTest } from './k6-execution.ts';
import { addSample, sleepMs, vu } from './vu-runtime.ts';
import type { WorkerResult, WorkerTask } from './protocol.ts';

type Script = { [name: string]: unknown };
type Fn = (data?: unknown) => unknown;

export function parseDurationMs(text: unknown, fallback_ms: number): number {
  if (text === undefined || text === null) return fallback_ms;
  if (typeof text === 'number') return text;
  let total = 0;
  let rest = String(text);
  const units: { [u: string]: number } = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  while (rest.length > 0) {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)/.exec(rest);
    if (!m) throw new Error(`k6 double: not a duration: ${String(text)}`);
    total += Number(m[1]) * units[m[2]!]!;
    rest = rest.slice(m[0].length);
  }
  return total;
}

function iterate(fn: Fn, data: unknown, index: number): void {
  const v = vu();
  v.scenario!.iteration_in_test = index;
  (globalThis as unknown as { __ITER: number }).__ITER = v.iteration;
  const started = Date.now();
  try {
    fn(data);
  } catch (e) {
    if (e instanceof AbortTest) throw e;
    v.errors.push(`iteration ${index} of ${v.scenario!.name}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  } finally {
    v.iteration++;
    addSample('iterations', 'counter', false, 1);
    addSample('iteration_duration', 'trend', true, Date.now() - started);
  }
}

function arrivalRate(fn: Fn, data: unknown, c: { [k: string]: unknown }): void {
  const interval_ms = parseDurationMs(c.timeUnit, 1000) / Number(c.rate);
  const total = Math.ceil(parseDurationMs(c.duration, 0) / interval_ms);
  const t0 = Date.now();
  for (let i = 0; i < total; i++) {
    const due = t0 + i * interval_ms;
    const now = Date.now();
    if (now < due) sleepMs(due - now);
    else if (now > due + interval_ms) {
      addSample('dropped_iterations', 'counter', false, 1);
      continue;
    }
    vu().scenario!.progress = i / total;
    iterate(fn, data, i);
  }
}

function runScenario(script: Script, task: Extract<WorkerTask, { kind: 'scenario' }>): void {
  const c = task.config;
  const v = vu();
  const wait = v.test_start_ms + parseDurationMs(c.startTime, 0) - Date.now();
  sleepMs(wait);
  const tags = (c.tags as { [k: string]: string } | undefined) ?? {};
  v.scenario = { name: task.name, executor: String(c.executor), start_ms: Date.now(), iteration_in_test: 0, progress: 0, tags };
  v.tags = { ...tags, scenario: task.name };
  const fn = script[(c.exec as string | undefined) ?? 'default'];
  if (typeof fn !== 'function')
    throw new Error(`k6 double: scenario ${task.name} names no exported function ${String(c.exec ?? 'default')}`);
  if (c.executor === 'constant-arrival-rate') arrivalRate(fn as Fn, task.setup_data, c);
  else if (c.executor === 'per-vu-iterations' || c.executor === 'shared-iterations') {
    const n = c.executor === 'per-vu-iterations' ? Number(c.vus ?? 1) * Number(c.iterations ?? 1) : Number(c.iterations ?? 1);
    for (let i = 0; i < n; i++) iterate(fn as Fn, task.setup_data, i);
  } else throw new Error(`k6 double: executor ${String(c.executor)} is not implemented`);
}

function perform(script: Script, task: WorkerTask): unknown {
  const v = vu();
  switch (task.kind) {
    case 'options':
      return JSON.parse(JSON.stringify(script.options ?? {}));
    case 'setup':
      v.tags = {};
      // k6 hands setup data to VUs as JSON: whatever does not survive JSON does not arrive.
      return typeof script.setup === 'function' ? JSON.parse(JSON.stringify((script.setup as Fn)() ?? null)) : null;
    case 'scenario':
      runScenario(script, task);
      return null;
    case 'teardown':
      v.tags = {};
      if (typeof script.teardown === 'function') (script.teardown as Fn)(task.setup_data);
      return null;
    case 'summary':
      return typeof script.handleSummary === 'function' ? (script.handleSummary as Fn)(task.data) : null;
  }
}

export function runWorker(script: Script): void {
  const task = (workerData as { task: WorkerTask }).task;
  const v = vu();
  let value: unknown = null;
  let aborted: string | null = null;
  try {
    value = perform(script, task);
  } catch (e) {
    if (e instanceof AbortTest) aborted = e.message;
    else v.errors.push(`${task.kind}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  }
  const result: WorkerResult = { value, samples: v.samples, checks: [...v.checks.values()], errors: v.errors, aborted };
  parentPort!.postMessage(result);
}
