// Paired, interleaved rounds: the order the bench measures its cases in each round (the read next to the two
// baselines its targets name, the order reversed every other round), and each ratio taken within a round and
// summarized over rounds (median and spread), so both sides of a ratio saw the same minute of the machine.

/**
 * Baselines first, the read between raw and express so both of its target pairs are measured back to back (and
 * the read of a base checkout, when measured, right after the read).
 */
export const PAIR_ORDER = ['raw', 'read', 'read-base', 'express', 'fastify', 'replay', 'mixed', 'raw-fixed', 'read-fixed'] as const;

/**
 * The cases of round `round` (0-based) in measuring order: PAIR_ORDER's order, reversed on odd rounds, so
 * neither side of a pair is always measured first (a machine getting busier or quieter over the round, or
 * whatever the previous case left behind, weighs on each side alike over two rounds).
 */
export function roundOrder<T extends string>(cases: readonly T[], round: number): T[] {
  const rank = (id: T): number => {
    const i = (PAIR_ORDER as readonly string[]).indexOf(id);
    return i === -1 ? PAIR_ORDER.length : i;
  };
  const order = [...cases].sort((a, b) => rank(a) - rank(b));
  return round % 2 === 1 ? order.reverse() : order;
}

/** A ratio measured once per round, summarized. */
export interface RatioSpread {
  median: number;
  min: number;
  max: number;
  /** Quartiles (linear interpolation between closest ranks), the IQR's ends. */
  q1: number;
  q3: number;
  /** Rounds with both sides measured. */
  n: number;
  /** Each round's ratio, in round order. */
  per_round: number[];
}

/** The q-quantile of ascending values, interpolated linearly between closest ranks (q = 0.5: the median). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

const round3 = (x: number): number => Number(x.toFixed(3));

/** One ratio's per-round values summarized; undefined when no round measured both sides. */
export function spreadOf(per_round: number[]): RatioSpread | undefined {
  if (per_round.length === 0) return undefined;
  const s = [...per_round].sort((a, b) => a - b);
  return {
    median: round3(quantile(s, 0.5)),
    min: round3(s[0]),
    max: round3(s[s.length - 1]),
    q1: round3(quantile(s, 0.25)),
    q3: round3(quantile(s, 0.75)),
    n: s.length,
    per_round: per_round.map(round3),
  };
}

/**
 * For each `x/base` of `keys`, the ratio of x's req/s to base's **within each round**, summarized over rounds.
 * `rounds[r][id]` is case id's req/s in round r; a round missing either side (or with base at 0) is skipped.
 */
export function pairedRatios(rounds: ReadonlyArray<Partial<Record<string, number>>>, keys: readonly string[]): Record<string, RatioSpread> {
  const out: Record<string, RatioSpread> = {};
  for (const key of keys) {
    const [x, base] = key.split('/');
    const per_round: number[] = [];
    for (const r of rounds) {
      const a = r[x];
      const b = r[base];
      if (a !== undefined && b !== undefined && b > 0) per_round.push(a / b);
    }
    const spread = spreadOf(per_round);
    if (spread) out[key] = spread;
  }
  return out;
}

/** "0.52 (IQR 0.49–0.55, min–max 0.45–0.60, 10 rounds)". */
export const describeSpread = (s: RatioSpread): string =>
  `${s.median.toFixed(2)} (IQR ${s.q1.toFixed(2)}–${s.q3.toFixed(2)}, min–max ${s.min.toFixed(2)}–${s.max.toFixed(2)}, ${s.n} round${s.n === 1 ? '' : 's'})`;
