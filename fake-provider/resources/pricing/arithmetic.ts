// The market maker's arithmetic in BigInt: basis-point decimals, the forward price of an input amount
// (gross, fees, net) and its exact inverse (the least input whose net output reaches a target). Pure.
import { atomsToUi, pow10 } from '../../contract/amounts.ts';

/** Basis points carry up to 4 decimals ("12.5"): they are held as integers of 1e-4 bps. */
const BPS_DECIMALS = 4;
/** 10000 bps (the whole amount) in 1e-4 bps units. */
export const WHOLE_BPS_UNITS = 10_000n * 10n ** BigInt(BPS_DECIMALS);

/**
 * Memos of the two pure conversions below (values, not world state): a world's orgs and requests use a
 * handful of fee rates, which every quote, fill check and fee object parsed with a regex and printed
 * anew (and each trade kept its own copies of the same short strings). Bounded: past the bound, values
 * are converted without being kept.
 */
const BPS_MEMO_MAX = 1024;
const unitsByText = new Map<string, bigint>();
const textByUnits = new Map<bigint, string>();

/** "12.5" → 125000n. The caller has validated the text (bpsString); anything else is a programming error. */
export function bpsUnits(text: string): bigint {
  const known = unitsByText.get(text);
  if (known !== undefined) return known;
  const m = /^(0|[1-9][0-9]*)(?:\.([0-9]{1,4}))?$/.exec(text);
  if (!m) throw new Error(`not a basis-point decimal: ${text}`);
  const units = BigInt(m[1] + (m[2] ?? '').padEnd(BPS_DECIMALS, '0'));
  if (unitsByText.size < BPS_MEMO_MAX) unitsByText.set(text, units);
  return units;
}

/** 125000n → "12.5" (trailing zeros dropped, "0" for zero). */
export function formatBps(units: bigint): string {
  const known = textByUnits.get(units);
  if (known !== undefined) return known;
  const text = atomsToUi(units, BPS_DECIMALS);
  if (textByUnits.size < BPS_MEMO_MAX) textByUnits.set(units, text);
  return text;
}

export interface Rate {
  /** USD price of one whole input unit, in 1e-12 USD. */
  from_price_usd_scaled: bigint;
  to_price_usd_scaled: bigint;
  from_decimals: number;
  to_decimals: number;
  /** The market maker's spread, whole bps of the output. */
  spread_bps: number;
}

export interface FeeRates {
  platform_units: bigint;
  integrator_units: bigint;
}

export interface Forward {
  gross_out_atoms: bigint;
  platform_atoms: bigint;
  integrator_atoms: bigint;
  total_atoms: bigint;
  expected_out_atoms: bigint;
}

/** gross_out = floor(amount_in × num / den): the rate as one exact fraction (prices, decimals, spread). */
function rateFraction(rate: Rate): { num: bigint; den: bigint } {
  const spread_units = BigInt(rate.spread_bps) * pow10(BPS_DECIMALS);
  return {
    num: rate.from_price_usd_scaled * pow10(rate.to_decimals) * (WHOLE_BPS_UNITS - spread_units),
    den: rate.to_price_usd_scaled * pow10(rate.from_decimals) * WHOLE_BPS_UNITS,
  };
}

export function grossOut(amount_in_atoms: bigint, rate: Rate): bigint {
  const { num, den } = rateFraction(rate);
  return (amount_in_atoms * num) / den;
}

/** Fees out of a gross output, each rounded down, so platform + integrator = total and net = gross − total exactly. */
export function feesOn(gross_out_atoms: bigint, fees: FeeRates): Omit<Forward, 'gross_out_atoms'> {
  const platform_atoms = (gross_out_atoms * fees.platform_units) / WHOLE_BPS_UNITS;
  const integrator_atoms = (gross_out_atoms * fees.integrator_units) / WHOLE_BPS_UNITS;
  const total_atoms = platform_atoms + integrator_atoms;
  return { platform_atoms, integrator_atoms, total_atoms, expected_out_atoms: gross_out_atoms - total_atoms };
}

export function forward(amount_in_atoms: bigint, rate: Rate, fees: FeeRates): Forward {
  const gross_out_atoms = grossOut(amount_in_atoms, rate);
  return { gross_out_atoms, ...feesOn(gross_out_atoms, fees) };
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/**
 * The least amount_in whose net output is at least `net_out_atoms`, or null when no input reaches it
 * (fees take everything). Net is not monotone in the gross (two fees can round up together), so the
 * search is exact rather than a bisection: a gross G certainly reaches the target from
 * G_hi = ceil(N / keep) upwards and certainly misses at or below (N − 2) / keep, where keep = 1 − fees;
 * each gross in that narrow window is tried at the least input producing it.
 */
export function leastInputFor(net_out_atoms: bigint, rate: Rate, fees: FeeRates): bigint | null {
  if (net_out_atoms <= 0n) return 0n;
  const keep_units = WHOLE_BPS_UNITS - fees.platform_units - fees.integrator_units;
  if (keep_units <= 0n) return null;
  const { num, den } = rateFraction(rate);
  if (num <= 0n) return null;
  // The least input whose gross reaches G: floor(a·num/den) ≥ G ⇔ a ≥ ceil(G·den/num).
  const leastInputForGross = (g: bigint): bigint => ceilDiv(g * den, num);
  const net = (g: bigint): bigint => feesOn(g, fees).expected_out_atoms;
  const g_hi = ceilDiv(net_out_atoms * WHOLE_BPS_UNITS, keep_units);
  let g = net_out_atoms > 2n ? ((net_out_atoms - 2n) * WHOLE_BPS_UNITS) / keep_units : 0n;
  // The window holds about 2 / keep grosses; callers cap the fees (profile max_total_fee_bps) so it stays small.
  if (g_hi - g > 1_000_000n)
    throw new Error(`leastInputFor: fees of ${formatBps(WHOLE_BPS_UNITS - keep_units)} bps leave too narrow a margin`);
  for (; g < g_hi; g++) {
    if (net(g) < net_out_atoms) continue;
    const a = leastInputForGross(g);
    // Inputs jump past some grosses; only an input landing exactly on g has this net. Grosses rise with
    // the input, so the first landing in this ascending scan is the least input.
    if (grossOut(a, rate) === g) return a;
  }
  return leastInputForGross(g_hi);
}
