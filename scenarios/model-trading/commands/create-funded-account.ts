// Command: create an account, wait for its wallets, deposit an asset amount through `/_sim/deposits`, and
// let the deposit verify: the account then holds one open credit of that amount.
import type fc from 'fast-check';
import { expect } from 'vitest';
import {
  advance,
  api,
  checkAfterStep,
  creditsOf,
  depositSettleMs,
  FUND_ASSETS,
  LIMITS,
  recognise,
  sourceKey,
  type TradingModel,
  type TradingReal,
} from '../model.ts';

export class CreateFundedAccount implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(
    readonly assetIdx: number,
    readonly usd: number,
  ) {}
  check = (m: Readonly<TradingModel>): boolean => m.accounts.length < LIMITS.accounts;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const asset = FUND_ASSETS[this.assetIdx % FUND_ASSETS.length];
    const created = await api(r, 'POST', '/accounts', { body: { label: `acct-${m.accounts.length}` } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const account_id: string = created.body.account.account_id;
    m.accounts.push({ account_id, deposit_faults: 0 });
    await advance(m, r, 10_000);
    const da = await api(r, 'POST', `/accounts/${account_id}/deposit-addresses`, { body: { asset_key: asset.asset_key } });
    expect(da.status, JSON.stringify(da.body)).toBe(200);
    const atoms = BigInt(this.usd) * asset.atoms_per_usd;
    const dep = await r.sim.control('POST', '/deposits', {
      deposit_address_id: da.body.deposit_address.deposit_address_id,
      atoms: atoms.toString(),
    });
    expect(dep.status, JSON.stringify(dep.body)).toBe(200);
    m.deposits.push({ account_id, tx_hash: dep.body.deposit.tx_hash, asset_key: asset.asset_key, atoms, expect: 'verified' });
    m.credits.set(sourceKey('deposit', dep.body.deposit.tx_hash), { account_id, asset_key: asset.asset_key, atoms, status: 'open' });
    await advance(m, r, depositSettleMs(m.profile, asset.chain, m.org.partner_screening));
    // A new account has no fault rule matched to it yet, so its deposit verifies on time.
    const credits = await creditsOf(r, account_id);
    const credit = credits.find((c) => c.source_type === 'deposit' && c.source_id.toLowerCase() === dep.body.deposit.tx_hash.toLowerCase());
    expect(credit, `no credit for ${dep.body.deposit.tx_hash}: ${JSON.stringify(credits)}`).toBeDefined();
    expect(credit!.atoms).toBe(atoms.toString());
    expect(credit!.asset_key).toBe(asset.asset_key);
    recognise(m, credit!);
    await checkAfterStep(m, r);
  }
  toString = (): string => `createFundedAccount(asset#${this.assetIdx}, ${this.usd} USD)`;
}
