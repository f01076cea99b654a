// Command: an on-chain transfer lands on a deposit address, from a clean or a screening-flagged source.
import type fc from 'fast-check';
import { expect } from 'vitest';
import { DEFAULT_PROFILE } from '../../../fake-provider/profile.ts';
import { checkAfterStep, LIMITS, type CoreModel, type CoreReal } from '../model.ts';
import { sourceAddressFor } from './addresses.ts';

export class Deposit implements fc.AsyncCommand<CoreModel, CoreReal> {
  constructor(
    readonly addressIdx: number,
    readonly atoms: bigint,
    readonly flagged: boolean,
  ) {}
  check = (m: Readonly<CoreModel>): boolean => m.addresses.length > 0 && m.deposits.length < LIMITS.deposits;
  async run(m: CoreModel, r: CoreReal): Promise<void> {
    const address = m.addresses[this.addressIdx % m.addresses.length];
    const body: Record<string, unknown> = { deposit_address_id: address.deposit_address_id, atoms: this.atoms.toString() };
    if (this.flagged) {
      const source = sourceAddressFor(address.chain, ++m.flagged_sources);
      const flag = await r.sim.control('POST', '/screening/addresses', { address: source, flag_reason: 'high_risk_score' });
      expect(flag.status).toBe(200);
      body.source_address = source;
    }
    const res = await r.sim.control('POST', '/deposits', body);
    // An address is monitored for deposit_address_ttl_ms after it was opened; past that nothing lands on it.
    if (m.now_ms >= address.opened_at_ms + DEFAULT_PROFILE.deposit_address_ttl_ms) {
      expect(
        [res.status, res.body.error?.code],
        `deposit to ${address.deposit_address_id}, opened ${m.now_ms - address.opened_at_ms} ms ago`,
      ).toEqual([409, 'deposit_window_closed']);
      return checkAfterStep(m, r);
    }
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    m.deposits.push({ account_id: address.account_id, asset_key: address.asset_key, atoms: this.atoms, flagged: this.flagged });
    await checkAfterStep(m, r);
  }
  toString = (): string => `deposit(address#${this.addressIdx}, ${this.atoms}n, ${this.flagged ? 'flagged' : 'clean'})`;
}
