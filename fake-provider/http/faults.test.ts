// HTTP fault rules on /v1 over real HTTP: http_status answers without running the handler, lose_response
// runs it and loses the reply (500 or a reset), and a retry with the same Idempotency-Key gets the real reply;
// delay_ms holds a request until the sim clock reaches it (advance, settle, the realtime driver; reset drops it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../testing/harness.ts';

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim();
});
afterAll(() => sim.close());

const addFault = async (body: Record<string, unknown>) => {
  const r = await sim.control('POST', '/faults', { target: 'http', ...body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.fault.fault_id as string;
};
const accountsLabelled = async (label: string) =>
  ((await sim.api('GET', '/accounts?limit=100')).body.accounts as Array<{ label: string; account_id: string }>).filter(
    (a) => a.label === label,
  );

describe('http faults', () => {
  it('http_status 503 answers service_unavailable without running the handler; the rule counts down', async () => {
    await addFault({ effect: { http_status: 503 }, match: { method: 'post', path: '/v1/accounts' }, times: 1 });
    const r = await sim.api('POST', '/accounts', { body: { label: 'f503' } });
    expect(r.status).toBe(503);
    expect(r.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable', request_id: r.body.request_id });
    expect(await accountsLabelled('f503')).toHaveLength(0);
    // The failed write was not stored under its key: the same key now runs for real.
    const ok = await sim.api('POST', '/accounts', { body: { label: 'f503' } });
    expect(ok.status).toBe(200);
    expect(await accountsLabelled('f503')).toHaveLength(1);
    const fired = (await sim.control('GET', '/faults')).body.fired.filter((f: { target: string }) => f.target === 'http');
    expect(fired.length).toBeGreaterThanOrEqual(1);
  });

  it('http_status 500 answers upstream_error; 429 answers rate_limited with Retry-After 1, or without it when retry_after is false', async () => {
    await addFault({ effect: { http_status: 500 }, match: { path: '/v1/assets*' }, times: 1 });
    const e500 = await sim.api('GET', '/assets');
    expect(e500.status).toBe(500);
    expect(e500.body.error.code).toBe('upstream_error');
    await addFault({ effect: { http_status: 429 }, match: { path: '/v1/assets*' }, times: 1 });
    const r = await sim.api('GET', '/assets');
    expect(r.status).toBe(429);
    expect(r.body.error.code).toBe('rate_limited');
    expect(r.headers.get('retry-after')).toBe('1');
    await addFault({ effect: { http_status: 429, retry_after: false }, match: { path: '/v1/assets*' }, times: 1 });
    const bare = await sim.api('GET', '/assets');
    expect(bare.status).toBe(429);
    expect(bare.headers.get('retry-after')).toBeNull();
    expect((await sim.api('GET', '/assets')).status).toBe(200);
  });

  it('match narrows by method, path (exact or trailing *) and account_id: other requests pass', async () => {
    const acc = (await sim.api('POST', '/accounts', { body: { label: 'narrow' } })).body.account.account_id as string;
    const other = (await sim.api('POST', '/accounts', { body: { label: 'narrow2' } })).body.account.account_id as string;
    const id = await addFault({ effect: { http_status: 503 }, match: { method: 'GET', path: '/v1/accounts/*', account_id: acc } });
    expect((await sim.api('GET', `/accounts/${other}`)).status).toBe(200);
    expect((await sim.api('PATCH', `/accounts/${acc}`, { body: { label: 'x' } })).status).not.toBe(503);
    expect((await sim.api('GET', '/accounts')).status).toBe(200);
    expect((await sim.api('GET', `/accounts/${acc}`)).status).toBe(503);
    expect((await sim.control('DELETE', `/faults/${id}`)).status).toBe(200);
    expect((await sim.api('GET', `/accounts/${acc}`)).status).toBe(200);
  });

  it('lose_response: the account is created, the client sees a 500; the retry with the same key gets the real reply', async () => {
    await addFault({ effect: { lose_response: true }, match: { method: 'POST', path: '/v1/accounts' }, times: 1 });
    const lost = await sim.api('POST', '/accounts', { body: { label: 'lost-1' }, idem: 'lost-key-1' });
    expect(lost.status).toBe(500);
    expect(lost.body.error.code).toBe('upstream_error');
    const created = await accountsLabelled('lost-1');
    expect(created).toHaveLength(1);
    const retry = await sim.api('POST', '/accounts', { body: { label: 'lost-1' }, idem: 'lost-key-1' });
    expect(retry.status).toBe(200);
    expect(retry.body.account.account_id).toBe(created[0].account_id);
    expect(await accountsLabelled('lost-1')).toHaveLength(1);
  });

  it('lose_response mode reset: the connection is destroyed after the write; the keyed retry gets the same account', async () => {
    await addFault({ effect: { lose_response: true, mode: 'reset' }, match: { method: 'POST', path: '/v1/accounts' }, times: 1 });
    await expect(sim.api('POST', '/accounts', { body: { label: 'lost-2' }, idem: 'lost-key-2' })).rejects.toThrow();
    const created = await accountsLabelled('lost-2');
    expect(created).toHaveLength(1);
    const retry = await sim.api('POST', '/accounts', { body: { label: 'lost-2' }, idem: 'lost-key-2' });
    expect(retry.status).toBe(200);
    expect(retry.body.account.account_id).toBe(created[0].account_id);
    expect(await accountsLabelled('lost-2')).toHaveLength(1);
  });

  it('refuses effects the http target does not apply (501) and a bad lose_response mode (400)', async () => {
    const reorg = await sim.control('POST', '/faults', { target: 'http', effect: { reorg: 'out' } });
    expect(reorg.status).toBe(501);
    expect(reorg.body.error.code).toBe('not_implemented');
    const bad = await sim.control('POST', '/faults', { target: 'http', effect: { lose_response: true, mode: 'explode' } });
    expect(bad.status).toBe(400);
  });

  it('does not touch the control plane or unauthenticated requests', async () => {
    await addFault({ effect: { http_status: 503 } });
    expect((await sim.api('GET', '/assets', { key: null })).status).toBe(401);
    expect((await sim.control('GET', '/clock')).status).toBe(200);
    expect((await sim.api('GET', '/assets')).status).toBe(503);
    await sim.control('POST', '/reset');
  });
});

/** A request kept in flight: `answered` flips when its reply arrives (the test never waits on wall time). */
function inFlight<T>(p: Promise<T>) {
  const state = { answered: false, reply: p };
  void p.then(
    () => (state.answered = true),
    () => (state.answered = true),
  );
  return state;
}
const nowMs = async (s: TestSim): Promise<number> => (await s.control('GET', '/clock')).body.clock.now_ms;

describe('http delay_ms', () => {
  let s: TestSim;
  beforeAll(async () => {
    s = await startTestSim({ seed: 'http-delay' });
  });
  afterAll(() => s.close());
  const labelled = async (label: string) =>
    ((await s.api('GET', '/accounts?limit=100')).body.accounts as Array<{ label: string }>).filter((a) => a.label === label);
  const delayFault = async (body: Record<string, unknown>) => {
    const r = await s.control('POST', '/faults', { target: 'http', ...body });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };

  it('holds the matching request until the sim clock has advanced by delay_ms; it takes effect when released', async () => {
    await delayFault({ effect: { delay_ms: 5_000 }, match: { method: 'POST', path: '/v1/accounts' }, times: 1 });
    const t0 = await nowMs(s);
    const held = inFlight(s.api('POST', '/accounts', { body: { label: 'slow-1' } }));
    // Other requests (not matched, or after `times` ran out) answer at once meanwhile.
    expect((await s.api('POST', '/accounts', { body: { label: 'fast-1' } })).status).toBe(200);
    await s.advance(4_999);
    expect(held.answered).toBe(false);
    expect(await labelled('slow-1')).toHaveLength(0);
    await s.advance(1);
    const r = await held.reply;
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.account).toMatchObject({ label: 'slow-1', created_at_ms: t0 + 5_000 });
    expect(await labelled('slow-1')).toHaveLength(1);
    const fired = (await s.control('GET', '/faults')).body.fired.filter((f: { target: string }) => f.target === 'http');
    expect(fired).toHaveLength(1);
  });

  it('clock/settle releases a held request; its reply is the handler’s own (errors too), after the delay', async () => {
    await delayFault({ effect: { delay_ms: 60_000 }, match: { method: 'GET', path: '/v1/accounts/*' }, times: 2 });
    const t0 = await nowMs(s);
    const held = inFlight(s.api('GET', '/accounts/acc_nope'));
    await s.settle();
    const r = await held.reply;
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('account_not_found');
    expect(await nowMs(s)).toBeGreaterThanOrEqual(t0 + 60_000);
    // A bad request is held too: the whole answer comes late, validation included.
    const bad = inFlight(s.api('GET', '/accounts/acc_nope?limit=x'));
    await s.advance(60_000);
    expect((await bad.reply).status).toBeGreaterThanOrEqual(400);
  });

  it('with http_status, the faulted status is answered after the delay and nothing runs', async () => {
    await delayFault({ effect: { delay_ms: 2_000 }, match: { method: 'POST', path: '/v1/accounts' }, times: 1 });
    await delayFault({ effect: { http_status: 503 }, match: { method: 'POST', path: '/v1/accounts' }, times: 1 });
    const held = inFlight(s.api('POST', '/accounts', { body: { label: 'slow-503' } }));
    await s.advance(1_999);
    expect(held.answered).toBe(false);
    await s.advance(1);
    const r = await held.reply;
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('service_unavailable');
    expect(await labelled('slow-503')).toHaveLength(0);
  });

  it('a client that times out and retries with the same Idempotency-Key creates one account; the held original replays it', async () => {
    await delayFault({ effect: { delay_ms: 30_000 }, match: { method: 'POST', path: '/v1/accounts' }, times: 1 });
    const firedCount = async () =>
      (await s.control('GET', '/faults')).body.fired.filter((f: { target: string }) => f.target === 'http').length;
    const before = await firedCount();
    const abort = new AbortController();
    const headers = { authorization: `Bearer ${s.api_key}`, 'idempotency-key': 'slow-key-1', 'content-type': 'application/json' };
    const body = JSON.stringify({ label: 'slow-retry' });
    const first = fetch(`${s.base_url}/accounts`, { method: 'POST', headers, body, signal: abort.signal });
    // The client's own timeout fires (simulated by aborting once the request is known to be held).
    await expect.poll(firedCount).toBe(before + 1);
    abort.abort();
    await expect(first).rejects.toThrow();
    const retry = await s.api('POST', '/accounts', { body: { label: 'slow-retry' }, idem: 'slow-key-1' });
    expect(retry.status).toBe(200);
    await s.advance(30_000);
    const again = await s.api('POST', '/accounts', { body: { label: 'slow-retry' }, idem: 'slow-key-1' });
    expect(again.body.account.account_id).toBe(retry.body.account.account_id);
    expect(await labelled('slow-retry')).toHaveLength(1);
    expect(await s.invariants()).toMatchObject({ ok: true });
  });

  it('reset answers a held request 503 service_unavailable without running it', async () => {
    await delayFault({ effect: { delay_ms: 10_000 }, match: { method: 'POST', path: '/v1/accounts' } });
    const heldNow = () => s.running.runtime.world.sim.faults.firings().filter((f) => f.target === 'http').length;
    const before = heldNow();
    const held = inFlight(s.api('POST', '/accounts', { body: { label: 'slow-reset' } }));
    await expect.poll(heldNow).toBe(before + 1);
    expect((await s.control('POST', '/reset')).status).toBe(200);
    const r = await held.reply;
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('service_unavailable');
    expect(await labelled('slow-reset')).toHaveLength(0);
  });
});

describe('http delay_ms, realtime clock', () => {
  it('waits delay_ms of sim time (wall time / speed), then answers', async () => {
    const s = await startTestSim({ clock: 'realtime', speed: 100, seed: 'http-delay-rt' });
    try {
      expect(
        (
          await s.control('POST', '/faults', {
            target: 'http',
            effect: { delay_ms: 5_000 },
            match: { method: 'POST', path: '/v1/accounts' },
            times: 1,
          })
        ).status,
      ).toBe(200);
      const t0 = await nowMs(s);
      const r = await s.api('POST', '/accounts', { body: { label: 'rt' } });
      expect(r.status).toBe(200);
      expect(r.body.account.created_at_ms).toBeGreaterThanOrEqual(t0 + 5_000);
    } finally {
      await s.close();
    }
  });
});

describe('http delay_ms, server close', () => {
  it('close answers a held request 503 instead of waiting for a clock that will not move', async () => {
    const s = await startTestSim({ seed: 'http-delay-close' });
    await s.control('POST', '/faults', { target: 'http', effect: { delay_ms: 60_000 } });
    const held = inFlight(s.api('GET', '/assets'));
    await expect.poll(() => s.running.runtime.world.sim.faults.firings().length).toBe(1);
    await s.close();
    const r = await held.reply;
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('service_unavailable');
  });
});
