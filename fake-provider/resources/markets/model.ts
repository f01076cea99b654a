// Per-world USD markets: one price tape per asset with market data. Prices walk once per sim minute, drawn
// lazily from the asset's own seeded stream when a later minute is read, so nothing is ever scheduled
// (settle stays idle) and a price depends only on the seed, the clock and the prices set, never on reads.
import { defineStore, type World } from '../../world.ts';
import { ApiError } from '../../contract/errors.ts';
import type { Rng } from '../../../sim/index.ts';
import { ASSET_SEQ, ASSETS, requireAsset, type Asset } from '../assets/index.ts';
import { DecimalColumn, PairColumn } from '../../engine/index.ts';
import { formatUsd, parseUsd, roundSignificant, SIGNIFICANT_DIGITS, walkStep, wick } from './walk.ts';

const MINUTE_MS = 60_000;
export const INTERVALS = ['1m', '5m', '1h', '1d'] as const;
type Interval = (typeof INTERVALS)[number];
const INTERVAL_MS: Record<Interval, number> = { '1m': MINUTE_MS, '5m': 5 * MINUTE_MS, '1h': 60 * MINUTE_MS, '1d': 1440 * MINUTE_MS };

/** Prices at whole-minute boundaries going one way from the tape's origin, with each minute's wicks. */
interface Leg {
  rng: Rng;
  /** forward: open.at(i) = price from minute origin + i; past: open.at(i) = price from minute origin - 1 - i. */
  open: DecimalColumn;
  /** The wicks (high, low in ppm) of the minute whose open has the same index (forward: once the minute has finished). */
  wick: PairColumn;
  /** The newest open. */
  last: bigint;
}

interface Tape {
  asset: Asset;
  origin_minute: number;
  /** The walk's reversion target: the last price set (the catalog price until then). */
  anchor: bigint;
  forward: Leg;
  past: Leg;
  /** Minutes of history before the origin (0 for a market opened by a price set). */
  past_minutes: number;
  /** Prices set during a minute, in order; the last one holds until the minute ends. */
  sets: Map<number, bigint[]>;
}

export interface Candle {
  t_ms: number;
  o: bigint;
  h: bigint;
  l: bigint;
  c: bigint;
}

/** Wick fractions are ppm, below a whole. */
const PPM = 1_000_000;
const leg = (rng: Rng, last: bigint): Leg => ({ rng, open: new DecimalColumn(SIGNIFICANT_DIGITS), wick: new PairColumn(PPM), last });
const minuteOf = (t_ms: number): number => Math.floor(t_ms / MINUTE_MS);

/** A set price may carry more digits than a walked one: the tape opens on it rounded, and the set keeps it exact. */
function newTape(world: World, asset: Asset, price: bigint, past_minutes: number): Tape {
  const streams = world.sim.rng.fork('prices');
  const open = roundSignificant(price);
  const tape: Tape = {
    asset,
    origin_minute: minuteOf(world.sim.now_ms()),
    anchor: price,
    forward: leg(streams.fork(asset.asset_key), open),
    past: leg(streams.fork(`${asset.asset_key}/past`), open),
    past_minutes,
    sets: new Map(),
  };
  tape.forward.open.push(open);
  if (open !== price) tape.sets.set(tape.origin_minute, [price]);
  return tape;
}

/** Created at world install, so every catalog tape starts at the world's first minute. */
export const marketStore = defineStore('markets', (world) => {
  const history = Math.floor(world.profile.market_history_ms / MINUTE_MS);
  const tapes = new Map<string, Tape>();
  for (const a of ASSETS) if (a.usd_price !== null) tapes.set(a.asset_key, newTape(world, a, parseUsd(a.usd_price, 'usd_price'), history));
  return { tapes };
});

/** Three draws per minute whatever is read, so a stream's position depends only on minutes walked. */
function drawStep(world: World, asset: Asset, l: Leg, from: bigint, anchor: bigint): void {
  const walk = world.profile.price_walk;
  const max_ppm = (asset.stable ? walk.stable_step_bps_max : walk.step_bps_max) * 100;
  const step_ppm = l.rng.int(-max_ppm, max_ppm);
  l.wick.push(l.rng.int(0, Math.floor(max_ppm / 2)), l.rng.int(0, Math.floor(max_ppm / 2)));
  l.last = walkStep(from, anchor, step_ppm, walk.reversion_ppm);
  l.open.push(l.last);
}

const lastSet = (tape: Tape, minute: number): bigint | undefined => tape.sets.get(minute)?.at(-1);

/** Walks the forward leg up to `minute` (its open price exists afterwards). */
function extendTo(world: World, tape: Tape, minute: number): void {
  const f = tape.forward;
  while (tape.origin_minute + f.open.length - 1 < minute) {
    const m = tape.origin_minute + f.open.length - 1;
    drawStep(world, tape.asset, f, lastSet(tape, m) ?? f.last, tape.anchor);
  }
}

/** Walks the past leg back to `minute` (bounded by the history kept before the origin), reverting to the catalog price. */
function extendBackTo(world: World, tape: Tape, minute: number): void {
  const p = tape.past;
  const want = Math.min(tape.origin_minute - minute, tape.past_minutes);
  const catalog = parseUsd(tape.asset.usd_price ?? '1', 'usd_price');
  while (p.open.length < want) drawStep(world, tape.asset, p, p.last, catalog);
}

function currentScaled(world: World, tape: Tape): bigint {
  const minute = minuteOf(world.sim.now_ms());
  extendTo(world, tape, minute);
  return lastSet(tape, minute) ?? tape.forward.last;
}

/** The current USD price in 1e-12 USD units (see USD_PRICE_SCALE), or null when the asset has no market. */
export function usdPriceScaled(world: World, asset_key: string): bigint | null {
  const tape = marketStore(world).tapes.get(asset_key);
  return tape ? currentScaled(world, tape) : null;
}

/** The current USD price as decimal text, or null when the asset has no market data. */
export function usdPrice(world: World, asset_key: string): string | null {
  const scaled = usdPriceScaled(world, asset_key);
  return scaled === null ? null : formatUsd(scaled);
}

/**
 * Sets USD prices at the current sim time, all or nothing: every key and value is checked first
 * (invalid_asset_key, asset_not_supported, invalid_parameter). The walk continues from each set price.
 * An asset without market data gains a market from now on (with no history before it).
 */
export function setUsdPrices(world: World, prices: Record<string, unknown>): void {
  const parsed = Object.entries(prices).map(([asset_key, usd]) => {
    const asset = requireAsset(asset_key, `prices.${asset_key}`);
    return { asset, price: parseUsd(usd, `prices.${asset_key}`) };
  });
  const { tapes } = marketStore(world);
  const minute = minuteOf(world.sim.now_ms());
  for (const { asset, price } of parsed) {
    let tape = tapes.get(asset.asset_key);
    if (!tape) {
      tape = newTape(world, asset, price, 0);
      tapes.set(asset.asset_key, tape);
      continue;
    }
    // Walk to now first: the stream's position must not depend on whether anyone read in between.
    extendTo(world, tape, minute);
    const list = tape.sets.get(minute) ?? [];
    list.push(price);
    tape.sets.set(minute, list);
    tape.anchor = price;
  }
}

/** Sets one USD price (`"3150.25"`); throws the same errors as the control route. */
export function setUsdPrice(world: World, asset_key: string, usd_decimal: string): void {
  setUsdPrices(world, { [asset_key]: usd_decimal });
}

/** Every current price, in catalog order. */
export function currentPrices(world: World): Record<string, string> {
  const out: Record<string, string> = {};
  for (const tape of marketTapes(world)) out[tape.asset.asset_key] = formatUsd(currentScaled(world, tape));
  return out;
}

function marketTapes(world: World): Tape[] {
  return [...marketStore(world).tapes.values()].sort((a, b) => ASSET_SEQ.get(a.asset.asset_key)! - ASSET_SEQ.get(b.asset.asset_key)!);
}

export function listMarkets(world: World): Asset[] {
  return marketTapes(world).map((t) => t.asset);
}

export function serializeMarket(a: Asset): Record<string, unknown> {
  return { market_id: `${a.asset_key}/USD`, asset_key: a.asset_key, denom: 'USD', intervals: [...INTERVALS] };
}

/**
 * The candle of one minute. A finished minute closes at the next minute's opening price and carries its
 * wicks; the running minute closes at the current price. Null outside the tape (future, before history).
 */
function minuteCandle(tape: Tape, m: number, now_minute: number, now_price: bigint): Candle | null {
  if (m > now_minute || m < tape.origin_minute - tape.past_minutes) return null;
  const set = tape.sets.get(m) ?? [];
  let o: bigint, c: bigint, hi: number, lo: number;
  if (m >= tape.origin_minute) {
    const i = m - tape.origin_minute;
    o = tape.forward.open.at(i);
    if (m === now_minute) {
      const body = [o, ...set];
      return { t_ms: m * MINUTE_MS, o, c: now_price, h: body.reduce(max), l: body.reduce(min) };
    }
    c = tape.forward.open.at(i + 1);
    [hi, lo] = tape.forward.wick.at(i);
  } else {
    const j = tape.origin_minute - 1 - m;
    o = tape.past.open.at(j);
    c = j === 0 ? tape.forward.open.at(0) : tape.past.open.at(j - 1);
    [hi, lo] = tape.past.wick.at(j);
  }
  const body = [o, c, ...set];
  const { h, l } = wick(body.reduce(max), body.reduce(min), hi, lo);
  return { t_ms: m * MINUTE_MS, o, h, l, c };
}

const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

export interface CandleQuery {
  interval: Interval;
  start_ms: number;
  end_ms: number;
}

/**
 * Candles of `interval` whose period overlaps [start_ms, end_ms], aligned to interval boundaries (UTC),
 * only for periods that have begun and that the history reaches. 404 not_available without market data.
 */
export function candles(world: World, asset: Asset, q: CandleQuery): Candle[] {
  if (q.end_ms < q.start_ms) throw new ApiError('invalid_parameter', 'end_ms must not be before start_ms', { param: 'end_ms' });
  const step_ms = INTERVAL_MS[q.interval];
  const first_ms = q.start_ms - (q.start_ms % step_ms);
  const last_ms = q.end_ms - (q.end_ms % step_ms);
  const cap = world.profile.candles_max_per_request;
  if ((last_ms - first_ms) / step_ms + 1 > cap) {
    throw new ApiError('invalid_parameter', `the range spans more than ${cap} ${q.interval} candles; narrow start_ms..end_ms`, {
      param: 'end_ms',
    });
  }
  const tape = marketStore(world).tapes.get(asset.asset_key);
  if (!tape) throw new ApiError('not_available', `no market data for ${asset.asset_key}`, { param: 'asset_key' });
  const now_price = currentScaled(world, tape);
  const now_minute = minuteOf(world.sim.now_ms());
  const per = step_ms / MINUTE_MS;
  const oldest_minute = tape.origin_minute - tape.past_minutes;
  extendBackTo(world, tape, minuteOf(first_ms));
  const out: Candle[] = [];
  for (let t = first_ms; t <= last_ms && minuteOf(t) <= now_minute; t += step_ms) {
    let agg: Candle | null = null;
    for (let m = Math.max(minuteOf(t), oldest_minute); m < minuteOf(t) + per && m <= now_minute; m++) {
      const k = minuteCandle(tape, m, now_minute, now_price);
      if (!k) continue;
      agg = agg ? { t_ms: t, o: agg.o, h: max(agg.h, k.h), l: min(agg.l, k.l), c: k.c } : { ...k, t_ms: t };
    }
    if (agg) out.push(agg);
  }
  return out;
}

export function serializeCandle(k: Candle): Record<string, unknown> {
  return { t_ms: k.t_ms, o: formatUsd(k.o), h: formatUsd(k.h), l: formatUsd(k.l), c: formatUsd(k.c) };
}
