// Command: a credit-funded zap. Picks an open credit (by index, from GET /credits) and one of the account's
// destinations; zaps a fraction of the credit, with no floor or an unreachable one, and maybe a short expiry.
import type fc from 'fast-check';
import { expect } from 'vitest';
import {
  api,
  checkAfterStep,
  expectHolder,
  expectOutcome,
  LIMITS,
  newOp,
  pickSpend,
  type TradingModel,
  type TradingReal,
} from '../model.ts';

export interface ZapFromCreditArgs {
  accountIdx: number;
  creditIdx: number;
  destinationIdx: number;
  fraction_bps: number;
  /** A floor twice the rough output (min_amount_out_not_met at fill) instead of none. */
  high_floor: boolean;
  /** expires_at_ms this far ahead, or none. */
  expires_in_ms: number | null;
}

const REFUSALS = ['insufficient_liquidity', 'unsupported_pair', 'credit_in_use', 'destination_suspended'] as const;

export class ZapFromCredit implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(readonly a: ZapFromCreditArgs) {}
  check = (m: Readonly<TradingModel>): boolean => m.accounts.length > 0 && m.destinations.length > 0 && m.ops.length < LIMITS.ops;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const pick = await pickSpend(m, r, this.a);
    if (!pick) return checkAfterStep(m, r);
    const { account, credit, dest, from, to, amount_in } = pick;
    const floor = this.a.high_floor ? (amount_in * to.atoms_per_usd * 2n) / from.atoms_per_usd || 1n : 0n;
    const body: Record<string, unknown> = {
      account_id: account.account_id,
      credit_id: credit.credit_id,
      destination_id: dest.destination_id,
      from_asset_key: from.asset_key,
      to_asset_key: to.asset_key,
      amount_in_atoms: amount_in.toString(),
      min_amount_out_atoms: floor.toString(),
    };
    if (this.a.expires_in_ms !== null) body.expires_at_ms = m.now_ms + this.a.expires_in_ms;
    const res = await api(r, 'POST', '/zaps', { body });
    const code = expectOutcome(res, [200], [...REFUSALS, m.profile.size_out_of_bounds_error], 'zap from credit');
    // The destination is checked before the pair and the credit.
    if (dest.suspended) expect(code, JSON.stringify(res.body)).toBe('destination_suspended');
    else expect(code).not.toBe('destination_suspended');
    expectHolder(
      m,
      credit.credit_id,
      code,
      ['destination_suspended', 'unsupported_pair', 'insufficient_liquidity', m.profile.size_out_of_bounds_error],
      'zap from credit',
    );
    if (code === null) {
      expect(res.body.zap.status).toBe('executing');
      expect(res.body.zap.requested_amount_in_atoms).toBe(amount_in.toString());
      // At market: the output is the market's, but never below the floor; a floor or an expiry may fail it.
      const may_fail = ['execution_failed'];
      if (floor > 0n) may_fail.push('min_amount_out_not_met');
      if (this.a.expires_in_ms !== null) may_fail.push('zap_expired');
      const requested = {
        amount_in_atoms: amount_in,
        amount_out_atoms: null,
        min_out_atoms: floor,
        from_asset_key: from.asset_key,
        to_asset_key: to.asset_key,
      };
      m.ops.push(newOp('zap', res.body.zap.zap_id, account.account_id, credit.credit_id, requested, may_fail));
    }
    await checkAfterStep(m, r);
  }
  toString = (): string => `zapFromCredit(${JSON.stringify(this.a)})`;
}
