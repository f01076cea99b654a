// `npm run bench:verify [-- --seed S | --seeds A-B] [--concurrency N] [--slow-runs N] [--slow-ms MS] [--slow-limit-min M] [--skip-twins]
// [--skip-reference] [--skip-slow] [--skip-styles] [--coverage] [--twins a,b]`: the figures docs/verify.md quotes, measured rather
// than asserted (the machine is shared): the reference integrator over 100 runs; the correct-but-unusual consumers
// (feed-only, nudge: resumes the feed from its last cursor, deferred: answers 202 and applies later) over 100 runs
// each; every example twin within 10 runs at each seed
// (run that caught it, case length, shrink attempts, 5 replays of its case); a correct app that answers each webhook
// MS late (default 5000) over N runs (default 100), bounded to 10 min, with where its wall time went (periods spent
// waiting for answers, and the part no sender can overlap). `--coverage` prints only the coverage table over the
// seeds: the reference integrator's first 10 runs at each, and for every spec item the runs that reached it.
// `--no-shrink`: the twins caught as found (run and first line), without shrinking or replays.
// Each app runs as its own process (`swapsim example-app`, from the built dist/), as a user's app does beside
// `swapsim verify`; `--app-in-process` runs it in the bench's process instead (one core for both).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { INTEGRATOR_STYLES, startIntegrator, type IntegratorOptions } from '../scenarios/examples/reference-integrator/app.ts';
import { BUG_NAMES } from '../scenarios/examples/reference-integrator/bugs.ts';
import type { RelayRecord } from '../scenarios/verify/relay.ts';
import { DEFAULT_CONCURRENCY, verify } from '../scenarios/verify/verify.ts';
import { compactRuns, type CoverageRow } from '../scenarios/verify/coverage.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    seeds: { type: 'string' },
    coverage: { type: 'boolean', default: false },
    'no-shrink': { type: 'boolean', default: false },
    'slow-runs': { type: 'string', default: '100' },
    'slow-ms': { type: 'string', default: '5000' },
    /** Minutes the slow app's runs may take (0: no bound, to see whether all of them pass however long they take). */
    'slow-limit-min': { type: 'string', default: '10' },
    'skip-twins': { type: 'boolean', default: false },
    twins: { type: 'string' },
    'skip-slow': { type: 'boolean', default: false },
    'skip-reference': { type: 'boolean', default: false },
    'skip-styles': { type: 'boolean', default: false },
    concurrency: { type: 'string' },
    'app-in-process': { type: 'boolean', default: false },
  },
});

/** The reference integrator (with a style, bugs or a delay) as `swapsim example-app` on a free port, or in process. */
async function startApp(
  o: Pick<IntegratorOptions, 'style' | 'bugs' | 'answer_delay_ms'>,
): Promise<{ url: string; close(): Promise<void> }> {
  if (values['app-in-process']) return startIntegrator(o);
  const args = ['bin/swapsim.js', 'example-app', '--port', '0'];
  if (o.style !== undefined) args.push('--style', o.style);
  for (const bug of o.bugs ?? []) args.push('--bug', bug);
  if (o.answer_delay_ms !== undefined) args.push('--answer-delay-ms', String(o.answer_delay_ms));
  const child = spawn(process.execPath, args, { cwd: new URL('..', import.meta.url), stdio: ['ignore', 'pipe', 'inherit'] });
  for await (const line of createInterface({ input: child.stdout! })) {
    const url = /^reference integrator on (http:\/\/\S+?)[;\s]/.exec(line)?.[1];
    if (url === undefined) continue;
    child.stdout!.resume();
    return {
      url,
      async close() {
        child.kill('SIGTERM');
        if (child.exitCode === null) await once(child, 'exit');
      },
    };
  }
  throw new Error(`swapsim example-app exited (${child.exitCode}) before it printed its URL: run \`node lib/build.mjs --js\` first`);
}
const slow_limit_min = Number(values['slow-limit-min']);
const concurrency = values.concurrency === undefined ? DEFAULT_CONCURRENCY : Number(values.concurrency);
const seed = Number(values.seed);
/** `--seeds 1-5` (or `1,3,7`); default the one `--seed`. */
const seeds: number[] =
  values.seeds === undefined
    ? [seed]
    : values.seeds.includes('-')
      ? (([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i))(values.seeds.split('-').map(Number))
      : values.seeds.split(',').map(Number);
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

async function reference(): Promise<void> {
  const app = await startApp({});
  const r = await verify({ app_url: app.url, runs: 100, seed, concurrency });
  console.log(
    `reference integrator, seed ${seed}, concurrency ${concurrency}: ${r.failure ? `FAIL at run ${r.runs_to_catch}: ${r.failure.headline}` : `pass, ${r.passed} runs`} in ${secs(r.wall_ms)}; conduct findings ${r.conduct.length}`,
  );
  await app.close();
}

/** Each correct-but-unusual way to consume deliveries (app.ts IntegratorOptions.style), 100 runs. */
async function styles(): Promise<void> {
  for (const style of INTEGRATOR_STYLES.filter((s) => s !== 'apply')) {
    const app = await startApp({ style });
    const r = await verify({ app_url: app.url, runs: 100, seed, concurrency });
    console.log(
      `${style} consumer, seed ${seed}, concurrency ${concurrency}: ${r.failure ? `FAIL at run ${r.runs_to_catch}: ${r.failure.headline}` : `pass, ${r.passed} runs`} in ${secs(r.wall_ms)}; conduct findings ${r.conduct.length}`,
    );
    await app.close();
  }
}

/** `--twins a,b`: those twins only (each must be one of the reference integrator's bugs); default all. */
function chosenTwins(): typeof BUG_NAMES {
  if (values.twins === undefined) return BUG_NAMES;
  const names = values.twins.split(',');
  const unknown = names.filter((n) => !(BUG_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0) throw new Error(`--twins: not a twin: ${unknown.join(', ')} (twins: ${BUG_NAMES.join(', ')})`);
  return names as unknown as typeof BUG_NAMES;
}

async function twins(seed: number): Promise<void> {
  console.log(`twins, seed ${seed}, 10 runs each, concurrency ${concurrency}:`);
  for (const bug of chosenTwins()) {
    const app = await startApp({ bugs: [bug] });
    const r = await verify({ app_url: app.url, runs: 10, seed, concurrency, ...(values['no-shrink'] ? { shrink_time_limit_ms: 0 } : {}) });
    if (!r.failure) {
      console.log(`  ${bug}: NOT CAUGHT in ${r.runs} runs (${secs(r.wall_ms)})`);
      await app.close();
      continue;
    }
    const f = r.failure;
    if (values['no-shrink']) {
      // Caught and why, as found: no shrinking, no replays (the quick look across many seeds).
      console.log(`  ${bug}: run ${r.runs_to_catch}, ${f.original_steps} steps unshrunk, ${secs(r.wall_ms)}: ${f.headline}`);
      await app.close();
      continue;
    }
    let same = 0;
    for (let i = 0; i < 5; i++) if ((await verify({ app_url: app.url, seed, case: f.case_token })).failure?.headline === f.headline) same++;
    console.log(
      `  ${bug}: run ${r.runs_to_catch}, ${f.shrunk_steps.length} steps (from ${f.original_steps}), ${r.num_shrinks} shrink attempts, ${secs(r.wall_ms)}, replays ${same}/5: ${f.headline}`,
    );
    await app.close();
  }
}

/**
 * One run's wait for answers, from the relay's record: the wall time during which some answer was pending (the
 * union of [sent, answered]), and the floor no sender can beat: a delivery's attempts that reached the app go one
 * after another (a retry follows its answered failure), so the longest such chain costs that many answers in turn.
 */
function answerWaits(records: readonly RelayRecord[]): { waiting_ms: number; chain: number } {
  const spans = records.map((r) => [r.sent_wall_ms, r.sent_wall_ms + r.latency_ms] as const).sort((a, b) => a[0] - b[0]);
  let waiting_ms = 0;
  let start = 0;
  let end = 0;
  for (const [i, [from, to]] of spans.entries()) {
    if (i > 0 && from <= end) end = Math.max(end, to);
    else {
      waiting_ms += end - start;
      [start, end] = [from, to];
    }
  }
  waiting_ms += end - start;
  const attempts = new Map<string, Set<number>>();
  for (const r of records)
    if (r.kind === 'provider') attempts.set(r.delivery_id, (attempts.get(r.delivery_id) ?? new Set()).add(r.signed_at_ms));
  const chain = Math.max(0, ...[...attempts.values()].map((a) => a.size));
  return { waiting_ms, chain };
}

async function slowApp(delay_ms: number, runs: number): Promise<void> {
  // The reference integrator taking `delay_ms` over every webhook before it handles it: slow, and correct.
  const app = await startApp({ answer_delay_ms: delay_ms });
  const url = app.url;
  const walls: number[] = [];
  const batch_walls: number[] = [];
  let waiting_ms = 0;
  let floor_ms = 0;
  let more = 0;
  let batches = 0;
  // A batch's runs overlap: its wait is the union of every run's answers, its floor the longest chain in any run.
  let batch: { records: RelayRecord[]; chain: number; wall_ms: number; seen: number } = { records: [], chain: 0, wall_ms: 0, seen: 0 };
  const r = await verify({
    app_url: url,
    runs,
    seed,
    ...(slow_limit_min > 0 ? { time_limit_ms: slow_limit_min * 60_000 } : {}),
    concurrency,
    on_run: (u) => {
      const w = answerWaits(u.records);
      walls.push(u.wall_ms);
      batch.records.push(...u.records);
      batch.chain = Math.max(batch.chain, w.chain);
      batch.wall_ms = Math.max(batch.wall_ms, u.wall_ms);
      process.stderr.write(
        `  slow app: run ${u.run} (batch ${u.batch} of ${u.batch_size}) ${secs(u.wall_ms)}, answers pending ${secs(w.waiting_ms)}, longest chain of one delivery's attempts ${w.chain}\n`,
      );
      if (++batch.seen < u.batch_size) return;
      const b = answerWaits(batch.records);
      batches++;
      batch_walls.push(batch.wall_ms);
      waiting_ms += b.waiting_ms;
      floor_ms += batch.chain * delay_ms;
      if (b.waiting_ms > 1.5 * delay_ms) more++;
      process.stderr.write(
        `  slow app: batch ${u.batch} (${u.batch_size} runs) ${secs(batch.wall_ms)}, answers pending ${secs(b.waiting_ms)}\n`,
      );
      batch = { records: [], chain: 0, wall_ms: 0, seen: 0 };
    },
  });
  const per_run = r.runs > 0 ? r.wall_ms / r.runs : 0;
  const median = (xs: number[]): number => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : 0);
  console.log(
    `correct app answering each webhook ${delay_ms} ms late, seed ${seed}, concurrency ${concurrency}: ${r.failure ? `FAIL at run ${r.runs_to_catch}: ${r.failure.headline}` : `pass`}, ${r.runs} of ${runs} runs in ${secs(r.wall_ms)}${r.interrupted ? ` (${slow_limit_min} min limit reached)` : ''}; ${secs(per_run)} per run (median run ${secs(median(walls))}); ${batches} batches (median batch ${secs(median(batch_walls))}); conduct findings ${r.conduct.length}`,
  );
  console.log(
    `  where it went: answers pending ${secs(waiting_ms)} of it (${more} of ${batches} batches waited longer than one answer); floor ${secs(floor_ms)}: each batch's longest chain of one delivery's attempts (a retry follows its answered failure) × ${delay_ms} ms`,
  );
  await app.close();
}

/** The reference integrator's first 10 runs at each seed: the runs that reached each spec item, as a Markdown table. */
async function coverage(): Promise<void> {
  const app = await startApp({});
  const per_seed: Array<{ seed: number; rows: CoverageRow[]; ok: boolean }> = [];
  for (const s of seeds) {
    const r = await verify({ app_url: app.url, runs: 10, seed: s, concurrency });
    per_seed.push({ seed: s, rows: r.coverage, ok: !r.failure && r.passed === 10 });
    process.stderr.write(
      `  coverage: seed ${s} ${r.failure ? `FAIL at run ${r.runs_to_catch}: ${r.failure.headline}` : `pass`}, ${r.coverage.filter((c) => c.runs.length > 0).length} of ${r.coverage.length} items, ${secs(r.wall_ms)}\n`,
    );
  }
  await app.close();
  const missing = per_seed.flatMap((p) => p.rows.filter((r) => r.runs.length === 0).map((r) => `${r.item} at seed ${p.seed}`));
  console.log(
    `coverage, reference integrator, runs 1–10 at seeds ${seeds[0]}–${seeds[seeds.length - 1]}: ${missing.length === 0 ? `every item reached at every seed` : `NOT REACHED: ${missing.join(', ')}`}; ${per_seed.filter((p) => p.ok).length} of ${per_seed.length} seeds passed`,
  );
  // Every seed's column would be too wide to read: how many seeds reached each item, and the runs at the first three.
  const shown = per_seed.slice(0, 3);
  console.log(
    '',
    `| item | seeds that reached it in runs 1–10 | ${shown.map((p) => `runs at seed ${p.seed}`).join(' | ')} |`,
    `|---|---|${shown.map(() => '---').join('|')}|`,
  );
  for (const [i, row] of per_seed[0].rows.entries()) {
    const at = per_seed.filter((p) => p.rows[i].runs.length > 0).length;
    console.log(`| \`${row.item}\` | ${at} of ${per_seed.length} | ${shown.map((p) => compactRuns(p.rows[i].runs) || '—').join(' | ')} |`);
  }
}

if (values.coverage) {
  await coverage();
  process.exit(0);
}
if (!values['skip-reference']) await reference();
if (!values['skip-styles']) await styles();
if (!values['skip-twins']) for (const s of seeds) await twins(s);
if (!values['skip-slow']) await slowApp(Number(values['slow-ms']), Number(values['slow-runs']));
process.exit(0);
