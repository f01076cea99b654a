// `verify` against real apps on real ports: the reference integrator passes (the 100-run figure is `npm run
// bench:verify`); delivery outcomes are judged (an app that answers 500 to every delivery and catches up from
// the feed fails for that reason, a feed-only app that answers 200 passes); a slow handler ends its run with
// the event named, inside the run, and `time_limit_ms` interrupts a run in progress; the process-level
// guarantees (exit status, replay command) are in cli/verify.test.ts, the twins in twins-*.test.ts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import express from 'express';
import { createIntegratorApp, startIntegrator, validSignature, type RunningIntegrator } from '../examples/reference-integrator/app.ts';
import { describeScenario, generateScenario, THEME_NAMES } from './scenario.ts';
import { verify } from './verify.ts';

let app: RunningIntegrator | null = null;
let server: Server | null = null;

afterEach(async () => {
  await app?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  app = server = null;
});

/** The reference integrator behind a front that decides how its webhook endpoint answers (signatures are checked first). */
async function fronted(webhook: 'answer-500' | 'answer-200-only' | { hang: true } | { delay_ms: number }): Promise<string> {
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
      const signed = secrets.some((secret) => validSignature(secret, String(req.headers['svc-timestamp'] ?? ''), raw, String(req.headers['svc-signature'] ?? '')));
      if (!signed) return void res.status(401).end();
      res.status(webhook === 'answer-500' ? 500 : 200).end();
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
    const r = await verify({ app_url: app.url, runs: 20, seed: 1 });
    expect(r.failure, JSON.stringify(r.failure, null, 2)).toBeUndefined();
    expect(r).toMatchObject({ runs: 20, passed: 20, failed: 0, sim_seed: 'verify-1', interrupted: false });
    expect(r.cases.every((c) => c.ok && c.steps.length > 0)).toBe(true);
    expect(r.conduct).toEqual([]);
  }, 120_000);

  it('reaches every theme within the first 10 runs, whatever the seed, and draws the same runs for the same seed', () => {
    for (const seed of [1, 2, 99]) {
      expect(Array.from({ length: 10 }, (_, i) => generateScenario(seed, i + 1).theme).sort()).toEqual([...THEME_NAMES].sort());
    }
    expect(describeScenario(generateScenario(5, 3))).toEqual(describeScenario(generateScenario(5, 3)));
  });

  it('fails an app that answers 500 to every signed delivery, even though it catches up from the feed', async () => {
    const url = await fronted('answer-500');
    const r = await verify({ app_url: url, runs: 3, seed: 1, shrink_time_limit_ms: 10_000 });
    expect(r.failure?.headline).toMatch(/^a correctly signed delivery of \S+ \(\S+\) was answered 500, and the delivery ended failed/);
    expect(r.failure?.kind).toBe('delivery_refused');
    expect(r.failure?.delivery_log.join('\n')).toMatch(/HTTP 500.* → exhausted/);
  }, 60_000);

  it('passes a feed-only app that answers 200 and reads GET /events on /probe/sync', async () => {
    const url = await fronted('answer-200-only');
    const r = await verify({ app_url: url, runs: 10, seed: 1 });
    expect(r.failure, r.failure?.headline).toBeUndefined();
  }, 60_000);

  it('ends a run whose handler never answers, naming the event, inside the run', async () => {
    // Without the cut the first delivery alone would keep the provider retrying for ~100 s of wall time: the
    // test's own timeout is the bound, the assertions say why the run ended.
    const url = await fronted({ hang: true });
    const r = await verify({ app_url: url, runs: 5, seed: 1, latency_limit_ms: 1_000, shrink_time_limit_ms: 1 });
    expect(r.failure?.headline).toMatch(/^handler exceeded 1 s on event evt_\S+ \(account\.created\) without answering/);
    expect(r.failure?.kind).toBe('slow_handler');
    expect(r.runs).toBe(1);
  }, 60_000);

  it('ends a run at its wall-time limit with the delivery in flight named', async () => {
    const url = await fronted({ hang: true });
    const r = await verify({ app_url: url, runs: 1, seed: 1, run_time_limit_ms: 1_500, latency_limit_ms: 9_000, shrink_time_limit_ms: 1 });
    expect(r.failure?.headline).toMatch(/^handler exceeded 1 s on event evt_\S+ \(account\.created\) when the run's wall-time limit \(1.5 s\) was reached/);
  }, 60_000);

  it('stops inside a run when the time limit passes: interrupted, not failed', async () => {
    const url = await fronted({ delay_ms: 3_000 });
    const r = await verify({ app_url: url, runs: 100, seed: 1, time_limit_ms: 1_500 });
    expect(r.interrupted).toBe(true);
    expect(r.failure).toBeUndefined();
    // A run takes at least one 3 s burst, so none fits in 1.5 s: the first was ended inside, not after it.
    expect(r.runs).toBe(0);
  }, 60_000);
});
