// Command: register a destination (clean address) for an account, for any tradable output asset.
import type fc from 'fast-check';
import { expect } from 'vitest';
import { api, checkAfterStep, LIMITS, sourceAddressFor, TRADE_ASSETS, type TradingModel, type TradingReal } from '../model.ts';

export class RegisterDestination implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(
    readonly accountIdx: number,
    readonly assetIdx: number,
  ) {}
  check = (m: Readonly<TradingModel>): boolean => m.accounts.length > 0 && m.destinations.length < LIMITS.destinations;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const account = m.accounts[this.accountIdx % m.accounts.length];
    const asset = TRADE_ASSETS[this.assetIdx % TRADE_ASSETS.length];
    const address = sourceAddressFor(asset.chain, 20_000 + ++m.addresses);
    const res = await api(r, 'POST', `/accounts/${account.account_id}/destinations`, { body: { asset_key: asset.asset_key, address } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.destination.asset_key).toBe(asset.asset_key);
    m.destinations.push({
      destination_id: res.body.destination.destination_id,
      account_id: account.account_id,
      asset_key: asset.asset_key,
      suspended: false,
    });
    await checkAfterStep(m, r);
  }
  toString = (): string => `registerDestination(account#${this.accountIdx}, asset#${this.assetIdx})`;
}
