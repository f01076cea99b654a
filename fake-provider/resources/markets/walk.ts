// USD price arithmetic in scaled BigInt (1e-12 USD units): decimal text in and out, one step of the
// mean-reverting random walk, and candle wicks. Pure functions; the draws come from the caller's stream.
import { ApiError } from '../../contract/errors.ts';
import { atomsToUi, POW10 } from '../../contract/amounts.ts';

/** Scaled prices are integers of 1e-12 USD: `usdPriceScaled` of 3200 USD is 3_200_000_000_000_000n. */
const USD_PRICE_DECIMALS = 12;
export const USD_PRICE_SCALE = 10n ** BigInt(USD_PRICE_DECIMALS);

/** Walked prices keep this many significant digits, like a real feed (set prices are kept as given). */
export const SIGNIFICANT_DIGITS = 10;
const PPM = 1_000_000n;

const USD_DECIMAL = new RegExp(`^(0|[1-9][0-9]{0,14})(?:\\.([0-9]{1,${USD_PRICE_DECIMALS}}))?$`);

/** A positive USD decimal with at most 12 fractional digits and 15 integer digits → scaled BigInt. */
export function parseUsd(text: unknown, param: string): bigint {
  const m = typeof text === 'string' ? USD_DECIMAL.exec(text) : null;
  if (!m) {
    throw new ApiError(
      'invalid_parameter',
      `${param} must be a positive USD decimal string with at most ${USD_PRICE_DECIMALS} fractional digits`,
      { param },
    );
  }
  const scaled = BigInt(m[1] + (m[2] ?? '').padEnd(USD_PRICE_DECIMALS, '0'));
  if (scaled === 0n) throw new ApiError('invalid_parameter', `${param} must be greater than zero`, { param });
  return scaled;
}

export function formatUsd(scaled: bigint): string {
  return atomsToUi(scaled, USD_PRICE_DECIMALS);
}

function digitsOf(x: bigint): number {
  let d = 1;
  while (d < POW10.length && x >= POW10[d]) d++;
  return d;
}

export function roundSignificant(x: bigint, digits = SIGNIFICANT_DIGITS): bigint {
  if (x < POW10[digits]) return x;
  const unit = POW10[digitsOf(x) - digits];
  return ((x + unit / 2n) / unit) * unit;
}

/** One minute of walk: a relative move of `step_ppm`, plus a pull of `reversion_ppm` towards `anchor`. */
export function walkStep(price: bigint, anchor: bigint, step_ppm: number, reversion_ppm: number): bigint {
  const next = price + (price * BigInt(step_ppm)) / PPM + ((anchor - price) * BigInt(reversion_ppm)) / PPM;
  const rounded = roundSignificant(next);
  return rounded < 1n ? 1n : rounded;
}

/** Widens a body's high/low by wick fractions; the result still brackets the body. */
export function wick(high: bigint, low: bigint, hi_ppm: number, lo_ppm: number): { h: bigint; l: bigint } {
  const h = roundSignificant((high * (PPM + BigInt(hi_ppm))) / PPM);
  const l = roundSignificant((low * (PPM - BigInt(lo_ppm))) / PPM);
  return { h: h < high ? high : h, l: l > low ? low : l < 1n ? 1n : l };
}
