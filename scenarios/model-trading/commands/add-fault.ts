// Command: a fault rule, times 1, matched to one of the model's accounts: a failure code valid for the
// target (FAIL_CODES), a reorg of a settled leg (trades, zaps), or a delay.
import type fc from 'fast-check';
import { expect } from 'vitest';
import { FAIL_CODES } from '../../../fake-provider/control/faults.ts';
import { checkAfterStep, LIMITS, type TradingModel, type TradingReal } from '../model.ts';

export type FaultTargetName = 'trade' | 'zap' | 'cancel' | 'deposit';
export type FaultChoice = { kind: 'fail'; codeIdx: number } | { kind: 'reorg'; leg: 'out' | 'in' } | { kind: 'delay'; delay_ms: number };

export class AddFault implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(
    readonly accountIdx: number,
    readonly target: FaultTargetName,
    readonly choice: FaultChoice,
  ) {}
  check = (m: Readonly<TradingModel>): boolean => m.accounts.length > 0 && m.faults < LIMITS.faults;
  /** The effect as sent: reorgs exist only for trades and zaps, so other targets get a failure instead. */
  effect(): Record<string, unknown> {
    const c = this.choice;
    if (c.kind === 'delay') return { delay_ms: c.delay_ms };
    if (c.kind === 'reorg' && (this.target === 'trade' || this.target === 'zap')) return { reorg: c.leg };
    const codes = FAIL_CODES[this.target]!;
    return { fail: codes[(c.kind === 'fail' ? c.codeIdx : 0) % codes.length] };
  }
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const account = m.accounts[this.accountIdx % m.accounts.length];
    const res = await r.sim.control('POST', '/faults', {
      target: this.target,
      effect: this.effect(),
      match: { account_id: account.account_id },
      times: 1,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    m.faults++;
    const effect = this.effect();
    if ('fail' in effect) {
      const key = `${this.target}|${account.account_id}`;
      m.fault_codes.set(key, new Set([...(m.fault_codes.get(key) ?? []), String(effect.fail)]));
      // A dropped deposit fails the zap waiting on it with the same code.
      if (this.target === 'deposit')
        m.fault_codes.set(
          `zap|${account.account_id}`,
          new Set([...(m.fault_codes.get(`zap|${account.account_id}`) ?? []), String(effect.fail)]),
        );
    }
    if (this.target === 'deposit') account.deposit_faults++;
    await checkAfterStep(m, r);
  }
  toString = (): string => `addFault(account#${this.accountIdx}, ${this.target}, ${JSON.stringify(this.effect())})`;
}
