// The packed columns give back exactly what went in (prices with ten significant digits, wick pairs) and
// refuse what they could not give back.
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { DecimalColumn, PairColumn } from './columns.ts';

const tenDigits = fc
  .tuple(fc.bigInt({ min: 0n, max: 9_999_999_999n }), fc.integer({ min: 0, max: 20 }))
  .map(([m, e]) => m * 10n ** BigInt(e));

describe('DecimalColumn', () => {
  test.prop([fc.array(tenDigits, { maxLength: 50 })])('gives back every value pushed', (xs) => {
    const col = new DecimalColumn(10);
    for (const x of xs) col.push(x);
    expect(col.length).toBe(xs.length);
    expect(xs.map((_, i) => col.at(i))).toEqual(xs);
  });

  it('refuses a value with more significant digits, and a negative one', () => {
    const col = new DecimalColumn(10);
    expect(() => col.push(12_345_678_901n)).toThrow(/significant digits/);
    expect(() => col.push(-1n)).toThrow(/significant digits/);
    expect(col.length).toBe(0);
    expect(() => new DecimalColumn(16)).toThrow(/pack exactly/);
  });
});

describe('PairColumn', () => {
  test.prop([fc.array(fc.tuple(fc.nat(999_999), fc.nat(999_999)), { maxLength: 50 })])('gives back every pair pushed', (pairs) => {
    const col = new PairColumn(1_000_000);
    for (const [a, b] of pairs) col.push(a, b);
    expect(pairs.map((_, i) => col.at(i))).toEqual(pairs);
  });

  it('keeps a pair beyond its bound as it is, and refuses what is not a pair of non-negative integers', () => {
    const col = new PairColumn(1_000_000);
    col.push(3, 4);
    col.push(1_000_000, 7);
    col.push(5, 2 ** 40);
    expect([col.at(0), col.at(1), col.at(2)]).toEqual([
      [3, 4],
      [1_000_000, 7],
      [5, 2 ** 40],
    ]);
    expect(() => col.push(0, -1)).toThrow(/not a pair/);
    expect(() => col.push(0.5, 1)).toThrow(/not a pair/);
    expect(col.length).toBe(3);
    expect(() => new PairColumn(2 ** 27)).toThrow(/pack exactly/);
  });
});
