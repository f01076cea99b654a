// TEST FIXTURE, not a load tool: runs a k6 script under the double so tests can check its logic
// without k6 (not installable here). The script is bundled by esbuild with `k6`, `k6/http`,
// `k6/metrics` and `k6/execution` resolved to this folder; each task (options, setup, every scenario,
// teardown, handleSummary) runs in its own worker with one VU, scenarios concurrently from their
// startTime; this thread performs the HTTP the workers block on, then evaluates the script's own
// thresholds and writes what handleSummary returns. Nothing here measures speed.
import { build, type Plugin } from 'esbuild';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';
import type { CheckTally, HttpReplyMsg, HttpRequestMsg, Sample, WorkerResult, WorkerTask } from './protocol.ts';
import { aggregate, evaluateThresholds, parseSelector, select, type ThresholdOutcome } from './thresholds.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const MODULES: { [name: string]: string } = {
  k6: join(HERE, 'k6.ts'),
  'k6/http': join(HERE, 'k6-http.ts'),
  'k6/metrics': join(HERE, 'k6-metrics.ts'),
  'k6/execution': join(HERE, 'k6-execution.ts'),
};

/** Resolves k6's modules to the double; any other k6 module fails the bundle loudly. */
const k6Double: Plugin = {
  name: 'k6-double',
  setup(b) {
    b.onResolve({ filter: /^k6(\/.*)?$/ }, (args) => {
      const path = MODULES[args.path];
      if (path === undefined) return { errors: [{ text: `the k6 double does not implement ${args.path}` }] };
      return { path };
    });
  },
};

/** Bundles the script with the double behind it; returns the .mjs path a worker can load. */
export async function bundleForDouble(entry: string, outdir: string): Promise<string> {
  const outfile = join(outdir, 'script.mjs');
  const contents = [
    `import ${JSON.stringify(join(HERE, 'init-globals.ts'))};`,
    `import * as script from ${JSON.stringify(resolve(entry))};`,
    `import { runWorker } from ${JSON.stringify(join(HERE, 'worker-main.ts'))};`,
    'runWorker(script);',
  ].join('\n');
  await build({
    stdin: { contents, resolveDir: HERE, loader: 'ts', sourcefile: 'k6-double-entry.ts' },
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    plugins: [k6Double],
    // Errors reach the caller in the rejection (a script importing a module the double lacks); printing them too
    // put an `✘ [ERROR]` in every passing test run.
    logLevel: 'silent',
  });
  return outfile;
}

/** Go's canonical header key, as k6 presents response headers: `retry-after` → `Retry-After`. */
export function canonicalHeader(name: string): string {
  return name
    .split('-')
    .map((p) => (p.length ? p[0]!.toUpperCase() + p.slice(1).toLowerCase() : p))
    .join('-');
}

async function perform(req: HttpRequestMsg): Promise<HttpReplyMsg> {
  const started = performance.now();
  try {
    const res = await fetch(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body ?? undefined,
      signal: AbortSignal.timeout(req.timeout_ms),
    });
    const body = await res.text();
    const headers: { [h: string]: string } = {};
    res.headers.forEach((v, k) => (headers[canonicalHeader(k)] = v));
    return {
      status: res.status,
      body,
      headers,
      duration_ms: performance.now() - started,
      error: '',
      error_code: res.status >= 400 ? 1000 + res.status : 0,
      url: res.url || req.url,
    };
  } catch (e) {
    // k6 reports a request that got no reply as status 0 with an error message.
    return {
      status: 0,
      body: '',
      headers: {},
      duration_ms: performance.now() - started,
      error: e instanceof Error ? e.message : String(e),
      error_code: 1000,
      url: req.url,
    };
  }
}

interface RunContext {
  bundle: string;
  env: { [k: string]: string };
  test_start_ms: number;
}

function runTask(ctx: RunContext, task: WorkerTask, vu_id: number): Promise<WorkerResult> {
  const { port1, port2 } = new MessageChannel();
  const flag = new SharedArrayBuffer(4);
  const flagView = new Int32Array(flag);
  port1.on('message', (req: HttpRequestMsg) => {
    void perform(req).then((reply) => {
      port1.postMessage(reply);
      Atomics.store(flagView, 0, 1);
      Atomics.notify(flagView, 0);
    });
  });
  const worker = new Worker(ctx.bundle, {
    workerData: { task, env: ctx.env, vu_id, test_start_ms: ctx.test_start_ms, port: port2, flag },
    transferList: [port2],
  });
  return new Promise<WorkerResult>((resolvePromise, reject) => {
    worker.once('message', (r: WorkerResult) => resolvePromise(r));
    worker.once('error', reject);
    worker.once('exit', (code) => {
      port1.close();
      if (code !== 0) reject(new Error(`k6 double: ${task.kind} worker exited with ${code}`));
    });
  }).finally(() => void worker.terminate());
}

export interface DoubleRun {
  options: any;
  setup_data: unknown;
  samples: Sample[];
  checks: CheckTally[];
  errors: string[];
  aborted: string | null;
  duration_ms: number;
  thresholds: ThresholdOutcome[];
  /** Every threshold passed (k6's exit status 0 vs 99). */
  passed: boolean;
  summary_data: any;
  /** What handleSummary returned: `stdout`, `stderr` or file paths (written under `cwd`). */
  outputs: { [out: string]: string };
}

function mergeChecks(results: WorkerResult[]): CheckTally[] {
  const by = new Map<string, CheckTally>();
  for (const c of results.flatMap((r) => r.checks)) {
    const t = by.get(c.name) ?? { name: c.name, passes: 0, fails: 0 };
    t.passes += c.passes;
    t.fails += c.fails;
    by.set(c.name, t);
  }
  return [...by.values()];
}

/** The object k6 passes to handleSummary: metrics (sub-metrics with thresholds included), checks, state,
 *  and setup_data (k6 passes it; undefined when setup failed). */
export function summaryData(
  options: any,
  samples: Sample[],
  checks: CheckTally[],
  outcomes: ThresholdOutcome[],
  duration_ms: number,
  setup_data?: unknown,
): any {
  const metrics: { [name: string]: any } = {};
  const trendStats: string[] = options.summaryTrendStats ?? ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'];
  const extra = trendStats
    .map((s) => /^p\((\d+(?:\.\d+)?)\)$/.exec(s))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]));
  const names = [...new Set(samples.map((s) => s.metric))];
  for (const name of names) {
    const first = samples.find((s) => s.metric === name)!;
    metrics[name] = {
      type: first.type,
      contains: first.time ? 'time' : 'default',
      values: aggregate(first.type, select(samples, { metric: name, tags: {} }), duration_ms, extra),
    };
  }
  for (const o of outcomes) {
    const sel = parseSelector(o.key);
    const type = o.type ?? 'counter';
    if (!metrics[o.key]) {
      const picked = select(samples, sel);
      metrics[o.key] = { type, contains: picked[0]?.time ? 'time' : 'default', values: aggregate(type, picked, duration_ms, extra) };
    }
    metrics[o.key].thresholds = { ...(metrics[o.key].thresholds ?? {}), [o.expression]: { ok: o.ok } };
  }
  return {
    root_group: {
      name: '',
      path: '',
      id: 'd41d8cd98f00b204e9800998ecf8427e',
      groups: [],
      checks: checks.map((c) => ({ name: c.name, path: `::${c.name}`, id: c.name, passes: c.passes, fails: c.fails })),
    },
    options: { summaryTrendStats: trendStats, summaryTimeUnit: '', noColor: true },
    state: { isStdOutTTY: false, isStdErrTTY: false, testRunDurationMs: duration_ms },
    metrics,
    setup_data,
  };
}

/**
 * Runs the script at `entry` (a load/k6 .ts file) under the double with `env` as __ENV. Files that
 * handleSummary names are written relative to `cwd`.
 */
export async function runUnderDouble(entry: string, o: { env: { [k: string]: string }; cwd: string }): Promise<DoubleRun> {
  const tmp = mkdtempSync(join(tmpdir(), 'k6-double-'));
  try {
    const ctx: RunContext = { bundle: await bundleForDouble(entry, tmp), env: o.env, test_start_ms: Date.now() };
    const optionsRun = await runTask(ctx, { kind: 'options' }, 0);
    if (optionsRun.errors.length) throw new Error(`k6 double: init context failed: ${optionsRun.errors.join('\n')}`);
    const options = optionsRun.value as any;
    const setup = await runTask(ctx, { kind: 'setup' }, 0);
    if (setup.errors.length || setup.aborted) throw new Error(`k6 double: setup failed: ${setup.aborted ?? setup.errors.join('\n')}`);
    ctx.test_start_ms = Date.now();
    const scenarios = Object.entries((options.scenarios ?? {}) as { [name: string]: { [k: string]: unknown } });
    const runs = await Promise.all(
      scenarios.map(([name, config], i) => runTask(ctx, { kind: 'scenario', name, config, setup_data: setup.value, vu_id: i + 1 }, i + 1)),
    );
    const duration_ms = Date.now() - ctx.test_start_ms;
    const teardown = await runTask(ctx, { kind: 'teardown', setup_data: setup.value }, 0);
    const all = [setup, ...runs, teardown];
    const samples = all.flatMap((r) => r.samples);
    const checks = mergeChecks(all);
    const thresholds = evaluateThresholds(options.thresholds ?? {}, samples, duration_ms);
    const data = summaryData(options, samples, checks, thresholds, duration_ms, setup.value);
    const summary = await runTask(ctx, { kind: 'summary', data }, 0);
    const outputs = (summary.value ?? {}) as { [out: string]: string };
    for (const [path, text] of Object.entries(outputs)) {
      if (path === 'stdout' || path === 'stderr') continue;
      const file = resolve(o.cwd, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
    return {
      options,
      setup_data: setup.value,
      samples,
      checks,
      errors: all.concat(summary).flatMap((r) => r.errors),
      aborted: all.map((r) => r.aborted).find((a) => a !== null) ?? null,
      duration_ms,
      thresholds,
      passed: thresholds.every((t) => t.ok),
      summary_data: data,
      outputs,
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
