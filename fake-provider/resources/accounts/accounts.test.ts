// Accounts over real HTTP: create (idempotent), list with filters and cursors, get, PATCH email,
// deactivate (idempotent), wallet derivation events, and every error code these endpoints answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { addressFromPrivateKey, WALLET_CHAINS } from './wallets.ts';
import { accountStore } from './model.ts';

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim();
});
afterAll(() => sim.close());

describe('accounts', () => {
  it('creates an account with account.created, then wallet_created per chain a few sim-seconds later', async () => {
    const r = await sim.api('POST', '/accounts', { body: { label: 'alice', external_id: 'u-1' } });
    expect(r.status).toBe(200);
    expect(r.body.request_id).toMatch(/^req_/);
    const a = r.body.account;
    expect(a).toMatchObject({ label: 'alice', external_id: 'u-1', status: 'active' });
    expect(a).not.toHaveProperty('email');
    const events = (await sim.api('GET', `/accounts/${a.account_id}/activity`)).body;
    // activity is another resource's route; read the event store through the world instead when absent
    const world = sim.running.runtime.world;
    const types = () => world.events.all.filter((e) => e.envelope.account_id === a.account_id).map((e) => e.envelope.type);
    expect(types()).toEqual(['account.created']);
    await sim.advance(10_000);
    expect(types().filter((t) => t === 'account.wallet_created')).toHaveLength(WALLET_CHAINS.length);
    const wallets = world.events.all.filter((e) => e.envelope.type === 'account.wallet_created' && e.envelope.account_id === a.account_id);
    const keys = accountStore(world).byId.get(a.account_id)!.wallets;
    for (const w of wallets) {
      const chain = w.envelope.data.chain as (typeof WALLET_CHAINS)[number];
      expect(addressFromPrivateKey(chain, keys.get(chain)!.private_key_hex)).toBe(w.envelope.data.address);
    }
    void events;
  });

  it('replays the same Idempotency-Key with the same body, and refuses a different body with 409', async () => {
    const first = await sim.api('POST', '/accounts', { body: { label: 'bob' }, idem: 'k-bob' });
    const again = await sim.api('POST', '/accounts', { body: { label: 'bob' }, idem: 'k-bob' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const other = await sim.api('POST', '/accounts', { body: { label: 'carol' }, idem: 'k-bob' });
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: 'idempotency_key_reuse', type: 'conflict', param: 'Idempotency-Key' });
  });

  it('requires Idempotency-Key on POST /accounts', async () => {
    const r = await sim.api('POST', '/accounts', { body: {}, idem: '' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'parameter_missing', param: 'Idempotency-Key', type: 'invalid_request' });
  });

  it('rejects wrong types with invalid_parameter and changes nothing', async () => {
    const before = (await sim.api('GET', '/accounts?limit=100')).body.accounts.length;
    const r = await sim.api('POST', '/accounts', { body: { label: 42 } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_parameter', param: 'label' });
    expect((await sim.api('GET', '/accounts?limit=100')).body.accounts.length).toBe(before);
  });

  it('lists with status/external_id filters and pages with cursors', async () => {
    for (let i = 0; i < 5; i++) await sim.api('POST', '/accounts', { body: { external_id: 'page-test' } });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await sim.api('GET', `/accounts?external_id=page-test&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.accounts.map((a: { account_id: string }) => a.account_id));
      cursor = r.body.next_cursor;
      expect(r.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    expect((await sim.api('GET', '/accounts?status=bogus')).body.error.code).toBe('invalid_enum');
    expect((await sim.api('GET', '/accounts?limit=101')).body.error).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
    expect((await sim.api('GET', '/accounts?cursor=nonsense')).body.error).toMatchObject({ code: 'invalid_parameter', param: 'cursor' });
  });

  it('gets, patches email, deactivates idempotently with one account.deactivated', async () => {
    const a = (await sim.api('POST', '/accounts', { body: {} })).body.account;
    expect((await sim.api('GET', `/accounts/${a.account_id}`)).body.account.account_id).toBe(a.account_id);
    const p = await sim.api('PATCH', `/accounts/${a.account_id}`, { body: { email: 'user@example.com' } });
    expect(p.status).toBe(200);
    expect(p.body.account.email).toBe('user@example.com');
    expect((await sim.api('PATCH', `/accounts/${a.account_id}`, { body: { email: 'nope' } })).body.error.code).toBe('invalid_parameter');
    const d1 = await sim.api('POST', `/accounts/${a.account_id}/deactivate`);
    const d2 = await sim.api('POST', `/accounts/${a.account_id}/deactivate`);
    expect(d1.body.account).toEqual({ account_id: a.account_id, status: 'deactivated' });
    expect(d2.body.account).toEqual({ account_id: a.account_id, status: 'deactivated' });
    const world = sim.running.runtime.world;
    expect(
      world.events.all.filter((e) => e.envelope.account_id === a.account_id && e.envelope.type === 'account.deactivated'),
    ).toHaveLength(1);
    expect((await sim.api('GET', '/accounts?status=deactivated')).body.accounts.map((x: any) => x.account_id)).toContain(a.account_id);
  });

  it('answers 404 account_not_found for unknown ids and for other organizations’ accounts', async () => {
    const a = (await sim.api('POST', '/accounts', { body: {} })).body.account;
    const other = await sim.newOrg();
    const r = await sim.api('GET', `/accounts/${a.account_id}`, { key: other.api_key });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('account_not_found');
    expect((await sim.api('GET', '/accounts', { key: other.api_key })).body.accounts).toEqual([]);
    expect((await sim.api('GET', '/accounts/acct_nope')).status).toBe(404);
  });

  it('answers 401 without or with a wrong key', async () => {
    expect((await sim.api('GET', '/accounts', { key: null })).status).toBe(401);
    const r = await sim.api('GET', '/accounts', { key: 'sk_wrong' });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('unauthorized');
  });

  it('keeps every invariant', async () => {
    expect(await sim.invariants()).toMatchObject({ ok: true, violations: [] });
  });
});
