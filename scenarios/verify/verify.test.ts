// `verify` against real apps on real ports: the reference integrator passes its first 10 runs, reaching every
// coverage item (the 100-run figure is `npm run bench:verify`), and so do the unusual but correct consumers
// (feed-only, nudge, deferred 202); a batch catches the app up with one sync; three twins are caught at the same run at once as one after another; a failure
// only in company is reported as such, or passed over for a later one that fails alone; delivery outcomes are
// judged (an app that answers 500 to every delivery fails for that reason, although it catches up from the feed);
// a slow handler ends its run with the event named, inside the run, and `time_limit_ms` interrupts a run in
// progress; the process-level guarantees (exit status, replay command) are in cli/verify.test.ts, the twins in
// twins-*.test.ts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import express from 'express';
import {
  createIntegratorApp,
  freshTimestamp,
  startIntegrator,
  validSignature,
  type RunningIntegrator,
} from '../examples/reference-integrator/app.ts';
import type { Bug } from '../examples/reference-integrator/bugs.ts';
import { generateScenario } from './scenario.ts';
import { COVERAGE_ITEMS, plannedItems } from './coverage.ts';
import { plannedRun } from './twins.ts';
import { planBatches, runsAlone } from './batch.ts';
import { DEFAULT_CONCURRENCY, verify } from './verify.ts';

let app: RunningIntegrator | null = null;
let server: Server | null = null;

afterEach(async () => {
  await app?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  app = server = null;
});

/** The reference integrator behind a front that decides how its webhook endpoint answers (signatures are checked first). */
async function fronted(webhook: 'answer-500' | { hang: true } | { delay_ms: number }): Promise<string> {
  const { app: inner } = createIntegratorApp({});
  const outer = express();
  const secrets: string[] = []; // every secret configured: this front keeps old ones forever (a grace without end)
  outer.post('/probe/configure', express.json(), (req, _res, next) => {
    secrets.push(String(req.body?.webhook_secret ?? ''));
    next();
  });
  outer.post('/webhooks', (req, res, next) => {
    if (typeof webhook === 'object' && 'delay_ms' in webhook) return void setTimeout(next, webhook.delay_ms);
    if (typeof webhook === 'object') return; // hangs
    express.raw({ type: () => true })(req, res, () => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const timestamp = String(req.headers['svc-timestamp'] ?? '');
      const signed = secrets.some((secret) => validSignature(secret, timestamp, raw, String(req.headers['svc-signature'] ?? '')));
      if (!signed || !freshTimestamp(timestamp, Date.now())) return void res.status(401).end();
      res.status(500).end();
    });
  });
  outer.use(inner);
  server = createServer(outer);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

describe('swapsim verify', () => {
  it('passes the reference integrator, with a clean conduct record', async () => {
    app = await startIntegrator();
    const r = await verify({ app_url: app.url, runs: 10, seed: 1 });
    expect(r.failure, JSON.stringify(r.failure, null, 2)).toBeUndefined();
    expect(r).toMatchObject({ runs: 10, passed: 10, failed: 0, sim_seed: 'verify-1', interrupted: false });
    expect(r.cases.every((c) => c.ok && c.steps.length > 0)).toBe(true);
    expect(r.conduct).toEqual([]);
    // Seed 1 plans its app-wide items (API faults and the adversarial profile; rotation and restart) into runs 4
    // and 8: those go alone after the batch, the eight others at once behind the hub.
    expect(r.concurrency).toBe(DEFAULT_CONCURRENCY);
    expect(r.cases.map((c) => c.batch)).toEqual([1, 1, 1, 2, 1, 1, 1, 3, 1, 1]);
    // Every spec item was reached within the first 10 runs, as observed (coverage.test.ts: the plan repeats per 10).
    for (const row of r.coverage) expect(row.runs, row.item).not.toEqual([]);
    expect(r.coverage.map((row) => row.item)).toEqual(COVERAGE_ITEMS.map((i) => i.id));
  }, 120_000);

  it('groups runs in order up to the concurrency, and runs app-wide scenarios alone after the batch that passed them over', () => {
    const plan = Array.from({ length: 12 }, (_, i) => ({ run: i + 1, scenario: generateScenario(1, i + 1) }));
    const sizes = (c: number) => planBatches(plan, c).map((b) => b.map((p) => p.run));
    expect(sizes(1)).toEqual(plan.map((p) => [p.run]));
    expect(sizes(4)).toEqual([[1, 2, 3, 5], [4], [6, 7, 9, 10], [8], [11, 12]]);
    expect(sizes(8)).toEqual([[1, 2, 3, 5, 6, 7, 9, 10], [4], [8], [11, 12]]);
    for (const b of planBatches(plan, 8)) if (b.length > 1) expect(b.some((p) => runsAlone(p.scenario))).toBe(false);
    expect(plan.filter((p) => runsAlone(p.scenario)).map((p) => p.run)).toEqual([4, 8]);
    expect(plan[3].scenario.theme).toMatch(/\bapi\.429\b/);
    expect(plan[7].scenario.theme).toMatch(/\bapp\.rotation app\.restart\b/);
  });

  // Twins the plan catches inside seed 1's first batch (runs 1–3 at once): a deposit's timing, a settlement, a forgery.
  it('catches the app up once for a batch: one POST /probe/sync after its runs, not one per run', async () => {
    // Seed 22's runs 1-3 share a batch and have no mid-run probe (which would sync at a quiet point).
    for (const run of [1, 2, 3]) {
      const s = generateScenario(22, run);
      expect(runsAlone(s) || s.steps.some((st) => st.kind === 'probe'), `run ${run}`).toBe(false);
    }
    const { app: inner } = createIntegratorApp({});
    const outer = express();
    let syncs = 0;
    outer.post('/probe/sync', (_req, _res, next) => {
      syncs++;
      next();
    });
    outer.use(inner);
    server = createServer(outer);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
    const url = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
    const r = await verify({ app_url: url, runs: 3, seed: 22, concurrency: 8 });
    expect(r.failure).toBeUndefined();
    expect(r.passed).toBe(3);
    expect(syncs).toBe(1);
  }, 60_000);

  it.each(['pending-counted-available', 'filled-as-settled', 'no-signature-check'] as const)(
    'catches %s at the same run, for the same reason, with runs at once as one after another',
    async (bug) => {
      expect(plannedRun(bug, 1)).toBeLessThanOrEqual(3);
      app = await startIntegrator({ bugs: [bug] });
      // No shrinking (a budget of 0): the failure as found is compared. Any wall-time budget makes how far pinning
      // and shrinking get a race, and the headline names the entity of the case they got to (with 1 ms, CI once
      // pinned the background on one side and not on the other).
      const one = await verify({ app_url: app.url, runs: 3, seed: 1, concurrency: 1, shrink_time_limit_ms: 0 });
      const many = await verify({ app_url: app.url, runs: 3, seed: 1, concurrency: 8, shrink_time_limit_ms: 0 });
      expect(one.failure).toBeDefined();
      expect(many.runs_to_catch).toBe(one.runs_to_catch);
      expect(many.failure?.headline).toBe(one.failure?.headline);
      expect(many.failure?.alone).toBeNull();
      expect(many.failure?.replay_command).toMatch(/ --case \S+$/);
    },
    90_000,
  );

  /** An app that keeps the state of the 2 accounts it heard of last: right for any one run alone, wrong for a batch. */
  async function recentTwo(bugs: Bug[] = []): Promise<string> {
    const { app: inner } = createIntegratorApp({ bugs });
    const outer = express();
    const recent: string[] = [];
    // express.raw reads the body once: the inner app's own raw parser finds it read and keeps the bytes.
    outer.post('/webhooks', express.raw({ type: () => true }), (req, _res, next) => {
      const account_id = String(JSON.parse(Buffer.from(req.body as Buffer).toString('utf8')).account_id ?? '');
      recent.splice(0, recent.length, ...[account_id, ...recent.filter((a) => a !== account_id)].slice(0, 2));
      next();
    });
    outer.get('/probe/state', (req, res, next) =>
      recent.includes(String(req.query.account_id)) ? next() : res.json({ balances: [], trades: [], zaps: [], cancels: [] }),
    );
    outer.use(inner);
    server = createServer(outer);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
    return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
  }

  it('says so when a run fails only alongside other runs, and prints the command that runs its batch again', async () => {
    const url = await recentTwo();
    // Seed 1 batches runs 1–3 (its plan puts run 4 alone).
    const r = await verify({ app_url: url, runs: 3, seed: 1, concurrency: 7 });
    expect(r.failure?.alone).toMatch(
      /^run \d failed only alongside other runs \(batch 1: runs 1–3 at once behind the hub\); run alone, (run 1 passes|runs 1–\d pass)$/,
    );
    expect(r.failure?.replay_command).toBe(`npx swapsim verify --app ${url} --seed 1 --runs 3 --concurrency 7`);
    expect(r.failure?.rerun_command).toBe(`npx swapsim verify --app ${url} --seed 1 --run ${r.failure?.run}`);
    expect(r.num_shrinks).toBe(0);
  }, 90_000);

  it('goes on past a failure only in company, and reports a later one that fails alone (with a note)', async () => {
    // The same app with a twin's bug that seed 1's run 4 (alone, API faults) catches: that failure replays, so it is the report.
    const url = await recentTwo(['retries-429-at-once']);
    const r = await verify({ app_url: url, runs: 4, seed: 1, concurrency: 7, shrink_time_limit_ms: 0 });
    expect(r.failure?.run).toBe(4);
    expect(r.failure?.alone).toBeNull();
    expect(r.failure?.headline).toMatch(/^client conduct: retry_after_ignored: /);
    expect(r.failure?.replay_command).toMatch(/ --case \S+$/);
    expect(r.failure?.more.join('\n')).toMatch(
      /^note: earlier, run \d failed only alongside other runs \(batch 1: runs 1–3 at once behind the hub\)/m,
    );
  }, 90_000);

  it('reports a lower alone run that its batch passed over before the batch failure above it', async () => {
    // Seed 1: runs 1–3, 5–7 and 9 at once, then runs 4 and 8 alone. no-timestamp-check fails run 9 in the batch;
    // retries-429-at-once fails run 4 (API faults): the run verify with --concurrency 1 reports. Run 8 is not run.
    app = await startIntegrator({ bugs: ['no-timestamp-check', 'retries-429-at-once'] });
    const r = await verify({ app_url: app.url, runs: 9, seed: 1, shrink_time_limit_ms: 0 });
    expect(r.failure?.run).toBe(4);
    expect(r.failure?.headline).toMatch(/^client conduct: retry_after_ignored: /);
    expect(r.failure?.more.join('\n')).toMatch(
      /^note: this run goes alone after the batch of runs 1–3, 5–7, 9 at once, and run 9 failed with: /m,
    );
    expect(r.cases.map((c) => [c.run, c.ok, c.batch])).toEqual([
      [1, true, 1],
      [2, true, 1],
      [3, true, 1],
      [4, false, 2],
      [5, true, 1],
      [6, true, 1],
      [7, true, 1],
      [9, false, 1],
    ]);
  }, 180_000);

  it('fails an app that answers 500 to every signed delivery, even though it catches up from the feed', async () => {
    const url = await fronted('answer-500');
    const r = await verify({ app_url: url, runs: 1, seed: 1, shrink_time_limit_ms: 0 });
    expect(r.failure?.headline).toMatch(/^a correctly signed delivery of \S+ \(\S+\) was answered 500, and the delivery ended failed/);
    expect(r.failure?.kind).toBe('delivery_refused');
    expect(r.failure?.delivery_log.join('\n')).toMatch(/HTTP 500.* → exhausted/);
  }, 180_000);

  // Runs 1–3 at once behind the hub, then run 4 alone with every API fault on the app's key (seed 1's plan);
  // `npm run bench:verify` runs each style 100 runs.
  it.each(['feed-only', 'nudge', 'deferred'] as const)(
    'passes the correct but unusual %s consumer',
    async (style) => {
      expect(plannedItems(1, 4)).toContain('api.429');
      app = await startIntegrator({ style });
      const r = await verify({ app_url: app.url, runs: 4, seed: 1 });
      expect(r.failure, r.failure?.headline).toBeUndefined();
      expect(r).toMatchObject({ passed: 4, conduct: [] });
    },
    180_000,
  );

  it('ends a run whose handler never answers, naming the event, inside the run', async () => {
    // Without the cut the first delivery alone would keep the provider retrying for ~100 s of wall time: the
    // test's own timeout is the bound, the assertions say why the run ended.
    const url = await fronted({ hang: true });
    const r = await verify({ app_url: url, runs: 5, seed: 1, latency_limit_ms: 1_000, shrink_time_limit_ms: 1 });
    // The seconds are the handler's busy time when the relay looked: at least the limit, more on a loaded machine.
    // Usually the first delivery (account.created); which one passes the limit first is the machine's timing, and
    // the headline names whichever it is (seen: deposit.pending, once, on a quiet machine).
    expect(r.failure?.headline).toMatch(/^handler exceeded [1-9]\d* s on event evt_\S+ \([a-z_.]+\) without answering/);
    expect(r.failure?.kind).toBe('slow_handler');
    // Runs 1–3 and 5 ran at once (seed 1 plans run 4 alone, after them), each ended at its own first delivery; run 1
    // is the one reported (and replayed alone), and run 4, which would go after the failing batch, is not run.
    expect(r.runs_to_catch).toBe(1);
    expect(r.cases.map((c) => [c.run, c.ok, c.batch])).toEqual([1, 2, 3, 5].map((n) => [n, false, 1]));
    expect(r.failure?.alone).toBeNull();
  }, 180_000);

  it('ends a run at its wall-time limit with the delivery in flight named', async () => {
    const url = await fronted({ hang: true });
    // Two runs at once: each is bounded on its own, and run 1 (re-run alone to be explained) is the one reported.
    const r = await verify({ app_url: url, runs: 2, seed: 1, run_time_limit_ms: 1_500, latency_limit_ms: 9_000, shrink_time_limit_ms: 1 });
    // Which delivery is in flight when the limit passes depends on the machine's speed (on a loaded one the first
    // attempt may already have timed out): the headline names whichever it is.
    expect(r.failure?.headline).toMatch(
      /^handler exceeded \d+ s on event evt_\S+ \([a-z_.]+\) when the run's wall-time limit \(1.5 s\) was reached/,
    );
    expect(r.cases.map((c) => [c.run, c.ok, c.batch])).toEqual([
      [1, false, 1],
      [2, false, 1],
    ]);
  }, 180_000);

  it('stops inside a run when the time limit passes: interrupted, not failed', async () => {
    const url = await fronted({ delay_ms: 3_000 });
    const r = await verify({ app_url: url, runs: 100, seed: 1, time_limit_ms: 1_500 });
    expect(r.interrupted).toBe(true);
    expect(r.failure).toBeUndefined();
    // A run takes at least one 3 s burst, so none fits in 1.5 s: the first was ended inside, not after it.
    expect(r.runs).toBe(0);
  }, 180_000);
});
