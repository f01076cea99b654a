// Growable columns of numbers a store keeps by the million (a year of minutes of prices per asset): each
// value packed exactly into one double, so a long column is a flat number array rather than an array of
// BigInts or of small arrays. What goes in comes out, exactly; a value that would not is refused.
import { COPY } from './copy.ts';

/** 10^i as BigInt, for i up to 40: the exponents a packed decimal can carry. */
const POW10: readonly bigint[] = Array.from({ length: 41 }, (_, i) => 10n ** BigInt(i));

/** Exponents fit below this (mantissa × 64 + exponent). */
const EXPONENTS = 64;

function digitsOf(x: bigint): number {
  let d = 1;
  while (d < POW10.length && x >= POW10[d]) d++;
  return d;
}

/**
 * Non-negative BigInts of at most `significant` significant digits (walked prices: ten), each packed exactly
 * into one double as mantissa × 64 + exponent. `significant` must keep the mantissa exact (at most 13 digits).
 */
export class DecimalColumn {
  #values: number[] = [];
  readonly #significant: number;

  /** Its copy (a world's snapshot, copy.ts). */
  [COPY](): DecimalColumn {
    const out = new DecimalColumn(this.#significant);
    out.#values = this.#values.slice();
    return out;
  }

  constructor(significant: number) {
    if (!Number.isInteger(significant) || significant < 1 || 10 ** significant * EXPONENTS > Number.MAX_SAFE_INTEGER) {
      throw new Error(`DecimalColumn: ${significant} significant digits do not pack exactly`);
    }
    this.#significant = significant;
  }

  get length(): number {
    return this.#values.length;
  }

  push(x: bigint): void {
    const exp = Math.max(0, digitsOf(x) - this.#significant);
    if (x < 0n || x % POW10[exp] !== 0n) throw new Error(`DecimalColumn: ${x} has more than ${this.#significant} significant digits`);
    this.#values.push(Number(x / POW10[exp]) * EXPONENTS + exp);
  }

  at(i: number): bigint {
    const v = this.#values[i];
    const exp = v % EXPONENTS;
    return BigInt((v - exp) / EXPONENTS) * POW10[exp];
  }
}

/**
 * Pairs of non-negative integers, each pair below `bound` packed exactly into one double (candle wicks: two
 * ppm fractions); a pair beyond it (a profile walking prices by more than 200% a minute) is kept aside as it is.
 */
export class PairColumn {
  #values: number[] = [];
  readonly #bound: number;
  /** Pairs that do not pack, by index (their slot holds NaN). */
  #wide: Map<number, [number, number]> | undefined;

  /** Its copy (a world's snapshot, copy.ts); a wide pair is never changed, so the copy shares it. */
  [COPY](): PairColumn {
    const out = new PairColumn(this.#bound);
    out.#values = this.#values.slice();
    out.#wide = this.#wide === undefined ? undefined : new Map(this.#wide);
    return out;
  }

  constructor(bound: number) {
    if (!Number.isInteger(bound) || bound < 1 || bound * bound > Number.MAX_SAFE_INTEGER)
      throw new Error(`PairColumn: pairs below ${bound} do not pack exactly`);
    this.#bound = bound;
  }

  get length(): number {
    return this.#values.length;
  }

  push(a: number, b: number): void {
    const n = this.#bound;
    if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b) || a < 0 || b < 0)
      throw new Error(`PairColumn: (${a}, ${b}) is not a pair of non-negative integers`);
    if (a < n && b < n) {
      this.#values.push(a * n + b);
      return;
    }
    (this.#wide ??= new Map()).set(this.#values.length, [a, b]);
    this.#values.push(Number.NaN);
  }

  at(i: number): [number, number] {
    const v = this.#values[i];
    if (Number.isNaN(v)) {
      const [a, b] = this.#wide!.get(i)!;
      return [a, b];
    }
    return [Math.floor(v / this.#bound), v % this.#bound];
  }
}
