// Command: register a destination for an account (screened at registration; these sources are clean).
import type fc from 'fast-check';
import { expect } from 'vitest';
import { ASSETS } from '../../../fake-provider/resources/assets/catalog.ts';
import { checkAfterStep, LIMITS, type CoreModel, type CoreReal } from '../model.ts';
import { sourceAddressFor } from './addresses.ts';

export class RegisterDestination implements fc.AsyncCommand<CoreModel, CoreReal> {
  constructor(
    readonly accountIdx: number,
    readonly assetIdx: number,
  ) {}
  check = (m: Readonly<CoreModel>): boolean => m.accounts.length > 0 && m.destinations.length < LIMITS.destinations;
  async run(m: CoreModel, r: CoreReal): Promise<void> {
    const account = m.accounts[this.accountIdx % m.accounts.length];
    const asset = ASSETS[this.assetIdx % ASSETS.length];
    const address = sourceAddressFor(asset.chain, 10_000 + m.destinations.length);
    const res = await r.sim.api('POST', `/accounts/${account.account_id}/destinations`, { body: { asset_key: asset.asset_key, address } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.destination.suspended_at_ms).toBeNull();
    m.destinations.push({ destination_id: res.body.destination.destination_id, account_id: account.account_id, suspended: false });
    await checkAfterStep(m, r);
  }
  toString = (): string => `registerDestination(account#${this.accountIdx}, asset#${this.assetIdx})`;
}
