// Market data over real HTTP: GET /markets, candles (alignment, aggregation, consistency with the current
// price, future candles absent, history before the world's start), the /_sim price control (atomic sets,
// the walk continuing from them), determinism per seed, and every error code of these endpoints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { DEFAULT_PROFILE } from '../../profile.ts';
import { ASSETS } from '../assets/catalog.ts';
import { usdPrice, usdPriceScaled, setUsdPrice, USD_PRICE_SCALE } from './index.ts';

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim({ seed_orgs: [{ api_keys: ['sk_test_default'], rate_limits: { reads: 10_000, writes: 10_000 } }] });
});
afterAll(() => sim.close());

const ETH = 'native.evm:1';
const BTC = 'native.btc';
const USDC = 'erc20.evm:1_0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const BONK = 'spl.solana:DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const MIN = 60_000;

const now = async (s: TestSim = sim): Promise<number> => (await s.control('GET', '/clock')).body.clock.now_ms;
const prices = async (s: TestSim = sim): Promise<Record<string, string>> => (await s.control('GET', '/market/prices')).body.prices;
const candles = (q: string, s: TestSim = sim) => s.api('GET', `/markets/candles?${q}`);
type C = { t_ms: number; o: string; h: string; l: string; c: string };
const n = (x: string): bigint => {
  const [i, f = ''] = x.split('.');
  return BigInt(i + f.padEnd(12, '0'));
};

function expectWellFormed(list: C[], step_ms: number): void {
  for (let i = 0; i < list.length; i++) {
    const k = list[i];
    expect(k.t_ms % step_ms).toBe(0);
    if (i > 0) expect(k.t_ms).toBe(list[i - 1].t_ms + step_ms);
    for (const v of [k.o, k.h, k.l, k.c]) expect(v).toMatch(/^[0-9]+(\.[0-9]+)?$/);
    expect(n(k.l) <= n(k.o) && n(k.o) <= n(k.h)).toBe(true);
    expect(n(k.l) <= n(k.c) && n(k.c) <= n(k.h)).toBe(true);
  }
}

describe('GET /markets', () => {
  it('lists one USD market per asset with a price, none for assets without market data', async () => {
    const r = await sim.api('GET', '/markets');
    expect(r.status).toBe(200);
    const priced = ASSETS.filter((a) => a.usd_price !== null).map((a) => a.asset_key);
    expect(r.body.markets.map((m: { asset_key: string }) => m.asset_key)).toEqual(priced);
    expect(r.body.markets[0]).toEqual({ market_id: `${ETH}/USD`, asset_key: ETH, denom: 'USD', intervals: ['1m', '5m', '1h', '1d'] });
    expect(r.body.markets.some((m: { asset_key: string }) => m.asset_key === BONK)).toBe(false);
  });
});

describe('prices', () => {
  it('start at the catalog prices and walk with the sim clock, one step per minute', async () => {
    const s = await startTestSim({ seed: 'walk' });
    try {
      const p0 = await prices(s);
      expect(p0[ETH]).toBe('3200');
      expect(p0[USDC]).toBe('1');
      expect(p0[BONK]).toBeUndefined();
      await s.advance(59_999);
      expect((await prices(s))[ETH]).toBe('3200');
      await s.advance(1);
      const p1 = await prices(s);
      expect(p1[ETH]).not.toBe('3200');
      const ratio = Number(n(p1[ETH])) / Number(n('3200'));
      expect(Math.abs(ratio - 1)).toBeLessThanOrEqual(0.005 + 1e-9);
      // Stablecoins move in far smaller steps and stay near their peg over a day.
      await s.advance(24 * 60 * MIN);
      const day = await prices(s);
      expect(Math.abs(Number(day[USDC]) - 1)).toBeLessThan(0.01);
      expect(Math.abs(Number(day[ETH]) / 3200 - 1)).toBeLessThan(0.2);
      // Nothing is scheduled: settle has nothing to run.
      const before = await now(s);
      const settled = await s.control('POST', '/clock/settle', {});
      expect(settled.body).toMatchObject({ clock: { now_ms: before }, ran: { ran: 0 }, pending: 0 });
    } finally {
      await s.close();
    }
  });

  it('are the same for the same seed whatever was read in between, and differ across seeds', async () => {
    const [a, b, c] = await Promise.all([startTestSim({ seed: 7 }), startTestSim({ seed: 7 }), startTestSim({ seed: 8 })]);
    try {
      for (let i = 0; i < 30; i++) {
        await a.advance(MIN);
        await prices(a); // a reads every minute; b and c never do until the end
      }
      await b.advance(30 * MIN);
      await c.advance(30 * MIN);
      const [pa, pb, pc] = await Promise.all([prices(a), prices(b), prices(c)]);
      expect(pa).toEqual(pb);
      expect(pa[ETH]).not.toBe(pc[ETH]);
      const q = `asset_key=${BTC}&interval=5m&start_ms=${(await now(a)) - 60 * MIN}&end_ms=${await now(a)}`;
      expect((await candles(q, a)).body.series).toEqual((await candles(q, b)).body.series);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  it('usdPrice / usdPriceScaled / setUsdPrice agree with the HTTP view', async () => {
    const world = sim.running.runtime.world;
    const http = await prices();
    expect(usdPrice(world, ETH)).toBe(http[ETH]);
    expect(usdPriceScaled(world, ETH)).toBe(n(http[ETH]));
    expect(usdPrice(world, BONK)).toBeNull();
    expect(usdPriceScaled(world, 'native.evm:10')).toBeNull();
    setUsdPrice(world, BTC, '100000.5');
    expect(usdPriceScaled(world, BTC)).toBe(100000n * USD_PRICE_SCALE + USD_PRICE_SCALE / 2n);
    expect((await prices())[BTC]).toBe('100000.5');
    expect(() => setUsdPrice(world, BTC, '-1')).toThrow(/positive/);
  });
});

describe('PUT /_sim/market/prices', () => {
  it('sets prices atomically; the walk continues from the set price', async () => {
    const r = await sim.control('PUT', '/market/prices', { prices: { [ETH]: '2500.5', [USDC]: '0.9995' } });
    expect(r.status).toBe(200);
    expect(r.body.prices).toMatchObject({ [ETH]: '2500.5', [USDC]: '0.9995' });
    await sim.advance(MIN);
    const next = (await prices())[ETH];
    expect(Math.abs(Number(next) / 2500.5 - 1)).toBeLessThanOrEqual(0.005 + 1e-6);
  });

  it('refuses a batch with one bad key or value and changes nothing', async () => {
    const before = await prices();
    const cases: Array<[Record<string, unknown>, number, string, string]> = [
      [{ [ETH]: '1', 'NATIVE.BTC': '2' }, 400, 'invalid_asset_key', 'prices.NATIVE.BTC'],
      [{ [ETH]: '1', 'native.evm:10': '2' }, 404, 'asset_not_supported', 'prices.native.evm:10'],
      [{ [ETH]: '1', [BTC]: '0' }, 400, 'invalid_parameter', `prices.${BTC}`],
      [{ [ETH]: '1', [BTC]: '-5' }, 400, 'invalid_parameter', `prices.${BTC}`],
      [{ [ETH]: '1', [BTC]: 5 }, 400, 'invalid_parameter', `prices.${BTC}`],
      [{ [ETH]: '1', [BTC]: '1.0000000000001' }, 400, 'invalid_parameter', `prices.${BTC}`],
    ];
    for (const [p, status, code, param] of cases) {
      const r = await sim.control('PUT', '/market/prices', { prices: p });
      expect(r.status, JSON.stringify(p)).toBe(status);
      expect(r.body.error, JSON.stringify(p)).toMatchObject({ code, param });
    }
    expect((await sim.control('PUT', '/market/prices', {})).body.error).toMatchObject({ code: 'parameter_missing', param: 'prices' });
    expect((await sim.control('PUT', '/market/prices', { prices: [] })).body.error.code).toBe('invalid_parameter');
    expect(await prices()).toEqual(before);
  });

  it('opens a market for an asset without market data, with no history before the set', async () => {
    const s = await startTestSim();
    try {
      const t0 = await now(s);
      expect((await candles(`asset_key=${BONK}&interval=1m&start_ms=${t0}&end_ms=${t0}`, s)).body.error.code).toBe('not_available');
      await s.advance(10 * MIN);
      const r = await s.control('PUT', '/market/prices', { prices: { [BONK]: '0.00002' } });
      expect(r.body.prices[BONK]).toBe('0.00002');
      expect((await s.api('GET', '/markets')).body.markets.map((m: { asset_key: string }) => m.asset_key)).toContain(BONK);
      await s.advance(3 * MIN);
      const t = await now(s);
      const list = (await candles(`asset_key=${BONK}&interval=1m&start_ms=${t0}&end_ms=${t}`, s)).body.series.candles as C[];
      expect(list.map((k) => k.t_ms)).toEqual([t - 3 * MIN, t - 2 * MIN, t - MIN, t]);
      expect(list[0].o).toBe('0.00002');
      expectWellFormed(list, MIN);
    } finally {
      await s.close();
    }
  });
});

describe('GET /markets/candles', () => {
  it('answers 1m candles aligned to minutes, closing at the next open, the last at the current price', async () => {
    await sim.advance(37 * MIN + 12_345);
    const t = await now();
    const r = await candles(`asset_key=${ETH}&interval=1m&start_ms=${t - 20 * MIN}&end_ms=${t + 10 * MIN}`);
    expect(r.status).toBe(200);
    const s = r.body.series;
    expect(s).toMatchObject({ asset_key: ETH, denom: 'USD', interval: '1m' });
    const list = s.candles as C[];
    expect(list).toHaveLength(21); // 20 finished minutes and the running one; none in the future
    expect(list[0].t_ms).toBe(t - 20 * MIN - ((t - 20 * MIN) % MIN));
    expect(list.at(-1)!.t_ms).toBe(t - (t % MIN));
    expectWellFormed(list, MIN);
    for (let i = 1; i < list.length; i++) expect(list[i].o).toBe(list[i - 1].c);
    expect(list.at(-1)!.c).toBe((await prices())[ETH]);
    expect(Object.keys(list[0]).sort()).toEqual(['c', 'h', 'l', 'o', 't_ms']);
  });

  it('aggregates 5m and 1h from the same minute path', async () => {
    const t = await now();
    const start = t - 60 * MIN;
    const ones = (await candles(`asset_key=${BTC}&interval=1m&start_ms=${start}&end_ms=${t}`)).body.series.candles as C[];
    const fives = (await candles(`asset_key=${BTC}&interval=5m&start_ms=${start}&end_ms=${t}`)).body.series.candles as C[];
    expectWellFormed(fives, 5 * MIN);
    let compared = 0;
    for (const f of fives) {
      const inside = ones.filter((k) => k.t_ms >= f.t_ms && k.t_ms < f.t_ms + 5 * MIN);
      if (inside.length === 0 || inside[0].t_ms !== f.t_ms) continue; // partly outside the 1m window
      expect(f.o).toBe(inside[0].o);
      expect(f.c).toBe(inside.at(-1)!.c);
      expect(f.h).toBe(inside.map((k) => k.h).reduce((a, b) => (n(a) > n(b) ? a : b)));
      expect(f.l).toBe(inside.map((k) => k.l).reduce((a, b) => (n(a) < n(b) ? a : b)));
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(11);
    const hours = (await candles(`asset_key=${BTC}&interval=1h&start_ms=${start}&end_ms=${t}`)).body.series.candles as C[];
    expectWellFormed(hours, 60 * MIN);
    expect(hours.at(-1)!.c).toBe((await prices())[BTC]);
  });

  it('shows a price set inside a minute in that minute candle', async () => {
    const t = await now();
    const p = (await prices())[ETH];
    const high = String(Math.round(Number(p) * 2));
    await sim.control('PUT', '/market/prices', { prices: { [ETH]: high } });
    await sim.control('PUT', '/market/prices', { prices: { [ETH]: p } });
    const k = (await candles(`asset_key=${ETH}&interval=1m&start_ms=${t}&end_ms=${t}`)).body.series.candles[0] as C;
    expect(k.h).toBe(high);
    expect(k.c).toBe(p);
    await sim.advance(MIN);
    const done = (await candles(`asset_key=${ETH}&interval=1m&start_ms=${t}&end_ms=${t}`)).body.series.candles[0] as C;
    expect(n(done.h) >= n(high)).toBe(true);
    expectWellFormed([done], MIN);
  });

  it('reaches back over the history kept before the world started, and not beyond', async () => {
    const s = await startTestSim({ seed: 'history', profile: { ...DEFAULT_PROFILE, market_history_ms: 3 * 24 * 60 * MIN } });
    try {
      const t = await now(s);
      const day = 24 * 60 * MIN;
      const days = (await candles(`asset_key=${ETH}&interval=1d&start_ms=${t - 10 * day}&end_ms=${t}`, s)).body.series.candles as C[];
      expect(days.map((k) => k.t_ms)).toEqual([t - 3 * day, t - 2 * day, t - day, t]);
      expectWellFormed(days, day);
      expect(days.at(-1)!.o).toBe(days.at(-2)!.c);
      expect(days.at(-1)!.c).toBe('3200');
    } finally {
      await s.close();
    }
  });

  it('answers every error code of its query', async () => {
    const t = await now();
    const err = async (q: string, status = 400) => {
      const r = await candles(q);
      expect(r.status, q).toBe(status);
      return r.body.error;
    };
    const range = `start_ms=${t - MIN}&end_ms=${t}`;
    expect(await err(`interval=1m&${range}`)).toMatchObject({ code: 'parameter_missing', param: 'asset_key' });
    expect(await err(`asset_key=${ETH}&${range}`)).toMatchObject({ code: 'parameter_missing', param: 'interval' });
    expect(await err(`asset_key=${ETH}&interval=1m&end_ms=${t}`)).toMatchObject({ code: 'parameter_missing', param: 'start_ms' });
    expect(await err(`asset_key=${ETH}&interval=1m&start_ms=${t}`)).toMatchObject({ code: 'parameter_missing', param: 'end_ms' });
    expect(await err(`asset_key=${ETH}&interval=15m&${range}`)).toMatchObject({ code: 'invalid_enum', param: 'interval' });
    expect(await err(`asset_key=${ETH}&interval=1m&start_ms=abc&end_ms=${t}`)).toMatchObject({
      code: 'invalid_parameter',
      param: 'start_ms',
    });
    expect(await err(`asset_key=${ETH}&interval=1m&start_ms=${t}&end_ms=${t - MIN}`)).toMatchObject({
      code: 'invalid_parameter',
      param: 'end_ms',
    });
    expect(await err(`asset_key=${ETH}&interval=1m&start_ms=${t - 1000 * MIN}&end_ms=${t}`)).toMatchObject({
      code: 'invalid_parameter',
      param: 'end_ms',
    });
    expect(await err(`asset_key=ETH&interval=1m&${range}`)).toMatchObject({ code: 'invalid_asset_key', param: 'asset_key' });
    expect(await err(`asset_key=native.evm:10&interval=1m&${range}`, 404)).toMatchObject({ code: 'asset_not_supported' });
    expect(await err(`asset_key=${BONK}&interval=1m&${range}`, 404)).toMatchObject({ code: 'not_available', param: 'asset_key' });
    expect(await err(`asset_key=${ETH}&symbol=ETH&interval=1m&${range}`)).toMatchObject({ code: 'invalid_parameter', param: 'symbol' });
    // 999 minutes back plus the running one is exactly the cap.
    expect((await candles(`asset_key=${ETH}&interval=1m&start_ms=${t - 999 * MIN}&end_ms=${t}`)).status).toBe(200);
  });

  it('answers an empty list for a range entirely in the future or before history', async () => {
    const t = await now();
    expect(
      (await candles(`asset_key=${ETH}&interval=1h&start_ms=${t + 2 * 60 * MIN}&end_ms=${t + 5 * 60 * MIN}`)).body.series.candles,
    ).toEqual([]);
    expect((await candles(`asset_key=${ETH}&interval=1d&start_ms=0&end_ms=${500 * 24 * 60 * MIN}`)).body.series.candles).toEqual([]);
  });
});
