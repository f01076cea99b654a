// Paired rounds (pairs.ts): the read is measured next to raw and express in every round, the order flips every
// other round, and a ratio is the median of the rounds' own ratios (not the ratio of medians), with its spread.
import { describe, expect, it } from 'vitest';
import { pairedRatios, quantile, roundOrder, spreadOf } from './pairs.ts';

describe('roundOrder', () => {
  it('measures the read between raw and express, and reverses every other round', () => {
    const cases = ['raw', 'fastify', 'express', 'read'];
    expect(roundOrder(cases, 0)).toEqual(['raw', 'read', 'express', 'fastify']);
    expect(roundOrder(cases, 1)).toEqual(['fastify', 'express', 'read', 'raw']);
    expect(roundOrder(cases, 2)).toEqual(roundOrder(cases, 0));
    expect(roundOrder(['read', 'raw'], 0)).toEqual(['raw', 'read']);
    expect(roundOrder(['read', 'raw'], 1)).toEqual(['read', 'raw']);
  });
  it('keeps every case once and does not change its input', () => {
    const cases = ['read-fixed', 'mixed', 'raw', 'replay', 'raw-fixed', 'read', 'express', 'fastify'];
    const copy = [...cases];
    for (const r of [0, 1]) expect([...roundOrder(cases, r)].sort()).toEqual([...cases].sort());
    expect(cases).toEqual(copy);
  });
});

describe('pairedRatios', () => {
  it('takes each ratio within a round and reports the median and spread of those', () => {
    // Raw and the read move together from round to round (the machine's state); their ratio barely does.
    const rounds = [
      { raw: 40_000, read: 20_000 },
      { raw: 20_000, read: 10_400 },
      { raw: 30_000, read: 14_400 },
      { raw: 24_000, read: 12_000 },
    ];
    const r = pairedRatios(rounds, ['read/raw'])['read/raw'];
    expect(r.per_round).toEqual([0.5, 0.52, 0.48, 0.5]);
    expect(r.median).toBe(0.5);
    expect(r.min).toBe(0.48);
    expect(r.max).toBe(0.52);
    expect(r.q1).toBe(0.495);
    expect(r.q3).toBe(0.505);
    expect(r.n).toBe(4);
    // The ratio of the medians (13,200 / 27,000) is not what is reported.
    expect(r.median).not.toBeCloseTo(13_200 / 27_000, 3);
  });
  it('skips rounds missing a side or with a zero base, and keys with no round at all', () => {
    const r = pairedRatios([{ raw: 10, read: 5 }, { read: 7 }, { raw: 0, read: 3 }], ['read/raw', 'read/express']);
    expect(r['read/raw'].per_round).toEqual([0.5]);
    expect(r['read/express']).toBeUndefined();
  });
});

describe('quantile and spreadOf', () => {
  it('interpolates between closest ranks', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([1, 2, 3], 0.5)).toBe(2);
    expect(quantile([1, 2, 3, 4, 5], 0.25)).toBe(2);
    expect(quantile([7], 0.75)).toBe(7);
    expect(spreadOf([])).toBeUndefined();
  });
});
