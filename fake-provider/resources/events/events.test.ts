// The event feed and account activity over real HTTP: envelopes, type wildcards, time bounds, cursors
// (every event once), data-field filters, org isolation and every error code. Directly published events
// use types outside the spec's namespaces (test.*, sample.*) so other resources' invariants ignore them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { publish } from '../../engine/index.ts';
import { DEFAULT_PROFILE } from '../../profile.ts';

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim();
});
afterAll(() => sim.close());

async function org() {
  const o = await sim.newOrg();
  return { ...o, api: (path: string) => sim.api('GET', path, { key: o.api_key }) };
}

/** Follows next_cursor until the end; checks has_more agrees with it. */
async function all(api: (p: string) => Promise<any>, path: string, limit: number): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  const sep = path.includes('?') ? '&' : '?';
  do {
    const r: any = await api(`${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(r.status).toBe(200);
    out.push(...r.body.events);
    cursor = r.body.next_cursor;
    expect(r.body.has_more).toBe(cursor !== null);
  } while (cursor);
  return out;
}

describe('GET /events', () => {
  it('serves the org’s account events oldest first, with type wildcards, since_ms/until_ms and cursors', async () => {
    const o = await org();
    const post = () => sim.api('POST', '/accounts', { key: o.api_key, body: {} });
    const a = (await post()).body.account;
    await sim.advance(5_000);
    const t1 = sim.running.runtime.world.sim.now_ms();
    const b = (await post()).body.account;
    await sim.advance(5_000);

    const every = await all(o.api, '/events', 4);
    expect(every).toHaveLength(12); // 2 × (account.created + 5 wallet_created)
    expect(new Set(every.map((e) => e.event_id)).size).toBe(12);
    for (const e of every) expect(Object.keys(e)).toEqual(['event_id', 'type', 'created_at_ms', 'account_id', 'data']);
    const times = every.map((e) => e.created_at_ms);
    expect(times).toEqual([...times].sort((x, y) => x - y));
    expect(every[0]).toMatchObject({ type: 'account.created', account_id: a.account_id, data: { label: null, external_id: null } });

    expect((await all(o.api, '/events?types=account.created', 1)).map((e) => e.account_id)).toEqual([a.account_id, b.account_id]);
    expect(await all(o.api, '/events?types=account.*', 5)).toEqual(every);
    expect(await all(o.api, '/events?types=*', 50)).toEqual(every);
    expect(await all(o.api, '/events?types=trade.*', 50)).toEqual([]);
    const wallets = await all(o.api, '/events?types=trade.*,account.wallet_created', 3);
    expect(wallets).toHaveLength(10);
    expect(wallets.every((e) => e.type === 'account.wallet_created')).toBe(true);

    const since = await all(o.api, `/events?since_ms=${t1}`, 2);
    expect(since.map((e) => e.account_id)).toEqual(Array(6).fill(b.account_id));
    const until = await all(o.api, `/events?until_ms=${t1 - 1}`, 2);
    expect(until.map((e) => e.account_id)).toEqual(Array(6).fill(a.account_id));
    expect(await all(o.api, `/events?since_ms=${t1}&until_ms=${t1}`, 10)).toEqual([since[0]]);
    expect((await all(o.api, `/events?account_id=${a.account_id}`, 10)).every((e) => e.account_id === a.account_id)).toBe(true);

    // A cursor keeps its place while new events arrive: nothing repeats, the newcomer comes last.
    const page1 = (await o.api('/events?limit=11')).body;
    const c = publish(sim.running.runtime.world, o.organization_id, a.account_id, 'test.late', { n: 1 }).envelope;
    const page2 = (await o.api(`/events?limit=11&cursor=${page1.next_cursor}`)).body;
    expect(page2.events.map((e: any) => e.event_id)).toEqual([every[11].event_id, c.event_id]);
    expect(page2).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('never shows another organization’s events; a foreign account_id matches nothing', async () => {
    const o1 = await org();
    const o2 = await org();
    const a = (await sim.api('POST', '/accounts', { key: o1.api_key, body: {} })).body.account;
    expect((await o1.api('/events')).body.events).toHaveLength(1);
    expect((await o2.api('/events')).body).toMatchObject({ events: [], has_more: false, next_cursor: null });
    const foreign = await o2.api(`/events?account_id=${a.account_id}`);
    expect(foreign.status).toBe(200);
    expect(foreign.body.events).toEqual([]);
  });

  it('rejects bad queries with 400 and answers 401 without a key', async () => {
    const o = await org();
    for (const types of ['Trade.settled', 'trade', 'trade..x', 'trade.*.x', 'tr*', 'trade.*,,bad type']) {
      const r = await o.api(`/events?types=${encodeURIComponent(types)}`);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_parameter', param: 'types', type: 'invalid_request' });
    }
    expect((await o.api('/events?since_ms=yesterday')).body.error).toMatchObject({ code: 'invalid_parameter', param: 'since_ms' });
    expect((await o.api('/events?since_ms=10&until_ms=5')).body.error).toMatchObject({ code: 'invalid_parameter', param: 'until_ms' });
    expect((await o.api('/events?limit=0')).body.error).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
    expect((await o.api('/events?cursor=abc')).body.error).toMatchObject({ code: 'invalid_parameter', param: 'cursor' });
    expect((await sim.api('GET', '/events', { key: null })).status).toBe(401);
  });
});

describe('GET /accounts/:account_id/activity', () => {
  it('serves one account’s envelopes with type, time and data-field filters, oldest first', async () => {
    const o = await org();
    const a = (await sim.api('POST', '/accounts', { key: o.api_key, body: {} })).body.account;
    const b = (await sim.api('POST', '/accounts', { key: o.api_key, body: {} })).body.account;
    await sim.advance(10_000);
    const world = sim.running.runtime.world;
    const emit = (type: string, data: Record<string, unknown>, account_id = a.account_id) =>
      publish(world, o.organization_id, account_id, type, data).envelope;
    const t1 = emit('test.settled', { trade_id: 'trd_1', credit_id: 'cr_9' });
    const z1 = emit('sample.failed', { zap_id: 'zap_1', failure_code: 'zap_expired' });
    const c1 = emit('test.credit', { credit_id: 'cr_9', asset_key: 'native.btc', atoms: '5' });
    const x1 = emit('test.cancel', { cancel_id: 'can_1', credit_id: 'cr_8' });
    emit('test.settled', { trade_id: 'trd_1' }, b.account_id);

    const ids = async (q: string) => (await all(o.api, `/accounts/${a.account_id}/activity${q}`, 2)).map((e) => e.event_id);
    const everything = await all(o.api, `/accounts/${a.account_id}/activity`, 3);
    expect(everything).toHaveLength(10); // created + 5 wallets + 4 above
    expect(everything.every((e) => e.account_id === a.account_id)).toBe(true);
    expect(everything[0].type).toBe('account.created');
    expect(everything.slice(-4).map((e) => e.event_id)).toEqual([t1, z1, c1, x1].map((e) => e.event_id));
    expect(Object.keys(everything[0])).toEqual(['event_id', 'type', 'created_at_ms', 'account_id', 'data']);

    expect(await ids('?trade_id=trd_1')).toEqual([t1.event_id]);
    expect(await ids('?zap_id=zap_1')).toEqual([z1.event_id]);
    expect(await ids('?cancel_id=can_1')).toEqual([x1.event_id]);
    expect(await ids('?credit_id=cr_9')).toEqual([t1.event_id, c1.event_id]);
    expect(await ids('?credit_id=cr_9&types=test.credit')).toEqual([c1.event_id]);
    // asset_key matches data.asset_key: the btc wallet event and the credit.
    const btc = await all(o.api, `/accounts/${a.account_id}/activity?asset_key=native.btc`, 5);
    expect(btc.map((e) => e.type)).toEqual(['account.wallet_created', 'test.credit']);
    expect(await ids('?types=test.*,sample.failed')).toEqual([t1, z1, c1, x1].map((e) => e.event_id));
    expect(await ids(`?since_ms=${t1.created_at_ms}&types=account.*`)).toEqual([]);
    expect((await ids(`?until_ms=${t1.created_at_ms - 1}`)).length).toBe(6);
  });

  it('answers 404 account_not_found for unknown and foreign accounts, 400 for bad filters', async () => {
    const o1 = await org();
    const o2 = await org();
    const a = (await sim.api('POST', '/accounts', { key: o1.api_key, body: {} })).body.account;
    const foreign = await o2.api(`/accounts/${a.account_id}/activity`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: 'account_not_found', param: 'account_id' });
    expect((await o1.api('/accounts/acct_nope/activity')).body.error.code).toBe('account_not_found');
    const path = `/accounts/${a.account_id}/activity`;
    expect((await o1.api(`${path}?asset_key=BTC`)).body.error).toMatchObject({ code: 'invalid_asset_key', param: 'asset_key' });
    expect((await o1.api(`${path}?types=a.b.`)).body.error).toMatchObject({ code: 'invalid_parameter', param: 'types' });
    expect((await o1.api(`${path}?since_ms=9&until_ms=1`)).body.error).toMatchObject({ code: 'invalid_parameter', param: 'until_ms' });
    expect((await o1.api(`${path}?limit=500`)).body.error).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
    expect((await o1.api(`${path}?cursor=zzz`)).body.error).toMatchObject({ code: 'invalid_parameter', param: 'cursor' });
    expect((await sim.api('GET', path, { key: null })).status).toBe(401);
  });

  it('profile activity_order=desc serves newest first, cursors included', async () => {
    const s = await startTestSim({ profile: { ...DEFAULT_PROFILE, activity_order: 'desc' } });
    try {
      const a = (await s.api('POST', '/accounts', { body: {} })).body.account;
      await s.advance(10_000);
      const api = (p: string) => s.api('GET', p);
      const desc = await all(api, `/accounts/${a.account_id}/activity`, 4);
      const feed = await all(api, `/events?account_id=${a.account_id}`, 50);
      expect(desc).toHaveLength(6);
      expect(desc).toEqual([...feed].reverse());
    } finally {
      await s.close();
    }
  });

  it('keeps every invariant', async () => {
    expect(await sim.invariants()).toMatchObject({ ok: true, violations: [] });
  });
});
