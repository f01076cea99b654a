// Command (a hard path): a fault rule aimed at the account's next settlement — a reorg of its out or in leg
// (orphaned, then reconfirmed: the trade stays settled and pays once), or a settlement_orphaned failure
// (the trade fails, its credit stays open) — then a firm trade that meets it. The zap kinds aim a reorg of
// either leg at the account's next zap settlement, then make a credit-funded zap with no floor to meet it
// (its effect is checked with every other fired fault's: fault-effects.ts).
import type fc from 'fast-check';
import { expect } from 'vitest';
import { checkAfterStep, type TradingModel, type TradingReal } from '../model.ts';
import { FirmTrade } from './firm-trade.ts';
import { ZapFromCredit } from './zap-from-credit.ts';

export type ReorgKind = 'reorg_out' | 'reorg_in' | 'orphaned' | 'zap_reorg_out' | 'zap_reorg_in';

export class ReorgNextSettlement implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(
    readonly accountIdx: number,
    readonly creditIdx: number,
    readonly destinationIdx: number,
    readonly kind: ReorgKind,
  ) {}
  check = (m: Readonly<TradingModel>): boolean => m.accounts.length > 0 && m.destinations.length > 0;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const what = `settlement.${this.kind}`;
    const account = m.accounts[this.accountIdx % m.accounts.length];
    if (this.kind === 'zap_reorg_out' || this.kind === 'zap_reorg_in') {
      const leg = this.kind === 'zap_reorg_out' ? 'out' : 'in';
      // Zaps already in flight could meet it first; any zap that settles and meets it must show its effect.
      const rule = await r.sim.control('POST', '/faults', {
        target: 'zap',
        effect: { reorg: leg },
        match: { account_id: account.account_id },
        times: 1,
      });
      expect(rule.status, JSON.stringify(rule.body)).toBe(200);
      const before = m.ops.length;
      await new ZapFromCredit({
        accountIdx: this.accountIdx,
        creditIdx: this.creditIdx,
        destinationIdx: this.destinationIdx,
        fraction_bps: 5_000,
        high_floor: false,
        expires_in_ms: null,
      }).run(m, r);
      const zap = m.ops[before];
      if (zap) {
        m.reach.tried.add(`fault.zap.reorg.${leg}`);
        m.reach.watch.push({ what: `fault.zap.reorg.${leg}`, kind: 'zap', op_id: zap.id, account_id: account.account_id });
      }
      return;
    }
    // Only trades already in flight could meet the rule first: the model waits for none, so it names them.
    const inFlight = m.ops.some((o) => o.account_id === account.account_id && o.kind !== 'cancel' && o.outcome === null);
    const effect = this.kind === 'orphaned' ? { fail: 'settlement_orphaned' } : { reorg: this.kind === 'reorg_out' ? 'out' : 'in' };
    const rule = await r.sim.control('POST', '/faults', { target: 'trade', effect, match: { account_id: account.account_id }, times: 1 });
    expect(rule.status, JSON.stringify(rule.body)).toBe(200);
    if (this.kind === 'orphaned') {
      const key = `trade|${account.account_id}`;
      m.fault_codes.set(key, new Set([...(m.fault_codes.get(key) ?? []), 'settlement_orphaned']));
    }
    const before = m.ops.length;
    await new FirmTrade({
      accountIdx: this.accountIdx,
      creditIdx: this.creditIdx,
      destinationIdx: this.destinationIdx,
      side: 'exact_in',
      fraction_bps: 5_000,
      slippage_bps: '1000',
      ttl_ms: 30_000,
      wait_ms: 1_000,
      accept: true,
    }).run(m, r);
    const op = m.ops[before];
    // Reach counts the runs in which a trade was made for the rule to meet (an RFQ may be refused).
    if (!op || inFlight) return;
    m.reach.tried.add(what);
    // This trade is the account's only swap in flight: the rule meets it, unless a trade made later reaches
    // settlement first (checked when the run settles).
    m.reach.watch.push({ what, kind: this.kind === 'orphaned' ? 'orphaned' : 'reorg', op_id: op.id, account_id: account.account_id });
    await checkAfterStep(m, r);
  }
  toString = (): string =>
    `reorgNextSettlement(account#${this.accountIdx}, credit#${this.creditIdx}, destination#${this.destinationIdx}, ${this.kind})`;
}
