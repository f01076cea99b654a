// Command: an indicative RFQ for a random pair and side (no account). Ready quotes are kept for
// AcceptExpiredOrIndicative, which must get quote_not_firm.
import type fc from 'fast-check';
import { expect } from 'vitest';
import { api, checkAfterStep, expectOutcome, LIMITS, TRADE_ASSETS, type TradingModel, type TradingReal } from '../model.ts';

export class IndicativeRfq implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(
    readonly fromIdx: number,
    readonly toIdx: number,
    readonly side: 'exact_in' | 'exact_out',
    readonly usd: number,
  ) {}
  check = (): boolean => true;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const from = TRADE_ASSETS[this.fromIdx % TRADE_ASSETS.length];
    const to = TRADE_ASSETS[this.toIdx % TRADE_ASSETS.length];
    const amount =
      this.side === 'exact_in'
        ? { amount_in_atoms: (BigInt(this.usd) * from.atoms_per_usd).toString() }
        : { amount_out_atoms: (BigInt(this.usd) * to.atoms_per_usd).toString() };
    // wait_ms 1000 outlasts every solver latency: the answer is ready at once unless the request is refused.
    const res = await api(r, 'POST', '/rfqs', {
      body: {
        from_asset_key: from.asset_key,
        to_asset_key: to.asset_key,
        side: this.side,
        ...amount,
        mode: 'indicative',
        ttl_ms: 5_000,
        wait_ms: 1_000,
      },
    });
    const code = expectOutcome(
      res,
      [200],
      ['unsupported_pair', 'insufficient_liquidity', m.profile.size_out_of_bounds_error],
      'indicative rfq',
    );
    if (from.asset_key === to.asset_key) expect(code).toBe('unsupported_pair');
    if (code === null) {
      expect(res.body.rfq.status).toBe('ready');
      if (m.quotes.length < LIMITS.quotes) m.quotes.push({ quote_id: res.body.rfq.best_quote_id, kind: 'indicative' });
    }
    await checkAfterStep(m, r);
  }
  toString = (): string => `indicativeRfq(asset#${this.fromIdx} → asset#${this.toIdx}, ${this.side}, ${this.usd} USD)`;
}
