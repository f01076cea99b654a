// Account history over real HTTP (terminal cancels made by the real flows) plus the merge of records from
// any resource module: filters, newest-first order, cursors, only terminal records, and its error codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestSim } from '../../testing/harness.ts';
import type { HistoryRecord, ResourceModule } from '../../resource.ts';
import {
  ARB_ETH,
  ARB_FINALITY_MS,
  ARB_USDC,
  BROADCAST_MS,
  fundedCredit,
  getCancel,
  newDestination,
  newOrgKey,
  postCancel,
  readyAccount,
  startDepositSim,
} from '../../testing/fixtures/cancels.ts';
import { listHistory } from './model.ts';

let sim: TestSim;
let account_id: string;
/** Cancel ids by name, and when each was created. */
const ids: Record<string, string> = {};
const created: Record<string, number> = {};
let destEth: string;
let destUsdc: string;

const history = (q = ''): string => `/accounts/${account_id}/history${q}`;
const cancelIds = async (q = ''): Promise<string[]> => {
  const r = await sim.api('GET', history(q));
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.records.map((x: any) => x.cancel_id);
};
const name = (cancel_id: string): string => Object.keys(ids).find((k) => ids[k] === cancel_id) ?? cancel_id;

async function startCancel(
  label: string,
  asset_key: string,
  atoms: string,
  fault?: 'broadcast_failed' | 'confirmation_timeout',
): Promise<void> {
  const credit_id = await fundedCredit(sim, account_id, asset_key, atoms);
  if (fault)
    expect(
      (await sim.control('POST', '/faults', { target: 'cancel', effect: { fail: fault }, match: { ids: [credit_id] }, times: 1 })).status,
    ).toBe(200);
  const r = await postCancel(sim, {
    account_id,
    credit_id,
    destination_id: asset_key === ARB_ETH ? destEth : destUsdc,
    ...(label === 'eth_ok' ? { client_cancel_id: 'c-eth' } : {}),
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  ids[label] = r.body.cancel.cancel_id;
  created[label] = sim.running.runtime.world.sim.now_ms();
}

beforeAll(async () => {
  sim = await startDepositSim();
  account_id = await readyAccount(sim);
  destEth = await newDestination(sim, account_id, ARB_ETH);
  destUsdc = await newDestination(sim, account_id, ARB_USDC);
  // Oldest to newest; each one runs to its end before the next begins (fundedCredit advances the clock).
  await startCancel('eth_ok', ARB_ETH, '1000');
  await sim.advance(BROADCAST_MS + ARB_FINALITY_MS);
  await startCancel('usdc_bf', ARB_USDC, '2000000', 'broadcast_failed');
  await sim.advance(BROADCAST_MS + ARB_FINALITY_MS);
  await startCancel('usdc_ok', ARB_USDC, '3000000');
  await sim.advance(BROADCAST_MS + ARB_FINALITY_MS);
  await startCancel('eth_to', ARB_ETH, '4000', 'confirmation_timeout');
  await sim.advance(BROADCAST_MS + ARB_FINALITY_MS);
  // Still in flight: never listed until it is terminal.
  await startCancel('eth_pending', ARB_ETH, '5000');
});
afterAll(() => sim.close());

describe('GET /accounts/{account_id}/history', () => {
  it('lists terminal cancels newest first with exactly the spec’s record fields', async () => {
    const r = await sim.api('GET', history());
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(r.body.records.map((x: any) => name(x.cancel_id))).toEqual(['eth_to', 'usdc_ok', 'usdc_bf', 'eth_ok']);
    const [to, , bf, ok] = r.body.records;
    const dest = (await sim.api('GET', `/accounts/${account_id}/destinations`)).body.destinations.find(
      (d: any) => d.destination_id === destEth,
    ).address;
    expect(ok).toEqual({
      type: 'cancel',
      status: 'confirmed',
      created_at_ms: created.eth_ok,
      cancel_id: ids.eth_ok,
      client_cancel_id: 'c-eth',
      asset_key: ARB_ETH,
      amount_atoms: '1000',
      destination_address: dest,
      confirmed_at_ms: created.eth_ok + BROADCAST_MS + ARB_FINALITY_MS,
    });
    expect(bf).toEqual({
      type: 'cancel',
      status: 'failed',
      created_at_ms: created.usdc_bf,
      cancel_id: ids.usdc_bf,
      client_cancel_id: null,
      asset_key: ARB_USDC,
      amount_atoms: '2000000',
      destination_address: dest,
      failure_code: 'broadcast_failed',
    });
    expect(to).toMatchObject({ status: 'failed', failure_code: 'confirmation_timeout', amount_atoms: '4000' });
    expect(to).not.toHaveProperty('confirmed_at_ms');
  });

  it('shows a cancel only once it is terminal', async () => {
    expect(await cancelIds()).not.toContain(ids.eth_pending);
    await sim.advance(BROADCAST_MS);
    expect((await getCancel(sim, ids.eth_pending)).status).toBe('sent');
    expect(await cancelIds()).not.toContain(ids.eth_pending);
    await sim.advance(ARB_FINALITY_MS);
    expect((await cancelIds())[0]).toBe(ids.eth_pending);
  });

  it('filters by types, status, asset_key (either side) and since/until (inclusive)', async () => {
    const all = await cancelIds();
    expect(await cancelIds('?types=cancel')).toEqual(all);
    expect(await cancelIds('?types=trade,zap,cancel')).toEqual(all);
    expect(await cancelIds('?types=trade')).toEqual([]);
    expect(await cancelIds('?types=zap,trade')).toEqual([]);
    expect((await cancelIds('?status=confirmed')).map(name)).toEqual(['eth_pending', 'usdc_ok', 'eth_ok']);
    expect((await cancelIds('?status=failed')).map(name)).toEqual(['eth_to', 'usdc_bf']);
    expect(await cancelIds('?status=settled')).toEqual([]);
    expect((await cancelIds(`?asset_key=${ARB_USDC}`)).map(name)).toEqual(['usdc_ok', 'usdc_bf']);
    expect((await cancelIds(`?asset_key=${ARB_USDC}&status=failed`)).map(name)).toEqual(['usdc_bf']);
    expect(await cancelIds('?asset_key=native.btc')).toEqual([]);
    expect((await cancelIds(`?since_ms=${created.usdc_bf}&until_ms=${created.eth_to}`)).map(name)).toEqual([
      'eth_to',
      'usdc_ok',
      'usdc_bf',
    ]);
    expect((await cancelIds(`?since_ms=${created.usdc_bf + 1}&until_ms=${created.eth_to - 1}`)).map(name)).toEqual(['usdc_ok']);
    expect((await cancelIds(`?until_ms=${created.eth_ok}`)).map(name)).toEqual(['eth_ok']);
  });

  it('pages with cursors, every record once, in order; a filter holds across pages', async () => {
    const all = await cancelIds();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await sim.api('GET', history(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`));
      expect(r.status).toBe(200);
      seen.push(...r.body.records.map((x: any) => x.cancel_id));
      cursor = r.body.next_cursor;
      expect(r.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual(all);
    const first = (await sim.api('GET', history(`?limit=1&asset_key=${ARB_ETH}`))).body;
    const second = (await sim.api('GET', history(`?limit=5&asset_key=${ARB_ETH}&cursor=${first.next_cursor}`))).body;
    expect([...first.records, ...second.records].map((x: any) => name(x.cancel_id))).toEqual(['eth_pending', 'eth_to', 'eth_ok']);
    expect(second).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('refuses bad queries with the right code', async () => {
    const cases: Array<[string, number, string, string]> = [
      ['?types=cancel,deposit', 400, 'invalid_enum', 'types'],
      ['?status=pending', 400, 'invalid_enum', 'status'],
      ['?asset_key=ETH', 400, 'invalid_asset_key', 'asset_key'],
      ['?since_ms=abc', 400, 'invalid_parameter', 'since_ms'],
      ['?since_ms=10&until_ms=5', 400, 'invalid_parameter', 'until_ms'],
      ['?limit=0', 400, 'invalid_parameter', 'limit'],
      ['?limit=101', 400, 'invalid_parameter', 'limit'],
      ['?cursor=abc', 400, 'invalid_parameter', 'cursor'],
    ];
    for (const [q, status, code, param] of cases) {
      const r = await sim.api('GET', history(q));
      expect([r.status, r.body.error?.code, r.body.error?.param], q).toEqual([status, code, param]);
    }
  });

  it('404 account_not_found for unknown accounts and other organizations’ accounts; 401 without auth', async () => {
    const unknown = await sim.api('GET', '/accounts/acct_nope/history');
    expect([unknown.status, unknown.body.error?.code]).toEqual([404, 'account_not_found']);
    const key = await newOrgKey(sim);
    const foreign = await sim.api('GET', history(), { key });
    expect([foreign.status, foreign.body.error?.code]).toEqual([404, 'account_not_found']);
    expect((await sim.api('GET', history(), { key: null })).status).toBe(401);
    const inv = await sim.invariants();
    expect(inv.violations).toEqual([]);
  });
});

describe('listHistory over any resource modules', () => {
  const rec = (type: HistoryRecord['type'], status: string, created_at_ms: number, seq: number, asset_keys: string[]): HistoryRecord => ({
    type,
    status,
    created_at_ms,
    seq,
    asset_keys,
    body: { type, status, created_at_ms, id: `${type}-${seq}` },
  });
  const modules: ResourceModule[] = [
    { name: 'trades', history: () => [rec('trade', 'settled', 100, 1, ['a', 'b']), rec('trade', 'executing', 150, 4, ['a', 'b'])] },
    { name: 'zaps', history: () => [rec('zap', 'failed', 200, 2, ['b', 'c']), rec('zap', 'settled', 200, 5, ['c', 'd'])] },
    { name: 'none' },
    { name: 'cancels', history: () => [rec('cancel', 'confirmed', 50, 3, ['a'])] },
  ];
  const world = {} as never;
  const ids = (q = {}) => listHistory(modules, world, 'acct', q).items.map((r) => r.body.id);

  it('merges every module’s terminal records, newest first, ties by seq descending', () => {
    expect(ids()).toEqual(['zap-5', 'zap-2', 'trade-1', 'cancel-3']);
  });

  it('matches asset_key on either side, and types and status', () => {
    expect(ids({ asset_key: 'b' })).toEqual(['zap-2', 'trade-1']);
    expect(ids({ asset_key: 'a' })).toEqual(['trade-1', 'cancel-3']);
    expect(ids({ types: ['zap', 'cancel'], status: 'failed' })).toEqual(['zap-2']);
  });

  it('pages by (created_at_ms, seq) even when seq disagrees with time', () => {
    const first = listHistory(modules, world, 'acct', { limit: 1 });
    const rest = listHistory(modules, world, 'acct', { limit: 10, cursor: first.next_cursor! });
    expect([...first.items, ...rest.items].map((r) => r.body.id)).toEqual(['zap-5', 'zap-2', 'trade-1', 'cancel-3']);
    const two = listHistory(modules, world, 'acct', { limit: 2 });
    expect(listHistory(modules, world, 'acct', { limit: 2, cursor: two.next_cursor! }).items.map((r) => r.body.id)).toEqual([
      'trade-1',
      'cancel-3',
    ]);
  });
});
