// Command: cancel an open credit (by index, from GET /credits) to one of the account's destinations of the
// credit's asset. Skipped when the account has no such destination.
import type fc from 'fast-check';
import { expect } from 'vitest';
import {
  api,
  checkAfterStep,
  creditsOf,
  expectHolder,
  expectOutcome,
  LIMITS,
  newOp,
  recognise,
  type TradingModel,
  type TradingReal,
} from '../model.ts';

export class Cancel implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(
    readonly accountIdx: number,
    readonly creditIdx: number,
    readonly destinationIdx: number,
  ) {}
  check = (m: Readonly<TradingModel>): boolean => m.accounts.length > 0 && m.destinations.length > 0 && m.ops.length < LIMITS.ops;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const account = m.accounts[this.accountIdx % m.accounts.length];
    const credits = await creditsOf(r, account.account_id);
    for (const c of credits) recognise(m, c);
    if (credits.length === 0) return checkAfterStep(m, r);
    const credit = credits[this.creditIdx % credits.length];
    const fits = m.destinations.filter((d) => d.account_id === account.account_id && d.asset_key === credit.asset_key);
    if (fits.length === 0) return checkAfterStep(m, r);
    const dest = fits[this.destinationIdx % fits.length];
    const res = await api(r, 'POST', '/cancels', {
      body: { account_id: account.account_id, credit_id: credit.credit_id, destination_id: dest.destination_id },
    });
    // The credit is checked before the destination: a locked credit answers credit_in_use even to a suspended destination.
    const code = expectOutcome(res, [200], dest.suspended ? ['credit_in_use', 'destination_suspended'] : ['credit_in_use'], 'cancel');
    expectHolder(m, credit.credit_id, code, [], 'cancel');
    if (code === null) {
      expect(res.body.cancel.status).toBe('pending');
      expect(res.body.cancel.credit_id).toBe(credit.credit_id);
      const whole = {
        amount_in_atoms: BigInt(credit.atoms),
        amount_out_atoms: null,
        min_out_atoms: 0n,
        from_asset_key: credit.asset_key,
        to_asset_key: null,
      };
      m.ops.push(newOp('cancel', res.body.cancel.cancel_id, account.account_id, credit.credit_id, whole, []));
    }
    await checkAfterStep(m, r);
  }
  toString = (): string => `cancel(account#${this.accountIdx}, credit#${this.creditIdx}, destination#${this.destinationIdx})`;
}
