// Command: an on-chain transfer lands on a fresh deposit address of an existing account, from a clean or a
// screening-flagged source. It resolves on the sim clock (verified → a credit; flagged → none).
import type fc from 'fast-check';
import { expect } from 'vitest';
import { api, checkAfterStep, FUND_ASSETS, sourceAddressFor, type TradingModel, type TradingReal } from '../model.ts';

export class Deposit implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(
    readonly accountIdx: number,
    readonly assetIdx: number,
    readonly usd: number,
    readonly flagged: boolean,
  ) {}
  check = (m: Readonly<TradingModel>): boolean => m.accounts.length > 0;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const account = m.accounts[this.accountIdx % m.accounts.length];
    const asset = FUND_ASSETS[this.assetIdx % FUND_ASSETS.length];
    const da = await api(r, 'POST', `/accounts/${account.account_id}/deposit-addresses`, { body: { asset_key: asset.asset_key } });
    expect(da.status, JSON.stringify(da.body)).toBe(200);
    const body: Record<string, unknown> = {
      deposit_address_id: da.body.deposit_address.deposit_address_id,
      atoms: (BigInt(this.usd) * asset.atoms_per_usd).toString(),
    };
    if (this.flagged) {
      const source = sourceAddressFor(asset.chain, 30_000 + ++m.addresses);
      const flag = await r.sim.control('POST', '/screening/addresses', { address: source, flag_reason: 'mixer_association' });
      expect(flag.status, JSON.stringify(flag.body)).toBe(200);
      body.source_address = source;
    }
    const res = await r.sim.control('POST', '/deposits', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected = account.deposit_faults > 0 ? 'uncertain' : this.flagged ? 'flagged' : 'verified';
    m.deposits.push({
      account_id: account.account_id,
      tx_hash: res.body.deposit.tx_hash,
      asset_key: asset.asset_key,
      atoms: BigInt(body.atoms as string),
      expect: expected,
    });
    await checkAfterStep(m, r);
  }
  toString = (): string =>
    `deposit(account#${this.accountIdx}, asset#${this.assetIdx}, ${this.usd} USD, ${this.flagged ? 'flagged' : 'clean'})`;
}
