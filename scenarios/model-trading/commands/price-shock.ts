// Command: move one asset's USD price by up to ±10 % (PUT /_sim/market/prices): trades between quote and
// fill re-price against their slippage, zaps against their floor.
import type fc from 'fast-check';
import { expect } from 'vitest';
import { checkAfterStep, FUND_ASSETS, type TradingModel, type TradingReal } from '../model.ts';

/** A USD decimal times (10000 + bps) / 10000, kept at the input's fractional digits (exact, no float). */
function shockedPrice(usd: string, bps: number): string {
  const [whole, frac = ''] = usd.split('.');
  const scaled = (BigInt(whole + frac) * BigInt(10_000 + bps)) / 10_000n;
  const digits = scaled.toString().padStart(frac.length + 1, '0');
  const out = frac.length ? `${digits.slice(0, digits.length - frac.length)}.${digits.slice(digits.length - frac.length)}` : digits;
  return scaled === 0n ? usd : out;
}

export class PriceShock implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(
    readonly assetIdx: number,
    readonly bps: number,
  ) {}
  check = (): boolean => true;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const asset = FUND_ASSETS[this.assetIdx % FUND_ASSETS.length];
    const now = await r.sim.control('GET', '/market/prices');
    expect(now.status, JSON.stringify(now.body)).toBe(200);
    const price = shockedPrice(now.body.prices[asset.asset_key], this.bps);
    const res = await r.sim.control('PUT', '/market/prices', { prices: { [asset.asset_key]: price } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await checkAfterStep(m, r);
  }
  toString = (): string => `priceShock(asset#${this.assetIdx}, ${this.bps > 0 ? '+' : ''}${this.bps} bps)`;
}
