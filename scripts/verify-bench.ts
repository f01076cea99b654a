// `npm run bench:verify [-- --seed S] [--slow-runs N] [--slow-ms MS] [--skip-twins]`: the figures docs/verify.md
// quotes, measured rather than asserted (the machine is shared): the reference integrator over 100 runs; every
// example twin within 10 runs (run that caught it, case length, shrink attempts, 5 replays of its case); a
// correct app that answers each webhook MS late (default 5000) over N runs (default 100), bounded to 10 min, with
// where its wall time went (periods spent waiting for answers, and the part no sender can overlap).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createIntegratorApp, startIntegrator } from '../scenarios/examples/reference-integrator/app.ts';
import { BUG_NAMES } from '../scenarios/examples/reference-integrator/bugs.ts';
import type { RelayRecord } from '../scenarios/verify/relay.ts';
import { verify } from '../scenarios/verify/verify.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    'slow-runs': { type: 'string', default: '100' },
    'slow-ms': { type: 'string', default: '5000' },
    'skip-twins': { type: 'boolean', default: false },
    'skip-slow': { type: 'boolean', default: false },
  },
});
const seed = Number(values.seed);
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

async function reference(): Promise<void> {
  const app = await startIntegrator();
  const r = await verify({ app_url: app.url, runs: 100, seed });
  console.log(`reference integrator, seed ${seed}: ${r.failure ? `FAIL at run ${r.runs_to_catch}: ${r.failure.headline}` : `pass, ${r.passed} runs`} in ${secs(r.wall_ms)}; conduct findings ${r.conduct.length}`);
  await app.close();
}

async function twins(): Promise<void> {
  console.log(`twins, seed ${seed}, 10 runs each:`);
  for (const bug of BUG_NAMES) {
    const app = await startIntegrator({ bugs: [bug] });
    const r = await verify({ app_url: app.url, runs: 10, seed });
    if (!r.failure) {
      console.log(`  ${bug}: NOT CAUGHT in ${r.runs} runs (${secs(r.wall_ms)})`);
      await app.close();
      continue;
    }
    const f = r.failure;
    let same = 0;
    for (let i = 0; i < 5; i++) if ((await verify({ app_url: app.url, seed, case: f.case_token })).failure?.headline === f.headline) same++;
    console.log(`  ${bug}: run ${r.runs_to_catch}, ${f.shrunk_steps.length} steps (from ${f.original_steps}), ${r.num_shrinks} shrink attempts, ${secs(r.wall_ms)}, replays ${same}/5: ${f.headline}`);
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
  for (const r of records) if (r.kind === 'provider') attempts.set(r.delivery_id, (attempts.get(r.delivery_id) ?? new Set()).add(r.signed_at_ms));
  const chain = Math.max(0, ...[...attempts.values()].map((a) => a.size));
  return { waiting_ms, chain };
}

async function slowApp(delay_ms: number, runs: number): Promise<void> {
  const { app } = createIntegratorApp({});
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/webhooks')) setTimeout(() => app(req as never, res as never), delay_ms);
    else app(req as never, res as never);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const walls: number[] = [];
  let waiting_ms = 0;
  let floor_ms = 0;
  let more = 0;
  const r = await verify({
    app_url: url, runs, seed, time_limit_ms: 600_000,
    on_run: (u) => {
      const w = answerWaits(u.records);
      walls.push(u.wall_ms);
      waiting_ms += w.waiting_ms;
      floor_ms += w.chain * delay_ms;
      if (w.waiting_ms > 1.5 * delay_ms) more++;
      process.stderr.write(`  slow app: run ${u.run} ${secs(u.wall_ms)}, answers pending ${secs(w.waiting_ms)}, longest chain of one delivery's attempts ${w.chain}\n`);
    },
  });
  const per_run = r.runs > 0 ? r.wall_ms / r.runs : 0;
  const median = walls.length ? [...walls].sort((a, b) => a - b)[Math.floor(walls.length / 2)] : 0;
  console.log(`correct app answering each webhook ${delay_ms} ms late, seed ${seed}: ${r.failure ? `FAIL at run ${r.runs_to_catch}: ${r.failure.headline}` : `pass`}, ${r.runs} of ${runs} runs in ${secs(r.wall_ms)}${r.interrupted ? ' (10 min limit reached)' : ''}; ${secs(per_run)} per run (median ${secs(median)})`);
  console.log(`  where it went: answers pending ${secs(waiting_ms)} of it (${more} of ${walls.length} runs waited longer than one answer); floor ${secs(floor_ms)}: each run's longest chain of one delivery's attempts (a retry follows its answered failure) × ${delay_ms} ms`);
  server.closeAllConnections();
  server.close();
}

await reference();
if (!values['skip-twins']) await twins();
if (!values['skip-slow']) await slowApp(Number(values['slow-ms']), Number(values['slow-runs']));
process.exit(0);
