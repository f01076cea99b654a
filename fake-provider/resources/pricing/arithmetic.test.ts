// The market maker's BigInt arithmetic: bps decimals, forward pricing across 18/6/8-decimal assets for
// tiny and huge amounts, exact fee splits, and the exact_out inverse (least input, checked by brute force).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bpsUnits, feesOn, formatBps, forward, grossOut, leastInputFor, WHOLE_BPS_UNITS, type FeeRates, type Rate } from './arithmetic.ts';

const USD = 10n ** 12n;
const ETH_USDC: Rate = {
  from_price_usd_scaled: 3200n * USD,
  to_price_usd_scaled: 1n * USD,
  from_decimals: 18,
  to_decimals: 6,
  spread_bps: 20,
};
const USDC_ETH: Rate = {
  from_price_usd_scaled: 1n * USD,
  to_price_usd_scaled: 3200n * USD,
  from_decimals: 6,
  to_decimals: 18,
  spread_bps: 20,
};
const BTC_ETH: Rate = {
  from_price_usd_scaled: 95_000n * USD,
  to_price_usd_scaled: 3200n * USD,
  from_decimals: 8,
  to_decimals: 18,
  spread_bps: 5,
};
const fees = (platform: string, integrator: string): FeeRates => ({
  platform_units: bpsUnits(platform),
  integrator_units: bpsUnits(integrator),
});

describe('basis points', () => {
  it('parses up to four decimals into 1e-4 bps units and prints them back trimmed', () => {
    expect(bpsUnits('0')).toBe(0n);
    expect(bpsUnits('10')).toBe(100_000n);
    expect(bpsUnits('12.5')).toBe(125_000n);
    expect(bpsUnits('0.0001')).toBe(1n);
    expect(bpsUnits('10000')).toBe(WHOLE_BPS_UNITS);
    expect(formatBps(125_000n)).toBe('12.5');
    expect(formatBps(bpsUnits('12.50'))).toBe('12.5');
    expect(formatBps(0n)).toBe('0');
    expect(formatBps(bpsUnits('10') + bpsUnits('2.5'))).toBe('12.5');
    expect(() => bpsUnits('1.23456')).toThrow();
  });
});

describe('forward pricing', () => {
  it('1 ETH (18 decimals) → USDC (6 decimals) at 3200 less 20 bps spread, fees floored', () => {
    const f = forward(10n ** 18n, ETH_USDC, fees('10', '12.5'));
    expect(f.gross_out_atoms).toBe(3_193_600_000n); // 3200 × 0.998 USDC
    expect(f.platform_atoms).toBe(3_193_600n);
    expect(f.integrator_atoms).toBe(3_992_000n);
    expect(f.total_atoms).toBe(7_185_600n);
    expect(f.expected_out_atoms).toBe(3_186_414_400n);
  });

  it('1 wei of ETH rounds down to 0 USDC atoms; 1 USDC atom buys ~3.1e8 wei exactly', () => {
    expect(grossOut(1n, ETH_USDC)).toBe(0n);
    // 1e-6 USD / 3200 USD × 1e18 × 0.998 = 311875000 wei (exact: no rounding needed)
    expect(grossOut(1n, USDC_ETH)).toBe(311_875_000n);
  });

  it('stays exact for huge amounts (78-digit inputs) without overflow or floats', () => {
    const huge = 10n ** 77n;
    const g = grossOut(huge, ETH_USDC);
    expect(g).toBe((huge * 3200n * 998n) / (10n ** 12n * 1000n));
    const f = forward(huge, ETH_USDC, fees('10', '0.0001'));
    expect(f.platform_atoms + f.integrator_atoms).toBe(f.total_atoms);
    expect(f.gross_out_atoms - f.total_atoms).toBe(f.expected_out_atoms);
  });

  it('8-decimal BTC → 18-decimal ETH keeps every digit', () => {
    // 1 BTC = 95000/3200 ETH = 29.6875 ETH, less 5 bps
    expect(grossOut(10n ** 8n, BTC_ETH)).toBe((296_875n * 10n ** 14n * 9995n) / 10_000n);
  });

  it('fees on any gross: platform + integrator = total and net = gross − total, each fee ≤ its exact share', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 40n }),
        fc.integer({ min: 0, max: 5_000_0000 }),
        fc.integer({ min: 0, max: 5_000_0000 }),
        (g, p, i) => {
          const rates = { platform_units: BigInt(p), integrator_units: BigInt(i) };
          const f = feesOn(g, rates);
          expect(f.platform_atoms + f.integrator_atoms).toBe(f.total_atoms);
          expect(g - f.total_atoms).toBe(f.expected_out_atoms);
          expect(f.platform_atoms * WHOLE_BPS_UNITS <= g * rates.platform_units).toBe(true);
          expect((f.platform_atoms + 1n) * WHOLE_BPS_UNITS > g * rates.platform_units).toBe(true);
        },
      ),
    );
  });
});

describe('leastInputFor (exact_out)', () => {
  const net = (a: bigint, rate: Rate, r: FeeRates): bigint => forward(a, rate, r).expected_out_atoms;

  it('finds the least input reaching 1000 USDC net from ETH, and one wei less falls short', () => {
    const r = fees('10', '12.5');
    const want = 1_000_000_000n;
    const a = leastInputFor(want, ETH_USDC, r)!;
    expect(net(a, ETH_USDC, r)).toBeGreaterThanOrEqual(want);
    expect(net(a - 1n, ETH_USDC, r)).toBeLessThan(want);
  });

  it('is the true minimum (brute force) across decimals, spreads and fees, though net is not monotone in gross', () => {
    const rate = fc.record({
      from_price_usd_scaled: fc.bigInt({ min: 1n, max: 10n ** 6n }),
      to_price_usd_scaled: fc.bigInt({ min: 1n, max: 10n ** 6n }),
      from_decimals: fc.integer({ min: 0, max: 3 }),
      to_decimals: fc.integer({ min: 0, max: 3 }),
      spread_bps: fc.integer({ min: 0, max: 300 }),
    });
    const rates = fc.record({
      platform_units: fc.bigInt({ min: 0n, max: 3_000_0000n }),
      integrator_units: fc.bigInt({ min: 0n, max: 2_000_0000n }),
    });
    fc.assert(
      fc.property(rate, rates, fc.bigInt({ min: 1n, max: 300n }), (rt, fr, want) => {
        const a = leastInputFor(want, rt, fr);
        expect(a).not.toBeNull();
        expect(net(a!, rt, fr)).toBeGreaterThanOrEqual(want);
        let smaller: bigint | null = null;
        for (let x = 0n; x < a! && x < 2_000n && smaller === null; x++) if (net(x, rt, fr) >= want) smaller = x;
        expect(smaller).toBeNull();
        // beyond the brute-force range, the window argument bounds the search: the input just below still misses
        if (a! > 0n) expect(net(a! - 1n, rt, fr)).toBeLessThan(want);
      }),
      { numRuns: 300 },
    );
  });

  it('handles the non-monotone corner: two fees rounding up on the same atom', () => {
    // 25% + 25%: net(g) dips when both floors step up on the same atom
    const r = { platform_units: 2_500_0000n, integrator_units: 2_500_0000n };
    const unit: Rate = { from_price_usd_scaled: 1n, to_price_usd_scaled: 1n, from_decimals: 0, to_decimals: 0, spread_bps: 0 };
    const seq = [1n, 2n, 3n, 4n, 5n].map((g) => feesOn(g, r).expected_out_atoms);
    expect(seq).toEqual([1n, 2n, 3n, 2n, 3n]); // 4 atoms gross keep 2 (1 + 1 in fees): not monotone
    expect(leastInputFor(3n, unit, r)).toBe(3n);
  });

  it('huge targets and 6 → 18 decimals stay exact', () => {
    const r = fees('10', '0');
    const want = 25n * 10n ** 18n; // 25 ETH net
    const a = leastInputFor(want, USDC_ETH, r)!;
    expect(net(a, USDC_ETH, r)).toBeGreaterThanOrEqual(want);
    expect(net(a - 1n, USDC_ETH, r)).toBeLessThan(want);
  });

  it('returns null when fees take the whole output, and 0 for a zero target', () => {
    expect(leastInputFor(5n, ETH_USDC, fees('6000', '4000'))).toBeNull();
    expect(leastInputFor(0n, ETH_USDC, fees('10', '0'))).toBe(0n);
  });
});
