// `npm run bench:engine`: the engine's throughput and footprint, in process and on virtual time (no
// express, no HTTP except real webhook deliveries): lifecycles/s (tinybench and a 2,000 batch), sim time
// per wall second over a 24 h scenario with and without a webhook, and RSS of 100,000 settled trades. Each
// figure is also printed as a ratio to xstate's own pure transition() driving the same lifecycles over plain
// objects (xstate-baseline.ts), measured just before it in the same process: the absolute figures swing
// 2× with the machine's load, the ratios are the targets.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getHeapSpaceStatistics } from 'node:v8';
import { build } from 'esbuild';
import { Bench } from 'tinybench';
import { createWebhook, deliveryStatus, webhookStore } from '../../fake-provider/resources/webhooks/model.ts';
import { benchWorld, installReaction, land, lifecycle, SETTLE_BOUND_MS, tradeOutcomes, type BenchWorld } from './engine-world.ts';
import { startReceiver, type Receiver, type ReceiverMode } from './receiver.ts';
import { baselineLifecycle, baselineRun, median, plainLifecycle, plainWorld, ratio } from './xstate-baseline.ts';

const SELF = fileURLToPath(import.meta.url);
const ROOT = resolve(dirname(SELF), '../..');
const OUT = resolve(ROOT, 'reports/out/bench-engine.json');
const COMMAND = 'node --expose-gc --import tsx load/bench/engine.ts';
const HOUR_MS = 3_600_000;

const arg = (name: string, fallback: number): number => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? Number(hit.slice(name.length + 3)) : fallback;
};
const section = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : 'all';
const round = (x: number, digits = 1): number => Number(x.toFixed(digits));
const mib = (bytes: number): number => round(bytes / 2 ** 20);

function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (!g) throw new Error('run node with --expose-gc');
  g();
  g();
}

// ---- 1. lifecycles per second -------------------------------------------------------------------

async function benchLifecycle(time_ms: number) {
  const bw = await benchWorld(50);
  const bench = new Bench({ name: 'engine lifecycle', time: time_ms, warmupTime: 500, throws: true });
  bench.add('deposit → firm rfq → accept → settled', () => lifecycle(bw), { async: true });
  await bench.run();
  const r = bench.tasks[0].result;
  if (r.state !== 'completed') throw new Error(`tinybench task ended ${r.state}`);
  const { p50, p75, p99, mean, samplesCount } = r.latency;
  return {
    median_ms: round(p50, 4),
    p75_ms: round(p75, 4),
    p99_ms: round(p99, 4),
    mean_ms: round(mean, 4),
    samples: samplesCount,
    lifecycles_per_s: round(1000 / p50, 0),
    world_events_after: bw.world.events.all.length,
    world_transitions_after: bw.world.transitions.records.length,
  };
}

/** N lifecycles: N deposits land at once; the client's reaction to each verification trades; one settle carries it all. */
async function runBatch(bw: BenchWorld, n: number) {
  const from = bw.started.length;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) land(bw);
  const report = await bw.world.sim.scheduler.settle(SETTLE_BOUND_MS);
  const wall_ms = performance.now() - t0;
  const ids = bw.started.slice(from);
  const outcomes = tradeOutcomes(bw, ids);
  if (ids.length !== n || outcomes.settled !== n || report.truncated) {
    throw new Error(`batch: ${ids.length}/${n} trades, outcomes ${JSON.stringify(outcomes)}, failures ${bw.failures.slice(0, 3)}`);
  }
  return { wall_ms, tasks_ran: report.ran };
}

/**
 * `runs` measured batches, each in a fresh world, after `warmup` batches that are not counted: a lone
 * batch in a cold process measures V8's compiler warming up (its first batches ran at half the speed of
 * the later ones), not the engine.
 */
async function benchBatch(n: number, runs: number, warmup: number) {
  for (let i = 0; i < warmup; i++) {
    baselineRun(n);
    const bw = await benchWorld(200, `bench-batch-warmup-${i}`);
    installReaction(bw);
    await runBatch(bw, n);
  }
  const per_run: Array<{
    wall_ms: number;
    lifecycles_per_s: number;
    tasks_ran: number;
    xstate_lifecycles_per_s: number;
    ratio_to_xstate: number;
  }> = [];
  for (let i = 0; i < runs; i++) {
    const xstate = baselineRun(n);
    const bw = await benchWorld(200, `bench-batch-${i}`);
    installReaction(bw);
    const { wall_ms, tasks_ran } = await runBatch(bw, n);
    const per_s = round((n * 1000) / wall_ms, 0);
    per_run.push({
      wall_ms: round(wall_ms),
      lifecycles_per_s: per_s,
      tasks_ran,
      xstate_lifecycles_per_s: xstate,
      ratio_to_xstate: ratio(per_s, xstate),
    });
  }
  return {
    n,
    warmup_batches: warmup,
    runs: per_run,
    median_lifecycles_per_s: median(per_run.map((r) => r.lifecycles_per_s)),
    xstate_median_lifecycles_per_s: median(per_run.map((r) => r.xstate_lifecycles_per_s)),
    ratio_to_xstate: median(per_run.map((r) => r.ratio_to_xstate)),
  };
}

/**
 * The batch as programs that make many worlds meet it (a verify run, a scenario, a test each build one):
 * every batch in a fresh world made after the previous world was collected. Code the compiler specialised
 * to objects of a collected world is thrown away with it and compiled again; the kernel and stores are
 * classes (sim/scheduler.ts) so that little is. Reference figure, no target.
 */
async function benchChurn(n: number, runs: number, warmup: number) {
  const per_run: number[] = [];
  const xstate: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const base = baselineRun(n);
    const bw = await benchWorld(200, `bench-churn-${i}`);
    installReaction(bw);
    gc(); // the previous batch's world is unreachable by now: collect it before measuring
    const { wall_ms } = await runBatch(bw, n);
    if (i < warmup) continue;
    per_run.push(round((n * 1000) / wall_ms, 0));
    xstate.push(base);
    ratios.push(ratio(per_run[per_run.length - 1], base));
  }
  return {
    n,
    warmup_batches: warmup,
    runs: per_run,
    median_lifecycles_per_s: median(per_run),
    xstate_runs: xstate,
    xstate_median_lifecycles_per_s: median(xstate),
    ratios_to_xstate: ratios,
    ratio_to_xstate: median(ratios),
  };
}

// ---- 2. sim time per wall second over 24 h ------------------------------------------------------

async function benchScenario(receiverMode: ReceiverMode | null, receiver: Receiver | null, every_ms: number) {
  const withWebhook = receiver !== null;
  const bw = await benchWorld(20, 'bench-scenario');
  installReaction(bw);
  const received_before = (await receiver?.received()) ?? 0;
  if (receiver) createWebhook(bw.world, bw.org, { url: receiver.url });
  const { scheduler } = bw.world.sim;
  const start_ms = bw.world.sim.now_ms();
  const sim_ms = 24 * HOUR_MS;
  const lifecycles = Math.floor(sim_ms / every_ms);
  for (let i = 0; i < lifecycles; i++) scheduler.scheduleCall(start_ms + i * every_ms, 'bench.client_deposit', () => void land(bw));
  const events_before = bw.world.events.all.length;
  const t0 = performance.now();
  const report = await scheduler.advance(sim_ms);
  const wall_ms = performance.now() - t0;
  const outcomes = tradeOutcomes(bw, bw.started);
  const deliveries = [...webhookStore(bw.world).deliveries.values()];
  const byStatus: Record<string, number> = {};
  for (const d of deliveries) byStatus[deliveryStatus(d)] = (byStatus[deliveryStatus(d)] ?? 0) + 1;
  const received = ((await receiver?.received()) ?? 0) - received_before;
  return {
    webhook: withWebhook,
    receiver: receiverMode,
    sim_ms,
    wall_ms: round(wall_ms),
    sim_per_wall: round(sim_ms / wall_ms, 0),
    lifecycles_scheduled: lifecycles,
    trades: outcomes,
    events_published: bw.world.events.all.length - events_before,
    tasks_ran: report.ran,
    deliveries: byStatus,
    http_requests_received: received,
    wall_ms_per_delivery: withWebhook && received > 0 ? round(wall_ms / received, 3) : null,
  };
}

/**
 * `runs` measured 24 h scenarios (default 5), each in a fresh world with the same receiver, after `warmup` (3) unmeasured
 * ones: in a cold process the first run measures V8 compiling node's and undici's HTTP paths and the
 * engine's (the first of four runs went at 40% of the speed of the fourth), not the steady state.
 */
async function benchScenarioRuns(receiverMode: ReceiverMode | null, every_ms: number, warmup: number, runs: number) {
  const receiver = receiverMode ? await startReceiver(receiverMode) : null;
  try {
    for (let i = 0; i < warmup; i++) await benchScenario(receiverMode, receiver, every_ms);
    const measured: Array<Awaited<ReturnType<typeof benchScenario>>> = [];
    // The scenario's lifecycles per wall second against the baseline's for as many lifecycles, just before.
    const ratios: number[] = [];
    for (let i = 0; i < runs; i++) {
      const base = baselineRun(Math.floor((24 * HOUR_MS) / every_ms));
      const r = await benchScenario(receiverMode, receiver, every_ms);
      measured.push(r);
      ratios.push(ratio((r.lifecycles_scheduled * 1000) / r.wall_ms, base));
    }
    const sorted = [...measured].sort((a, b) => a.sim_per_wall - b.sim_per_wall);
    return {
      ...sorted[Math.floor(sorted.length / 2)],
      warmup_runs: warmup,
      runs_sim_per_wall: measured.map((r) => r.sim_per_wall),
      ratios_to_xstate: ratios,
      ratio_to_xstate: median(ratios),
    };
  } finally {
    await receiver?.close();
  }
}

// ---- 3. memory of 100,000 settled trades --------------------------------------------------------

const oldSpaceCommitted = (): number => getHeapSpaceStatistics().find((sp) => sp.space_name === 'old_space')?.physical_space_size ?? 0;

/**
 * Full collections until old space stops shrinking (at most 10), as a process that keeps running gets
 * them: a full collection evacuates only a bounded share of the fragmented pages, so right after a
 * burst of building, old space still holds pages kept for a fraction of their objects. Returns how many.
 */
function settleHeap(): number {
  const g = (globalThis as { gc?: () => void }).gc!;
  let committed = oldSpaceCommitted();
  for (let n = 1; n <= 10; n++) {
    g();
    const now = oldSpaceCommitted();
    if (now >= committed) return n;
    committed = now;
  }
  return 10;
}

async function benchMemory(total: number, batch: number) {
  gc();
  const rss_start = process.memoryUsage().rss;
  const bw = await benchWorld(200, 'bench-memory');
  installReaction(bw);
  gc();
  const rss_world = process.memoryUsage().rss;
  const t0 = performance.now();
  for (let done = 0; done < total; done += batch) await runBatch(bw, Math.min(batch, total - done));
  const build_ms = performance.now() - t0;
  gc();
  const rss_two_gcs = process.memoryUsage().rss;
  const settled_after_gcs = settleHeap();
  const m = process.memoryUsage();
  const outcomes = tradeOutcomes(bw, bw.started);
  return {
    trades: bw.started.length,
    settled: outcomes.settled ?? 0,
    batch,
    build_wall_ms: round(build_ms, 0),
    build_lifecycles_per_s: round((total * 1000) / build_ms, 0),
    rss_before_world_mib: mib(rss_start),
    rss_empty_world_mib: mib(rss_world),
    rss_mib: mib(m.rss),
    rss_after_two_gcs_mib: mib(rss_two_gcs),
    full_gcs_to_settle: settled_after_gcs,
    heap_used_mib: mib(m.heapUsed),
    heap_total_mib: mib(m.heapTotal),
    // Committed vs live per V8 space: where RSS above the live heap sits (e.g. old space kept after gc).
    spaces: Object.fromEntries(
      getHeapSpaceStatistics().map((sp) => [
        sp.space_name,
        { committed_mib: mib(sp.physical_space_size), used_mib: mib(sp.space_used_size) },
      ]),
    ),
    external_mib: mib(m.external),
    events: bw.world.events.all.length,
    transition_records: bw.world.transitions.records.length,
    scheduler_pending: bw.world.sim.scheduler.pending(),
    // Keeps the world reachable until after the measurement.
    sim_now_ms: bw.world.sim.now_ms(),
  };
}

/** The yardstick's footprint: `total` lifecycles of xstate snapshots in plain Maps, after full collections. */
function baselineMemory(total: number) {
  gc();
  const w = plainWorld();
  for (let i = 0; i < total; i++) plainLifecycle(w);
  gc();
  settleHeap();
  const m = process.memoryUsage();
  return { lifecycles: total, entities: w.entities.size, rss_mib: mib(m.rss), heap_used_mib: mib(m.heapUsed) };
}

/**
 * This file built the way `lib/build.mjs` builds the library (`import 'swapsim'`: one esbuild bundle,
 * dependencies external), so the engine's memory can be measured as it ships, under plain node. Under
 * tsx the process also holds the TypeScript loader: its thread, and the source, output and source map of
 * every module it transpiled (about 45 MiB before the first trade). Two directories below the root,
 * like dist/index.js, so the modules that find files beside themselves still find them.
 */
async function builtBench(): Promise<string> {
  const out = resolve(ROOT, 'reports/out/engine-bench.mjs');
  await build({
    entryPoints: [SELF],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  return out;
}

/**
 * Memory is measured in a fresh process so that the other benchmarks' garbage does not inflate RSS:
 * with `built`, the bundle under plain node (as the library runs), else this file under tsx (as the
 * command runs).
 */
function memoryInChild(total: number, batch: number, built: string | null): Awaited<ReturnType<typeof benchMemory>>;
function memoryInChild(total: number, batch: number, built: string | null, baseline: true): ReturnType<typeof baselineMemory>;
function memoryInChild(total: number, batch: number, built: string | null, baseline = false): unknown {
  const entry = built === null ? [...process.execArgv, SELF] : ['--expose-gc', built];
  const r = spawnSync(
    process.execPath,
    [...entry, 'memory', baseline ? '--baseline-child' : '--child', `--trades=${total}`, `--batch=${batch}`],
    {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 16 * 2 ** 20,
    },
  );
  if (r.status !== 0) throw new Error(`memory child failed (${r.status}): ${r.stderr}`);
  const line = r.stdout.trim().split('\n').pop()!;
  return JSON.parse(line);
}

// ---- report -------------------------------------------------------------------------------------

interface Row {
  figure: string;
  measured: string;
  target: string;
  pass: string;
  command: string;
}

/** A figure's ratio to the xstate baseline measured just before it: the target from now on is not to fall. */
const ratioRow = (figure: string, x: number, base_per_s: number, command: string): Row => ({
  figure,
  measured: Number.isNaN(base_per_s) ? `${x}×` : `${x}× (xstate: ${base_per_s} lifecycles/s)`,
  target: 'not below the last recorded (docs/engine.md)',
  pass: '-',
  command,
});

async function main(): Promise<void> {
  const time_ms = arg('time', 5_000);
  const batch_n = arg('n', 2_000);
  const every_ms = arg('every', 3 * 60_000);
  const total = arg('trades', 100_000);
  const batch = arg('batch', 5_000);

  if (process.argv.includes('--baseline-child')) {
    process.stdout.write(`${JSON.stringify(baselineMemory(total))}\n`);
    return;
  }
  if (process.argv.includes('--child')) {
    process.stdout.write(`${JSON.stringify(await benchMemory(total, batch))}\n`);
    return;
  }

  const results: Record<string, unknown> = { node: process.version, platform: `${process.platform}/${process.arch}`, command: COMMAND };
  const rows: Row[] = [];
  const want = (s: string) => section === 'all' || section === s;
  // Each figure is printed as soon as it is measured: the memory run takes minutes.
  const note = (name: string, value: unknown): void => console.log(`${name}: ${JSON.stringify(value)}`);

  if (want('lifecycle')) {
    const base = await baselineLifecycle(time_ms);
    const lc = await benchLifecycle(time_ms);
    const x = ratio(lc.lifecycles_per_s, base.lifecycles_per_s);
    results.lifecycle = { ...lc, xstate_baseline: base, ratio_to_xstate: x };
    note('lifecycle', results.lifecycle);
    rows.push({
      figure: 'lifecycles/s (tinybench, 1000/median)',
      measured: `${lc.lifecycles_per_s} (median ${lc.median_ms} ms, p75 ${lc.p75_ms}, p99 ${lc.p99_ms}, n=${lc.samples})`,
      target: '≥ 20000',
      pass: lc.lifecycles_per_s >= 20_000 ? 'PASS' : 'FAIL',
      command: `${COMMAND} lifecycle`,
    });
    rows.push(ratioRow('same ÷ xstate transition() (tinybench)', x, base.lifecycles_per_s, `${COMMAND} lifecycle`));
  }
  if (want('batch') || want('lifecycle')) {
    const b = await benchBatch(batch_n, arg('runs', 5), arg('warmup', 3));
    results.batch = b;
    note('batch', b);
    rows.push({
      figure: `lifecycles/s (batch of ${batch_n}, one settle)`,
      measured: `${b.median_lifecycles_per_s} (runs: ${b.runs.map((r) => r.lifecycles_per_s).join(', ')})`,
      target: '≥ 20000',
      pass: b.median_lifecycles_per_s >= 20_000 ? 'PASS' : 'FAIL',
      command: `${COMMAND} batch`,
    });
    rows.push(
      ratioRow(
        `same ÷ xstate transition() (batch of ${batch_n}, median of per-run ratios)`,
        b.ratio_to_xstate,
        b.xstate_median_lifecycles_per_s,
        `${COMMAND} batch`,
      ),
    );
  }
  if (want('churn')) {
    const c = await benchChurn(batch_n, arg('runs', 5), arg('warmup', 3));
    results.churn = c;
    note('churn', c);
    rows.push({
      figure: `lifecycles/s (batch of ${batch_n}, each in a fresh world after the last one was collected)`,
      measured: `${c.median_lifecycles_per_s} (runs: ${c.runs.join(', ')})`,
      target: '(reference)',
      pass: '-',
      command: `${COMMAND} churn`,
    });
    rows.push(
      ratioRow(
        `same ÷ xstate transition() (batch of ${batch_n}, median of per-run ratios)`,
        c.ratio_to_xstate,
        c.xstate_median_lifecycles_per_s,
        `${COMMAND} churn`,
      ),
    );
  }
  if (want('scenario')) {
    const warmup = arg('scenario-warmup', 3);
    const runs = arg('scenario-runs', 5);
    const withHook = await benchScenarioRuns('inline', every_ms, warmup, runs);
    const child = await benchScenarioRuns('process', every_ms, warmup, runs);
    const without = await benchScenarioRuns(null, every_ms, warmup, runs);
    results.scenario = { with_webhook: withHook, with_webhook_receiver_process: child, without_webhook: without };
    note('scenario', results.scenario);
    rows.push({
      figure: 'sim/wall over 24 h, webhook (real HTTP, receiver in process)',
      measured: `${withHook.sim_per_wall}× median (runs ${withHook.runs_sim_per_wall.join(', ')}; ${withHook.wall_ms} ms wall, ${withHook.http_requests_received} deliveries)`,
      target: '≥ 100000×',
      pass: withHook.sim_per_wall >= 100_000 ? 'PASS' : 'FAIL',
      command: `${COMMAND} scenario`,
    });
    rows.push({
      figure: 'same, receiver as a child process',
      measured: `${child.sim_per_wall}× median (runs ${child.runs_sim_per_wall.join(', ')}; ${child.wall_ms} ms wall, ${child.http_requests_received} deliveries)`,
      target: '(reference)',
      pass: '-',
      command: `${COMMAND} scenario`,
    });
    rows.push({
      figure: 'sim/wall over 24 h, no webhook',
      measured: `${without.sim_per_wall}× median (runs ${without.runs_sim_per_wall.join(', ')})`,
      target: '(reference)',
      pass: '-',
      command: `${COMMAND} scenario`,
    });
    const perSecond = (s: { lifecycles_scheduled: number }) => `${s.lifecycles_scheduled} lifecycles`;
    const scenarioRow = (label: string, r: typeof withHook) =>
      ratioRow(
        `${label}, as lifecycles/s ÷ xstate transition() (${perSecond(r)}, median of per-run ratios)`,
        r.ratio_to_xstate,
        NaN,
        `${COMMAND} scenario`,
      );
    rows.push(scenarioRow('sim/wall with webhook', withHook));
    rows.push(scenarioRow('same, receiver as a child process', child));
    rows.push(scenarioRow('same, no webhook', without));
  }
  if (want('memory')) {
    const built = await builtBench();
    const base = memoryInChild(total, batch, built, true);
    const shipped = memoryInChild(total, batch, built);
    const tsx = memoryInChild(total, batch, null);
    // Memory the other way up (the baseline's over the engine's), so that a higher ratio is better here too.
    const x = ratio(base.heap_used_mib, shipped.heap_used_mib);
    results.memory = { ...shipped, xstate_baseline: base, ratio_to_xstate: x };
    results.memory_under_tsx = tsx;
    note('memory', shipped);
    note('memory_under_tsx', tsx);
    const measured = (m: typeof shipped) =>
      `${m.rss_mib} MiB after ${m.full_gcs_to_settle} more full gcs (${m.rss_after_two_gcs_mib} MiB after the first two; ${m.rss_before_world_mib} MiB before the world; heap ${m.heap_used_mib}, ${m.events} events, ${m.transition_records} transitions)`;
    rows.push({
      figure: `RSS after gc, ${shipped.settled} settled trades, the engine as built (plain node, as \`import 'swapsim'\` runs)`,
      measured: measured(shipped),
      target: '≤ 500 MiB',
      pass: shipped.rss_mib <= 500 && shipped.settled === total ? 'PASS' : 'FAIL',
      command: `${COMMAND} memory`,
    });
    rows.push({
      figure: `same, this file under tsx (TypeScript loader in the process)`,
      measured: measured(tsx),
      // The target is the built engine's (docs/engine.md): tsx's loader adds ~50 MiB before the first trade.
      target: '(reference)',
      pass: tsx.settled === total ? '-' : 'FAIL',
      command: `${COMMAND} memory`,
    });
    rows.push({
      figure: `xstate transition()'s live heap for ${total} lifecycles ÷ the engine's (built), higher is better`,
      measured: `${x}× (xstate: heap ${base.heap_used_mib} MiB, RSS ${base.rss_mib} MiB for ${base.entities} entities)`,
      target: 'not below the last recorded (docs/engine.md)',
      pass: '-',
      command: `${COMMAND} memory`,
    });
  }

  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify({ ...results, table: rows }, null, 2)}\n`);
  console.table(rows);
  console.log(`wrote ${OUT}`);
}

await main();
