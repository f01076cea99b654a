// Command: ask for a deposit address. The model predicts the answer: 200 once the chain's wallet exists
// (account.wallet_created), 404 not_available before.
import type fc from 'fast-check';
import { expect } from 'vitest';
import { ASSETS } from '../../../fake-provider/resources/assets/catalog.ts';
import { WALLET_CHAINS } from '../../../fake-provider/resources/accounts/wallets.ts';
import { DEFAULT_PROFILE } from '../../../fake-provider/profile.ts';
import { checkAfterStep, LIMITS, type CoreModel, type CoreReal } from '../model.ts';

export class OpenDepositAddress implements fc.AsyncCommand<CoreModel, CoreReal> {
  constructor(
    readonly accountIdx: number,
    readonly assetIdx: number,
  ) {}
  check = (m: Readonly<CoreModel>): boolean => m.accounts.length > 0 && m.addresses.length < LIMITS.addresses;
  async run(m: CoreModel, r: CoreReal): Promise<void> {
    const account = m.accounts[this.accountIdx % m.accounts.length];
    const asset = ASSETS[this.assetIdx % ASSETS.length];
    const ready_at_ms = account.created_at_ms + DEFAULT_PROFILE.wallet_derivation_ms + WALLET_CHAINS.indexOf(asset.chain) * 250;
    const res = await r.sim.api('POST', `/accounts/${account.account_id}/deposit-addresses`, { body: { asset_key: asset.asset_key } });
    if (m.now_ms >= ready_at_ms) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.deposit_address.asset_key).toBe(asset.asset_key);
      m.addresses.push({
        deposit_address_id: res.body.deposit_address.deposit_address_id,
        account_id: account.account_id,
        asset_key: asset.asset_key,
        chain: asset.chain,
        opened_at_ms: m.now_ms,
      });
    } else {
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      expect(res.body.error.code).toBe('not_available');
    }
    await checkAfterStep(m, r);
  }
  toString = (): string => `openDepositAddress(account#${this.accountIdx}, asset#${this.assetIdx})`;
}
