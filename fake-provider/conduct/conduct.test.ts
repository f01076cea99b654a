// Client conduct over real HTTP: each finding produced by a deliberately rude client, none for a polite
// client doing the same work, and the GET /_sim/conduct report shape (masked keys, all keys).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../testing/harness.ts';
import { DEFAULT_PROFILE } from '../profile.ts';
import { ARB_ETH, ARB_USDC, indicativeBody } from '../testing/fixtures/rfqs.ts';
import { CONDUCT_REQUESTS_KEPT, conductOf, conductSizes, recordRequest } from './recorder.ts';
import { formatId } from '../engine/ids.ts';

const FIXED = { ...DEFAULT_PROFILE, spread_bps: { min: 20, max: 20 }, solver_latency_ms: { min: 100, max: 100 } };
const RAISED = { reads: 100_000, writes: 100_000, indicative_rfqs: 100_000, firm_rfqs: 100_000 };

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim({ profile: FIXED });
});
afterAll(() => sim.close());

const client = async (rate_limits: Record<string, number> = RAISED) => (await sim.newOrg({ rate_limits })).api_key;
const report = async (key: string) => {
  const r = await sim.control('GET', `/conduct?api_key=${encodeURIComponent(key)}`);
  expect(r.status).toBe(200);
  return r.body.conduct as {
    api_key: string;
    requests: Array<Record<string, unknown>>;
    findings: Array<{ kind: string; api_key_suffix: string; request_ids: string[]; message: string }>;
  };
};
const findings = async (key: string, kind?: string) => (await report(key)).findings.filter((f) => kind === undefined || f.kind === kind);
const fault = async (body: Record<string, unknown>) =>
  expect((await sim.control('POST', '/faults', { target: 'http', ...body })).status).toBe(200);
const wallWait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('client conduct', () => {
  it('retry_after_ignored: a request before a faulted 429’s Retry-After elapsed; none after waiting', async () => {
    const rude = await client();
    await fault({ effect: { http_status: 429 }, match: { path: '/v1/assets' }, times: 1 });
    const first = await sim.api('GET', '/assets', { key: rude });
    expect(first.status).toBe(429);
    const early = await sim.api('GET', '/assets', { key: rude });
    expect(early.status).toBe(200);
    const f = await findings(rude, 'retry_after_ignored');
    expect(f).toEqual([
      expect.objectContaining({
        kind: 'retry_after_ignored',
        api_key_suffix: rude.slice(-4),
        request_ids: [first.body.request_id, early.body.request_id],
      }),
    ]);

    const polite = await client();
    await fault({ effect: { http_status: 429 }, match: { path: '/v1/assets' }, times: 1 });
    expect((await sim.api('GET', '/assets', { key: polite })).status).toBe(429);
    await wallWait(1_050);
    expect((await sim.api('GET', '/assets', { key: polite })).status).toBe(200);
    expect(await findings(polite)).toEqual([]);
  });

  it('retry_after_ignored also from the real rate limiter’s 429', async () => {
    const rude = await client({ reads: 1, writes: 10, indicative_rfqs: 10, firm_rfqs: 10 });
    expect((await sim.api('GET', '/assets', { key: rude })).status).toBe(200);
    const throttled = await sim.api('GET', '/assets', { key: rude });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).not.toBeNull();
    const again = await sim.api('GET', '/assets', { key: rude });
    const f = await findings(rude, 'retry_after_ignored');
    expect(f[0].request_ids).toEqual([throttled.body.request_id, again.body.request_id]);
  });

  it('poll_too_fast: polling an RFQ sooner than poll_after_ms (sim time); none when waiting it out', async () => {
    expect((await sim.control('PUT', '/market/prices', { prices: { [ARB_ETH]: '3200', [ARB_USDC]: '1' } })).status).toBe(200);
    const rude = await client();
    const created = await sim.api('POST', '/rfqs', { key: rude, body: indicativeBody({ wait_ms: 0 }) });
    expect(created.status).toBe(202);
    const rfq_id = created.body.rfq.rfq_id;
    const poll1 = await sim.api('GET', `/rfqs/${rfq_id}`, { key: rude });
    const poll2 = await sim.api('GET', `/rfqs/${rfq_id}`, { key: rude });
    expect(poll2.body.rfq.poll_after_ms).toBeGreaterThan(0);
    expect((await findings(rude, 'poll_too_fast')).map((f) => f.request_ids)).toEqual([
      [created.body.request_id, poll1.body.request_id],
      [poll1.body.request_id, poll2.body.request_id],
    ]);

    const polite = await client();
    const mine = await sim.api('POST', '/rfqs', { key: polite, body: indicativeBody({ wait_ms: 0 }) });
    expect(mine.status).toBe(202);
    await sim.advance(mine.body.rfq.poll_after_ms);
    expect((await sim.api('GET', `/rfqs/${mine.body.rfq.rfq_id}`, { key: polite })).status).toBe(200);
    expect(await findings(polite)).toEqual([]);
  });

  it('poll_too_fast on a realtime clock: waiting poll_after_ms of wall time is never too fast; polling at once is', async () => {
    // Sim time moves in 20 ms ticks there: a client that waited a 3 ms poll_after_ms can show 0 ms of sim time.
    const rt = await startTestSim({ profile: { ...FIXED, solver_latency_ms: { min: 300, max: 300 } }, clock: 'realtime' });
    try {
      expect((await rt.control('PUT', '/market/prices', { prices: { [ARB_ETH]: '3200', [ARB_USDC]: '1' } })).status).toBe(200);
      const key = (await rt.newOrg({ rate_limits: RAISED })).api_key;
      const rtFindings = async (k: string) =>
        ((await rt.control('GET', `/conduct?api_key=${encodeURIComponent(k)}`)).body.conduct.findings as Array<{ kind: string }>).filter(
          (f) => f.kind === 'poll_too_fast',
        );
      for (let round = 0; round < 3; round++) {
        const created = await rt.api('POST', '/rfqs', { key, body: indicativeBody({ wait_ms: 0 }) });
        expect(created.status).toBe(202);
        let rfq = created.body.rfq;
        for (let polls = 0; rfq.status !== 'ready' && polls < 200; polls++) {
          await wallWait(rfq.poll_after_ms);
          rfq = (await rt.api('GET', `/rfqs/${rfq.rfq_id}`, { key })).body.rfq;
        }
        expect(rfq.status).toBe('ready');
      }
      expect(await rtFindings(key)).toEqual([]);

      const rude = (await rt.newOrg({ rate_limits: RAISED })).api_key;
      const created = await rt.api('POST', '/rfqs', { key: rude, body: indicativeBody({ wait_ms: 0 }) });
      expect(created.body.rfq.poll_after_ms).toBeGreaterThan(100);
      await rt.api('GET', `/rfqs/${created.body.rfq.rfq_id}`, { key: rude });
      expect((await rtFindings(rude)).length).toBe(1);
    } finally {
      await rt.close();
    }
  });

  it('idempotency_key_reuse: the 409 names the first use of the key; distinct keys are fine', async () => {
    const rude = await client();
    const a = await sim.api('POST', '/accounts', { key: rude, body: { label: 'a' }, idem: 'reuse-1' });
    const b = await sim.api('POST', '/accounts', { key: rude, body: { label: 'b' }, idem: 'reuse-1' });
    expect(b.status).toBe(409);
    expect(await findings(rude)).toEqual([
      expect.objectContaining({ kind: 'idempotency_key_reuse', request_ids: [a.body.request_id, b.body.request_id] }),
    ]);

    const polite = await client();
    await sim.api('POST', '/accounts', { key: polite, body: { label: 'a' }, idem: 'reuse-2' });
    await sim.api('POST', '/accounts', { key: polite, body: { label: 'a' }, idem: 'reuse-2' });
    await sim.api('POST', '/accounts', { key: polite, body: { label: 'b' }, idem: 'reuse-3' });
    expect(await findings(polite)).toEqual([]);
  });

  it('retry_without_idempotency_key: a lost write retried under a new key (a duplicate account); the same key is fine', async () => {
    const rude = await client();
    await fault({ effect: { lose_response: true }, match: { method: 'POST', path: '/v1/accounts' }, times: 1 });
    const lost = await sim.api('POST', '/accounts', { key: rude, body: { label: 'dup' }, idem: 'rw-1' });
    expect(lost.status).toBe(500);
    const retry = await sim.api('POST', '/accounts', { key: rude, body: { label: 'dup' }, idem: 'rw-2' });
    expect(retry.status).toBe(200);
    expect((await sim.api('GET', '/accounts', { key: rude })).body.accounts).toHaveLength(2);
    expect(await findings(rude)).toEqual([
      expect.objectContaining({ kind: 'retry_without_idempotency_key', request_ids: [lost.body.request_id, retry.body.request_id] }),
    ]);
    expect((await report(rude)).requests.find((r) => r.request_id === lost.body.request_id)).toMatchObject({
      lost: true,
      status: 500,
      idempotency_key: 'rw-1',
    });

    const polite = await client();
    await fault({ effect: { lose_response: true }, match: { method: 'POST', path: '/v1/accounts' }, times: 1 });
    expect((await sim.api('POST', '/accounts', { key: polite, body: { label: 'dup' }, idem: 'rw-3' })).status).toBe(500);
    expect((await sim.api('POST', '/accounts', { key: polite, body: { label: 'dup' }, idem: 'rw-3' })).status).toBe(200);
    expect((await sim.api('GET', '/accounts', { key: polite })).body.accounts).toHaveLength(1);
    expect(await findings(polite)).toEqual([]);
  });

  it('retry_without_idempotency_key after a 503, also when the retry sends no key at all', async () => {
    const rude = await client();
    await fault({ effect: { http_status: 503 }, match: { method: 'POST', path: '/v1/accounts' }, times: 1 });
    const failed = await sim.api('POST', '/accounts', { key: rude, body: { label: 'x' }, idem: 'r503' });
    expect(failed.status).toBe(503);
    const retry = await sim.api('POST', '/accounts', { key: rude, body: { label: 'x' }, idem: '' });
    expect(retry.status).toBe(400);
    expect((await findings(rude, 'retry_without_idempotency_key'))[0].request_ids).toEqual([failed.body.request_id, retry.body.request_id]);
  });

  it('ignored_has_more: a list restarted from the top while the last first page said has_more; following next_cursor is fine', async () => {
    const rude = await client();
    for (const label of ['l1', 'l2', 'l3']) await sim.api('POST', '/accounts', { key: rude, body: { label } });
    const p1 = await sim.api('GET', '/accounts?limit=2', { key: rude });
    expect(p1.body.has_more).toBe(true);
    const again = await sim.api('GET', '/accounts?limit=2', { key: rude });
    const f = await findings(rude);
    expect(f).toEqual([expect.objectContaining({ kind: 'ignored_has_more', request_ids: [p1.body.request_id, again.body.request_id] })]);
    expect(f[0].message).toContain(p1.body.next_cursor);

    const polite = await client();
    for (const label of ['l1', 'l2', 'l3']) await sim.api('POST', '/accounts', { key: polite, body: { label } });
    const q1 = await sim.api('GET', '/accounts?limit=2', { key: polite });
    const q2 = await sim.api('GET', `/accounts?limit=2&cursor=${q1.body.next_cursor}`, { key: polite });
    expect(q2.body.has_more).toBe(false);
    // A fresh pass after finishing the list is a new read, not a loop.
    await sim.api('GET', '/accounts?limit=2', { key: polite });
    // Different filters are a different list.
    await sim.api('GET', '/accounts?limit=2&status=active', { key: polite });
    expect(await findings(polite)).toEqual([]);
  });

  it('GET /_sim/conduct masks keys, lists every key without api_key, and answers empty for an unknown key', async () => {
    const key = await client();
    await sim.api('GET', '/assets', { key });
    const one = await report(key);
    expect(one.api_key).toBe(`…${key.slice(-4)}`);
    expect(one.requests).toEqual([
      expect.objectContaining({
        method: 'GET',
        path: '/assets',
        status: 200,
        idempotency_key: null,
        sim_ms: expect.any(Number),
        wall_ms: expect.any(Number),
      }),
    ]);
    const all = await sim.control('GET', '/conduct');
    expect(all.status).toBe(200);
    expect(Array.isArray(all.body.conduct)).toBe(true);
    expect(all.body.conduct.map((c: { api_key: string }) => c.api_key)).toContain(one.api_key);
    expect(JSON.stringify(all.body)).not.toContain(key);
    expect(await report('sk_nobody_1234')).toEqual({ api_key: '…1234', requests: [], findings: [] });
    // Unauthenticated requests have no key to record.
    await sim.api('GET', '/assets', { key: null });
    expect((await sim.control('GET', '/conduct')).body.conduct).toHaveLength(all.body.conduct.length);
  });

  it('no finding for a 429 without Retry-After, nor for a new key after a 429 (only 5xx and lost replies count)', async () => {
    const key = await client();
    await fault({ effect: { http_status: 429, retry_after: false }, match: { method: 'POST', path: '/v1/accounts' }, times: 1 });
    expect((await sim.api('POST', '/accounts', { key, body: { label: 't' }, idem: 'n429-1' })).status).toBe(429);
    expect((await sim.api('POST', '/accounts', { key, body: { label: 't' }, idem: 'n429-2' })).status).toBe(200);
    expect(await findings(key)).toEqual([]);
  });

  it('a poll answer without poll_after_ms (terminal or ready) ends the poll clock', async () => {
    const key = await client();
    const created = await sim.api('POST', '/rfqs', { key, body: indicativeBody({ wait_ms: 0 }) });
    expect(created.status).toBe(202);
    await sim.advance(created.body.rfq.poll_after_ms);
    const ready = await sim.api('GET', `/rfqs/${created.body.rfq.rfq_id}`, { key });
    expect(ready.body.rfq.poll_after_ms).toBeUndefined();
    await sim.api('GET', `/rfqs/${created.body.rfq.rfq_id}`, { key });
    expect(await findings(key)).toEqual([]);
  });

  it(`keeps the last ${CONDUCT_REQUESTS_KEPT} requests per key, in order, as copies`, () => {
    const world = sim.running.runtime.world;
    // Ids as the world draws them (kept as their parts) alternate with others (kept as text): both read back exactly.
    const idOf = (i: number): string => (i % 2 === 0 ? formatId('req', (i * 7_919) % 2 ** 48, i) : `req_${i}`);
    const record = (i: number): void =>
      recordRequest(world, 'sk_cap_test', {
        request_id: idOf(i),
        method: 'GET',
        path: '/assets',
        route_path: '/assets',
        query: {},
        body: undefined,
        idempotency_key: null,
        status: 200,
        reply_body: {},
        headers: undefined,
        error_code: null,
        lost: false,
      });
    for (let i = 0; i < CONDUCT_REQUESTS_KEPT + 5; i++) record(i);
    const r = conductOf(world, 'sk_cap_test');
    expect(r.requests).toHaveLength(CONDUCT_REQUESTS_KEPT);
    expect(r.requests[0].request_id).toBe('req_5');
    expect(r.requests[1].request_id).toBe(idOf(6));
    expect(r.requests[1].request_id).toMatch(/^req_[0-9a-f]{12}0006$/);
    // Past the batch trim and round the ring of reused records more than once: still the newest, oldest first.
    for (let i = CONDUCT_REQUESTS_KEPT + 5; i < 5 * CONDUCT_REQUESTS_KEPT + 7; i++) record(i);
    const later = conductOf(world, 'sk_cap_test').requests.map((q) => q.request_id);
    expect(later).toEqual(Array.from({ length: CONDUCT_REQUESTS_KEPT }, (_, k) => idOf(4 * CONDUCT_REQUESTS_KEPT + 7 + k)));
    expect(conductSizes(world, 'sk_cap_test').requests).toBe(CONDUCT_REQUESTS_KEPT + 7);
    // A report already taken is not rewritten by the requests after it.
    expect(r.requests[0].request_id).toBe('req_5');
  });
});
