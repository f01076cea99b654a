// HTTP fault rules on /v1 over real HTTP: http_status answers without running the handler, lose_response
// runs it and loses the reply (500 or a reset), and a retry with the same Idempotency-Key gets the real reply.
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
  ((await sim.api('GET', '/accounts?limit=100')).body.accounts as Array<{ label: string; account_id: string }>).filter((a) => a.label === label);

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

  it('refuses http effects it does not apply (501) and a bad lose_response mode (400)', async () => {
    const delay = await sim.control('POST', '/faults', { target: 'http', effect: { delay_ms: 5 } });
    expect(delay.status).toBe(501);
    expect(delay.body.error.code).toBe('not_implemented');
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
