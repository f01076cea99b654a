// The price arithmetic: decimal parsing and printing at the 1e-12 USD scale, significant-digit rounding,
// the mean-reverting step, and wicks that always bracket the candle body.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../contract/errors.ts';
import { formatUsd, parseUsd, roundSignificant, USD_PRICE_SCALE, walkStep, wick } from './walk.ts';

describe('USD decimals', () => {
  it('parses to 1e-12 units and prints back the same text', () => {
    expect(parseUsd('3200', 'p')).toBe(3200n * USD_PRICE_SCALE);
    expect(parseUsd('0.000000000001', 'p')).toBe(1n);
    expect(formatUsd(parseUsd('0.45', 'p'))).toBe('0.45');
    expect(formatUsd(parseUsd('95000.123456789012', 'p'))).toBe('95000.123456789012');
  });

  it.each(['0', '0.0', '-1', '1e3', '01', '1.', '.5', '0.0000000000001', '1234567890123456', '', ' 1', 'NaN'])(
    'refuses %j with invalid_parameter',
    (text) => {
      expect(() => parseUsd(text, 'prices.x')).toThrow(ApiError);
      try {
        parseUsd(text, 'prices.x');
      } catch (e) {
        expect((e as ApiError).code).toBe('invalid_parameter');
        expect((e as ApiError).param).toBe('prices.x');
      }
    },
  );

  it('refuses non-strings', () => {
    expect(() => parseUsd(1, 'p')).toThrow(ApiError);
    expect(() => parseUsd(null, 'p')).toThrow(ApiError);
  });
});

describe('walk', () => {
  it('rounds to ten significant digits, half up', () => {
    expect(roundSignificant(123_456_789_049n)).toBe(123_456_789_000n);
    expect(roundSignificant(123_456_789_050n)).toBe(123_456_789_100n);
    expect(roundSignificant(999n)).toBe(999n);
  });

  it('moves by the step and pulls towards the anchor', () => {
    const p = 1000n * USD_PRICE_SCALE;
    expect(walkStep(p, p, 5_000, 10_000)).toBe(1005n * USD_PRICE_SCALE);
    expect(walkStep(p, p, -5_000, 10_000)).toBe(995n * USD_PRICE_SCALE);
    expect(walkStep(p, 2n * p, 0, 10_000)).toBe(1010n * USD_PRICE_SCALE);
    expect(walkStep(1n, 1n, -5_000, 10_000)).toBe(1n);
  });

  it('wicks bracket the body whatever the draws', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 27n }),
        fc.bigInt({ min: 0n, max: 10n ** 20n }),
        fc.nat(2_500),
        fc.nat(2_500),
        (low, extra, hi, lo) => {
          const high = low + extra;
          const w = wick(high, low, hi, lo);
          expect(w.h >= high).toBe(true);
          expect(w.l <= low).toBe(true);
          expect(w.l >= 1n).toBe(true);
        },
      ),
    );
  });
});
