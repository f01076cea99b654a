// GET /zaps and GET /zaps/{zap_id} over real HTTP: newest first across the organization's accounts,
// the account_id and status filters, cursor paging, the list item shape, and organization isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestSim } from '../../testing/harness.ts';
import {
  ARB_ETH,
  ARB_USDC,
  creditZap,
  depositZap,
  funded,
  getZap,
  newDestination,
  newOrgKey,
  postZap,
  readyAccount,
  startZapSim,
} from '../../testing/fixtures/zaps.ts';

let sim: TestSim;
let key: string;
const made: string[] = [];
let a1: string;
let a2: string;
let creditFunded: string;

beforeAll(async () => {
  sim = await startZapSim();
  key = await newOrgKey(sim);
  a1 = await readyAccount(sim, key);
  a2 = await readyAccount(sim, key);
  const d1 = await newDestination(sim, a1, ARB_ETH, undefined, key);
  const d2 = await newDestination(sim, a2, ARB_ETH, undefined, key);
  for (const [account_id, destination_id, i] of [
    [a1, d1, 0],
    [a2, d2, 1],
    [a1, d1, 2],
    [a2, d2, 3],
  ] as const) {
    const r = await postZap(sim, depositZap(account_id, destination_id, { client_zap_id: `z-${i}` }), { key });
    made.push(r.body.zap.zap_id);
    await sim.advance(1_000);
  }
  const f = await funded(sim, key);
  creditFunded = (await postZap(sim, creditZap(f), { key })).body.zap.zap_id;
  made.push(creditFunded);
});
afterAll(() => sim.close());

const list = (q = '', k = key) => sim.api('GET', `/zaps${q}`, { key: k });

async function all(q: string, limit: number): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const r: any = await list(`?limit=${limit}${q}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.zaps.length).toBeLessThanOrEqual(limit);
    out.push(...r.body.zaps);
    cursor = r.body.next_cursor;
    expect(r.body.has_more).toBe(cursor !== null);
  } while (cursor);
  return out;
}

describe('GET /zaps', () => {
  it('lists the organization’s zaps across accounts, newest first, with the spec’s item fields', async () => {
    const r = await list();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(r.body.zaps.map((z: any) => z.zap_id)).toEqual([...made].reverse());
    expect(r.body.zaps.at(-1)).toEqual({
      zap_id: made[0],
      account_id: a1,
      status: 'awaiting_deposit',
      client_zap_id: 'z-0',
      requested_amount_in_atoms: '50000000',
      from_asset_key: ARB_USDC,
      to_asset_key: ARB_ETH,
      created_at_ms: expect.any(Number),
    });
    const times = r.body.zaps.map((z: any) => z.created_at_ms);
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    expect(r.body.zaps[0].client_zap_id).toBeNull();
  });

  it('pages with cursors: every zap once, in order', async () => {
    const paged = await all('', 2);
    expect(paged.map((z) => z.zap_id)).toEqual([...made].reverse());
    const one = await all('', 1);
    expect(one.map((z) => z.zap_id)).toEqual([...made].reverse());
  });

  it('filters by account_id and by status; a foreign or unknown account matches nothing', async () => {
    expect((await all(`&account_id=${a1}`, 1)).map((z) => z.zap_id)).toEqual([made[2], made[0]]);
    expect((await list(`?status=awaiting_deposit`)).body.zaps.map((z: any) => z.zap_id)).toEqual([made[3], made[2], made[1], made[0]]);
    expect((await list(`?status=executing`)).body.zaps.map((z: any) => z.zap_id)).toEqual([creditFunded]);
    expect((await list(`?status=awaiting_deposit&account_id=${a2}`)).body.zaps.map((z: any) => z.zap_id)).toEqual([made[3], made[1]]);
    expect((await list(`?account_id=acct_nope`)).body.zaps).toEqual([]);
    const other = await newOrgKey(sim);
    expect((await list(`?account_id=${a1}`, other)).body.zaps).toEqual([]);
    expect((await list('', other)).body.zaps).toEqual([]);
    await sim.settle();
    expect((await list(`?status=settled`)).body.zaps.map((z: any) => z.zap_id)).toEqual([creditFunded]);
    expect((await list(`?status=executing`)).body.zaps).toEqual([]);
  });

  it('400 invalid_enum for a bad status, invalid_parameter for a bad limit or cursor, 401 without a key', async () => {
    expect((await list('?status=pending')).body.error).toMatchObject({ code: 'invalid_enum', param: 'status' });
    expect((await list('?limit=0')).body.error).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
    expect((await list('?limit=101')).body.error).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
    expect((await list('?cursor=nonsense')).body.error).toMatchObject({ code: 'invalid_parameter', param: 'cursor' });
    expect((await sim.api('GET', '/zaps', { key: null })).status).toBe(401);
  });
});

describe('GET /zaps/{zap_id}', () => {
  it('answers the zap to its organization and 404 zap_not_found to any other, or for an unknown id', async () => {
    expect((await getZap(sim, made[0], key)).zap_id).toBe(made[0]);
    const other = await newOrgKey(sim);
    const foreign = await sim.api('GET', `/zaps/${made[0]}`, { key: other });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: 'zap_not_found', param: 'zap_id' });
    expect((await sim.api('GET', '/zaps/zap_nope', { key })).body.error.code).toBe('zap_not_found');
    expect((await sim.api('GET', `/zaps/${made[0]}`, { key: null })).status).toBe(401);
  });

  it('keeps every invariant', async () => {
    expect((await sim.invariants()).violations).toEqual([]);
  });
});
