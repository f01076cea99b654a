// Command: accept a quote that cannot be accepted: an indicative one (quote_not_firm) or a firm one whose
// accept was skipped until it expired (quote_expired). Nothing changes.
import type fc from 'fast-check';
import { expect } from 'vitest';
import { api, checkAfterStep, type TradingModel, type TradingReal } from '../model.ts';

export class AcceptExpiredOrIndicative implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(
    readonly quoteIdx: number,
    readonly slippage_bps: string,
  ) {}
  check = (m: Readonly<TradingModel>): boolean => m.quotes.length > 0;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const q = m.quotes[this.quoteIdx % m.quotes.length];
    const res = await api(r, 'POST', `/quotes/${q.quote_id}/accept`, { body: { slippage_bps: this.slippage_bps } });
    const code = q.kind === 'indicative' ? 'quote_not_firm' : 'quote_expired';
    const status = m.profile.lifecycle_error_status[code];
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.error.code).toBe(code);
    await checkAfterStep(m, r);
  }
  toString = (): string => `acceptExpiredOrIndicative(quote#${this.quoteIdx}, ${this.slippage_bps} bps)`;
}
