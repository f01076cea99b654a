// lifecycle-mix and proxy-conduct run under the k6 double (load/k6-double, a test fixture) against
// an in-process swapsim: a whole journey completes and swapsim's conduct recorder finds nothing to
// object to; under injected 5xx and lost replies the retries reuse their Idempotency-Key and nothing
// is written twice; a proxy that mints its own keys and drops Retry-After fails proxy-conduct.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSim, type TestSim } from '../../fake-provider/testing/harness.ts';
import { runUnderDouble, type DoubleRun } from '../k6-double/runner.ts';

const script = (name: string) => join(import.meta.dirname, `${name}.ts`);
const threshold = (run: DoubleRun, key: string) => {
  const t = run.thresholds.filter((x) => x.key === key);
  if (t.length === 0) throw new Error(`no threshold on ${key}`);
  return t;
};
const total = (run: DoubleRun, metric: string, tags: Record<string, string> = {}) =>
  run.samples
    .filter((s) => s.metric === metric && Object.entries(tags).every(([k, v]) => s.tags[k] === v))
    .reduce((a, s) => a + s.value, 0);
const requests = (run: DoubleRun, name: string, method?: string) =>
  run.samples.filter((s) => s.metric === 'http_reqs' && s.tags.name === name && (method === undefined || s.tags.method === method));

let sim: TestSim;
let dir: string;
beforeAll(async () => {
  sim = await startTestSim();
  dir = mkdtempSync(join(tmpdir(), 'k6-traffic-'));
});
afterAll(() => sim.close());

const oneJourney = { JOURNEYS_PER_S: '1', DURATION: '1s', SUMMARY_DIR: 'out' };

describe('lifecycle-mix against swapsim with its control plane', () => {
  test('a journey runs every step to its end, and the client conduct is clean', async () => {
    const run = await runUnderDouble(script('lifecycle-mix'), {
      cwd: dir,
      env: { BASE_URL: sim.base_url, CONTROL_URL: sim.control_url, ...oneJourney },
    });
    expect(run.errors).toEqual([]);
    expect(run.thresholds.filter((t) => !t.ok)).toEqual([]);
    expect(run.passed).toBe(true);
    expect(total(run, 'journey_ok')).toBe(1);
    expect(total(run, 'journey_step_skipped')).toBe(0);
    for (const name of [
      '/rfqs firm',
      '/quotes/{id}/accept',
      '/trades/{id}',
      '/zaps',
      '/zaps/{id}',
      '/cancels',
      '/cancels/{id}',
      '/events',
    ]) {
      expect(requests(run, name).length, name).toBeGreaterThan(0);
    }
    // Polls honoured poll_after_ms (sim time) and nothing was retried without cause.
    expect(threshold(run, 'conduct_findings')[0]).toMatchObject({ ok: true, evaluated: true });
    expect(total(run, 'conduct_findings')).toBe(0);
  });

  test('5xx, lost replies and 429s: IDEM writes retried with their key, the destination reconciled, nothing written twice', async () => {
    const faults = [
      { target: 'http', effect: { http_status: 503 }, match: { method: 'POST', path: '/v1/accounts' }, times: 1 },
      // The first POST under an account is the destination (not IDEM): the reply is lost after it took effect.
      { target: 'http', effect: { lose_response: true }, match: { method: 'POST', path: '/v1/accounts/*' }, times: 1 },
      { target: 'http', effect: { lose_response: true, mode: 'reset' }, match: { method: 'POST', path: '/v1/quotes/*' }, times: 1 },
      { target: 'http', effect: { http_status: 429 }, match: { method: 'POST', path: '/v1/zaps' }, times: 1 },
    ];
    const run = await runUnderDouble(script('lifecycle-mix'), {
      cwd: dir,
      env: { BASE_URL: sim.base_url, CONTROL_URL: sim.control_url, FAULTS: JSON.stringify(faults), ...oneJourney, SUMMARY_DIR: 'faults' },
    });
    expect(run.errors).toEqual([]);
    expect(total(run, 'client_retries', { cause: '5xx', name: '/accounts' })).toBe(1);
    expect(total(run, 'client_reconciled', { name: '/accounts/{id}/destinations' })).toBe(1);
    expect(requests(run, '/accounts/{id}/destinations', 'POST')).toHaveLength(1);
    expect(total(run, 'client_retries', { cause: 'lost', name: '/quotes/{id}/accept' })).toBe(1);
    expect(requests(run, '/quotes/{id}/accept', 'POST')).toHaveLength(2);
    expect(total(run, 'client_retries', { cause: '429', name: '/zaps' })).toBe(1);
    // The 429 said Retry-After: 1; the retry waited that long (wall time).
    expect(run.samples.find((s) => s.metric === 'client_retry_wait' && s.tags.cause === '429')?.value).toBe(1000);
    expect(requests(run, '/accounts', 'POST')).toHaveLength(2);
    expect(total(run, 'duplicate_writes')).toBe(0);
    expect(total(run, 'journey_ok')).toBe(1);
    expect(total(run, 'conduct_findings')).toBe(0);
    expect(run.passed).toBe(true);
    // Teardown removed the run's fault rules.
    expect((await sim.control('GET', '/faults')).body.faults).toEqual([]);
  });
});

/** A staging proxy that misbehaves: mints its own Idempotency-Key per request and drops Retry-After. */
function badProxy(target: string): Server {
  const upstream = new URL(target);
  return createServer((req, res) => {
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: upstream.host };
    if (headers['idempotency-key'] !== undefined) headers['idempotency-key'] = `proxy-${Math.random()}`;
    const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (up) => {
      const h = { ...up.headers };
      delete h['retry-after'];
      res.writeHead(up.statusCode ?? 502, h);
      up.pipe(res);
    });
    req.pipe(out);
  });
}

describe('proxy-conduct', () => {
  // No control plane means nobody advances a virtual clock: these runs use a realtime swapsim.
  let rt: TestSim;
  beforeAll(async () => {
    rt = await startTestSim({ clock: 'realtime' });
  });
  afterAll(() => rt.close());
  const proxyEnv = (base: string, keys: string[]) => ({
    BASE_URL: base,
    API_KEYS: keys.join(','),
    READS_LIMIT: '4',
    BURST_DURATION: '2s',
    REPLAYS_PER_S: '1',
    ...oneJourney,
  });

  test('straight to a realtime swapsim (no control plane): the mix skips the /_sim steps, 429s arrive intact, replays stay one write', async () => {
    const burstKey = (await rt.newOrg({ rate_limits: { reads: 4 } })).api_key;
    const run = await runUnderDouble(script('proxy-conduct'), {
      cwd: dir,
      env: { ...proxyEnv(rt.base_url, [rt.api_key, burstKey]), SUMMARY_DIR: 'direct' },
    });
    expect(run.errors).toEqual([]);
    expect(run.thresholds.filter((t) => !t.ok)).toEqual([]);
    expect(total(run, 'journey_step_skipped', { step: 'deposit' })).toBe(1);
    expect(total(run, 'journey_ok')).toBe(1);
    expect(total(run, 'rl_rejected', { scenario: 'burst' })).toBeGreaterThan(0);
    expect(total(run, 'idempotency_replay_mismatch')).toBe(0);
    expect(run.passed).toBe(true);
  });

  test('through a proxy that mints its own Idempotency-Keys and drops Retry-After: the run fails on both', async () => {
    const burstKey = (await rt.newOrg({ rate_limits: { reads: 4 } })).api_key;
    const proxy = badProxy(rt.base_url);
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;
      const run = await runUnderDouble(script('proxy-conduct'), {
        cwd: dir,
        env: { ...proxyEnv(base, [rt.api_key, burstKey]), SUMMARY_DIR: 'bad-proxy' },
      });
      expect(run.passed).toBe(false);
      expect(threshold(run, 'duplicate_writes')[0]).toMatchObject({ ok: false, evaluated: true });
      expect(threshold(run, 'idempotency_replay_mismatch')[0]).toMatchObject({ ok: false });
      expect(threshold(run, 'rl_429_missing_retry_after')[0]).toMatchObject({ ok: false });
      // The 429s themselves still arrive with their envelope.
      expect(threshold(run, 'rl_429_bad_envelope')[0]).toMatchObject({ ok: true, evaluated: true });
    } finally {
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });
});
