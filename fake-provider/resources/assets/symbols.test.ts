// Organization symbols over real HTTP: atomic bulk upsert with created/updated/unchanged counts, the
// bijection (inside a batch and against stored mappings), case-insensitive lookup with case-preserving
// storage, list and delete, org isolation, and symbols accepted wherever an asset is named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { DEFAULT_PROFILE } from '../../profile.ts';
import { resolveAssetRef } from './model.ts';

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim();
});
afterAll(() => sim.close());

const ETH = 'native.evm:1';
const BTC = 'native.btc';
const SOL = 'native.solana';
const USDC = 'erc20.evm:1_0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const WIDE = { reads: 10_000, writes: 10_000 };

/** A fresh organization per test keeps symbol tables apart; high limits keep the write limit out of the way. */
async function org() {
  const { api_key, organization_id } = await sim.newOrg({ rate_limits: WIDE });
  const put = (symbols: unknown, opts: { idem?: string } = {}) => sim.api('PUT', '/symbols', { body: { symbols }, key: api_key, ...opts });
  const get = (q = '') => sim.api('GET', `/symbols${q}`, { key: api_key });
  const del = (symbol: string) => sim.api('DELETE', `/symbols/${encodeURIComponent(symbol)}`, { key: api_key });
  const table = async () =>
    (await get('?limit=100')).body.symbols.map((s: { symbol: string; asset_key: string }) => `${s.symbol}=${s.asset_key}`);
  return { api_key, organization_id, put, get, del, table };
}

describe('PUT /symbols', () => {
  it('creates, then reports unchanged on the same batch (idempotent)', async () => {
    const o = await org();
    const batch = [
      { symbol: 'ETH', asset_key: ETH },
      { symbol: 'btc.main', asset_key: BTC },
    ];
    const r = await o.put(batch);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ request_id: expect.stringMatching(/^req_/), created: 2, updated: 0, unchanged: 0 });
    expect((await o.put(batch)).body).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
    expect(await o.table()).toEqual([`ETH=${ETH}`, `btc.main=${BTC}`]);
  });

  it('updates the stored casing for a mapping that differs only in case, keeping created_at_ms', async () => {
    const o = await org();
    await o.put([{ symbol: 'usdc', asset_key: USDC }]);
    const before = (await o.get()).body.symbols[0];
    await sim.advance(5_000);
    const r = await o.put([
      { symbol: 'USDC', asset_key: USDC },
      { symbol: 'Sol', asset_key: SOL },
    ]);
    expect(r.body).toMatchObject({ created: 1, updated: 1, unchanged: 0 });
    const after = (await o.get()).body.symbols;
    expect(after[0]).toEqual({ symbol: 'USDC', asset_key: USDC, created_at_ms: before.created_at_ms });
    expect(after[1].created_at_ms).toBe(before.created_at_ms + 5_000);
  });

  it('accepts an empty batch with zero counts, and works without an Idempotency-Key', async () => {
    const o = await org();
    expect((await o.put([])).body).toMatchObject({ created: 0, updated: 0, unchanged: 0 });
    const r = await sim.api('PUT', '/symbols', { body: { symbols: [{ symbol: 'E1', asset_key: ETH }] }, key: o.api_key, idem: '' });
    expect(r.status).toBe(200);
    expect(r.body.created).toBe(1);
  });

  it('names the offending mapping for format, grammar and support errors, and changes nothing', async () => {
    const o = await org();
    await o.put([{ symbol: 'ETH', asset_key: ETH }]);
    const cases: Array<[unknown[], number, string, string]> = [
      [
        [
          { symbol: 'BTC', asset_key: BTC },
          { symbol: 'S', asset_key: SOL },
        ],
        400,
        'invalid_symbol',
        'symbols.1.symbol',
      ],
      [[{ symbol: '-SOL', asset_key: SOL }], 400, 'invalid_symbol', 'symbols.0.symbol'],
      [[{ symbol: 'SOL-', asset_key: SOL }], 400, 'invalid_symbol', 'symbols.0.symbol'],
      [[{ symbol: 'A'.repeat(33), asset_key: SOL }], 400, 'invalid_symbol', 'symbols.0.symbol'],
      [[{ symbol: 'SO L', asset_key: SOL }], 400, 'invalid_symbol', 'symbols.0.symbol'],
      [
        [
          { symbol: 'BTC', asset_key: BTC },
          { symbol: 'X1', asset_key: 'bitcoin' },
        ],
        400,
        'invalid_asset_key',
        'symbols.1.asset_key',
      ],
      [
        [
          { symbol: 'BTC', asset_key: BTC },
          { symbol: 'X1', asset_key: 'native.evm:10' },
        ],
        404,
        'asset_not_supported',
        'symbols.1.asset_key',
      ],
      [
        [
          { symbol: 'BTC', asset_key: BTC },
          { symbol: 7, asset_key: SOL },
        ],
        400,
        'invalid_parameter',
        'symbols.1.symbol',
      ],
      [[{ symbol: 'BTC' }], 400, 'parameter_missing', 'symbols.0.asset_key'],
    ];
    for (const [batch, status, code, param] of cases) {
      const r = await o.put(batch);
      expect(r.status, JSON.stringify(batch)).toBe(status);
      expect(r.body.error, JSON.stringify(batch)).toMatchObject({ code, param });
    }
    expect((await sim.api('PUT', '/symbols', { body: {}, key: o.api_key })).body.error).toMatchObject({
      code: 'parameter_missing',
      param: 'symbols',
    });
    expect((await sim.api('PUT', '/symbols', { body: { symbols: 'ETH' }, key: o.api_key })).body.error).toMatchObject({
      code: 'invalid_parameter',
      param: 'symbols',
    });
    expect(await o.table()).toEqual([`ETH=${ETH}`]);
  });

  it('accepts every character of the symbol alphabet and both length bounds', async () => {
    const o = await org();
    const r = await o.put([
      { symbol: 'a1', asset_key: ETH },
      { symbol: 'A.b_c:d-9', asset_key: BTC },
      { symbol: 'Z'.repeat(32), asset_key: SOL },
    ]);
    expect(r.body).toMatchObject({ created: 3 });
  });

  it('refuses bijection violations inside a batch with symbol_conflict naming the side', async () => {
    const o = await org();
    const sym = await o.put([
      { symbol: 'ETH', asset_key: ETH },
      { symbol: 'eth', asset_key: BTC },
    ]);
    expect(sym.status).toBe(409);
    expect(sym.body.error).toMatchObject({
      code: 'symbol_conflict',
      param: 'symbols.1.symbol',
      type: 'conflict',
      details: { conflict: 'symbol', index: 1 },
    });
    expect(sym.body.error.message).toMatch(/^symbol side/);
    const casing = await o.put([
      { symbol: 'ETH', asset_key: ETH },
      { symbol: 'Eth', asset_key: ETH },
    ]);
    expect(casing.body.error).toMatchObject({ code: 'symbol_conflict', details: { conflict: 'symbol' } });
    const ak = await o.put([
      { symbol: 'ETH', asset_key: ETH },
      { symbol: 'ETHER', asset_key: ETH },
    ]);
    expect(ak.status).toBe(409);
    expect(ak.body.error).toMatchObject({ code: 'symbol_conflict', param: 'symbols.1.asset_key', details: { conflict: 'asset_key' } });
    expect(ak.body.error.message).toMatch(/^asset_key side/);
    expect(await o.table()).toEqual([]);
    // An exact duplicate is one mapping, not a conflict.
    expect(
      (
        await o.put([
          { symbol: 'ETH', asset_key: ETH },
          { symbol: 'ETH', asset_key: ETH },
        ])
      ).body,
    ).toMatchObject({ created: 1, unchanged: 0 });
  });

  it('refuses bijection violations against stored mappings, atomically', async () => {
    const o = await org();
    await o.put([{ symbol: 'ETH', asset_key: ETH }]);
    // The symbol side: ETH already names another asset (remapping needs a delete first).
    const s = await o.put([
      { symbol: 'BTC', asset_key: BTC },
      { symbol: 'eth', asset_key: SOL },
    ]);
    expect(s.status).toBe(409);
    expect(s.body.error).toMatchObject({
      code: 'symbol_conflict',
      param: 'symbols.1.symbol',
      details: { conflict: 'symbol', existing_asset_key: ETH },
    });
    expect(s.body.error.message).toMatch(/symbol side/);
    // The asset_key side: ETH's asset already has a symbol.
    const a = await o.put([
      { symbol: 'SOL', asset_key: SOL },
      { symbol: 'WETH', asset_key: ETH },
    ]);
    expect(a.status).toBe(409);
    expect(a.body.error).toMatchObject({
      code: 'symbol_conflict',
      param: 'symbols.1.asset_key',
      details: { conflict: 'asset_key', existing_symbol: 'ETH' },
    });
    expect(a.body.error.message).toMatch(/asset_key side/);
    // Nothing of either batch was applied.
    expect(await o.table()).toEqual([`ETH=${ETH}`]);
    // After a delete the symbol and the asset are free again.
    expect((await o.del('eth')).status).toBe(204);
    expect(
      (
        await o.put([
          { symbol: 'ETH', asset_key: SOL },
          { symbol: 'WETH', asset_key: ETH },
        ])
      ).body,
    ).toMatchObject({ created: 2 });
  });

  it('caps a batch at the profile size', async () => {
    const small = await startTestSim({ profile: { ...DEFAULT_PROFILE, symbols_batch_max: 2 } });
    try {
      const three = [
        { symbol: 'A1', asset_key: ETH },
        { symbol: 'B1', asset_key: BTC },
        { symbol: 'C1', asset_key: SOL },
      ];
      const r = await small.api('PUT', '/symbols', { body: { symbols: three } });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_parameter', param: 'symbols' });
      expect((await small.api('PUT', '/symbols', { body: { symbols: three.slice(0, 2) } })).body).toMatchObject({ created: 2 });
    } finally {
      await small.close();
    }
  });
});

describe('GET and DELETE /symbols', () => {
  it('lists in creation order, filters q case-insensitively, and pages with cursors', async () => {
    const o = await org();
    await o.put([
      { symbol: 'ETH', asset_key: ETH },
      { symbol: 'wBTC', asset_key: BTC },
      { symbol: 'SOL', asset_key: SOL },
      { symbol: 'usdc.e', asset_key: USDC },
    ]);
    const all = (await o.get()).body;
    expect(all).toMatchObject({ has_more: false, next_cursor: null });
    expect(all.symbols.map((s: { symbol: string }) => s.symbol)).toEqual(['ETH', 'wBTC', 'SOL', 'usdc.e']);
    expect(Object.keys(all.symbols[0]).sort()).toEqual(['asset_key', 'created_at_ms', 'symbol']);
    expect((await o.get('?q=BTC')).body.symbols.map((s: { symbol: string }) => s.symbol)).toEqual(['wBTC']);
    expect((await o.get('?q=s')).body.symbols.map((s: { symbol: string }) => s.symbol)).toEqual(['SOL', 'usdc.e']);
    const p1 = (await o.get('?limit=3')).body;
    expect(p1.has_more).toBe(true);
    const p2 = (await o.get(`?limit=3&cursor=${p1.next_cursor}`)).body;
    expect(p2).toMatchObject({ has_more: false, next_cursor: null });
    expect([...p1.symbols, ...p2.symbols]).toEqual(all.symbols);
    expect((await o.get('?limit=500')).body.error).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
  });

  it('deletes case-insensitively with a URL-encoded symbol; 404 symbol_not_found; 400 invalid_symbol', async () => {
    const o = await org();
    await o.put([
      { symbol: 'Eth.Main:1', asset_key: ETH },
      { symbol: 'BTC', asset_key: BTC },
    ]);
    const r = await o.del('eTH.mAIN:1');
    expect(r.status).toBe(204);
    expect(r.body).toBeUndefined();
    expect(await o.table()).toEqual([`BTC=${BTC}`]);
    const again = await o.del('Eth.Main:1');
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ code: 'symbol_not_found', param: 'symbol' });
    const bad = await o.del('-x-');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_symbol', param: 'symbol' });
    expect((await o.del('a b')).body.error.code).toBe('invalid_symbol');
  });

  it('keeps organizations apart: another org neither sees nor deletes nor conflicts', async () => {
    const a = await org();
    const b = await org();
    await a.put([{ symbol: 'ETH', asset_key: ETH }]);
    expect(await b.table()).toEqual([]);
    expect((await b.del('ETH')).body.error.code).toBe('symbol_not_found');
    expect((await b.put([{ symbol: 'ETH', asset_key: BTC }])).body).toMatchObject({ created: 1 });
    expect(await a.table()).toEqual([`ETH=${ETH}`]);
    expect((await sim.invariants()).ok).toBe(true);
  });
});

describe('symbols name assets', () => {
  it('resolveAssetRef finds the asset by symbol in any case, per organization', async () => {
    const o = await org();
    await o.put([{ symbol: 'MyUSDC', asset_key: USDC }]);
    const world = sim.running.runtime.world;
    expect(resolveAssetRef(world, o.organization_id, { symbol: 'myusdc' }, { required: true }).asset_key).toBe(USDC);
    expect(resolveAssetRef(world, o.organization_id, { asset_key: ETH }, { required: true }).asset_key).toBe(ETH);
    expect(() => resolveAssetRef(world, 'org_other', { symbol: 'MyUSDC' }, { required: true })).toThrow(/not registered/);
  });

  it('GET /assets?symbol= and GET /markets/candles?symbol= accept the alias and answer with asset_key', async () => {
    const o = await org();
    await o.put([{ symbol: 'eth', asset_key: ETH }]);
    const assets = await sim.api('GET', '/assets?symbol=ETH', { key: o.api_key });
    expect(assets.body.assets.map((a: { asset_key: string }) => a.asset_key)).toEqual([ETH]);
    expect((await sim.api('GET', '/assets?symbol=NOPE', { key: o.api_key })).body.assets).toEqual([]);
    const now = (await sim.control('GET', '/clock')).body.clock.now_ms;
    const c = await sim.api('GET', `/markets/candles?symbol=Eth&interval=1m&start_ms=${now}&end_ms=${now}`, { key: o.api_key });
    expect(c.status).toBe(200);
    expect(c.body.series.asset_key).toBe(ETH);
    const missing = await sim.api('GET', `/markets/candles?symbol=BTC&interval=1m&start_ms=${now}&end_ms=${now}`, { key: o.api_key });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'symbol_not_found', param: 'symbol' });
  });
});
