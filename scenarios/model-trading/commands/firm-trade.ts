// Command: trade an open credit. Picks an open credit of an account (by index, read from GET /credits) and
// one of the account's destinations (its asset is the output), asks a firm RFQ for a fraction of the credit
// (exact_in) or the matching output (exact_out), polls it to ready, and accepts with a random slippage —
// or skips the accept and lets the quote expire (kept for AcceptExpiredOrIndicative).
import type fc from 'fast-check';
import { expect } from 'vitest';
import {
  advance,
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

export interface FirmTradeArgs {
  accountIdx: number;
  creditIdx: number;
  destinationIdx: number;
  side: 'exact_in' | 'exact_out';
  /** Share of the credit to trade, in basis points (1..10000). */
  fraction_bps: number;
  slippage_bps: string;
  ttl_ms: number;
  wait_ms: number;
  accept: boolean;
  /**
   * Accept on an exact tick of the quote's expiry instead of at once: its last valid tick (accepted) or the
   * instant it expires (quote_expired; the spec's "expires_at_ms passed", the oracle's reading: reached).
   */
  accept_tick?: 'last' | 'at';
}

const RFQ_REFUSALS = [
  'insufficient_liquidity',
  'unsupported_pair',
  'insufficient_balance',
  'credit_in_use',
  'destination_suspended',
] as const;

export class FirmTrade implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(readonly a: FirmTradeArgs) {}
  check = (m: Readonly<TradingModel>): boolean => m.accounts.length > 0 && m.destinations.length > 0 && m.ops.length < LIMITS.ops;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const pick = await pickSpend(m, r, this.a);
    if (!pick) return checkAfterStep(m, r);
    const { account, credit, dest, from, to, amount_in: in_atoms } = pick;
    const amount =
      this.a.side === 'exact_in'
        ? { amount_in_atoms: in_atoms.toString() }
        : { amount_out_atoms: ((in_atoms * to.atoms_per_usd) / from.atoms_per_usd || 1n).toString() };
    const res = await api(r, 'POST', '/rfqs', {
      body: {
        account_id: account.account_id,
        credit_id: credit.credit_id,
        destination_id: dest.destination_id,
        from_asset_key: from.asset_key,
        to_asset_key: to.asset_key,
        side: this.a.side,
        ...amount,
        mode: 'firm',
        ttl_ms: this.a.ttl_ms,
        wait_ms: this.a.wait_ms,
      },
    });
    // A size outside the bounds answers the profile's size_out_of_bounds_error (insufficient_liquidity by default).
    const code = expectOutcome(res, [200, 202], [...RFQ_REFUSALS, m.profile.size_out_of_bounds_error], 'firm rfq');
    // Checks run account → destination → credit → pair: a suspended destination is the answer whatever else holds.
    if (dest.suspended) expect(code, JSON.stringify(res.body)).toBe('destination_suspended');
    else expect(code).not.toBe('destination_suspended');
    // The credit is checked after the destination: one an operation holds is refused, one nothing holds never as in use.
    expectHolder(m, credit.credit_id, code, ['destination_suspended'], 'firm rfq');
    if (code !== null) return checkAfterStep(m, r);

    let rfq = res.body.rfq;
    for (let i = 0; rfq.status !== 'ready' && i < 20; i++) {
      await advance(m, r, rfq.poll_after_ms);
      const poll = await api(r, 'GET', `/rfqs/${rfq.rfq_id}`);
      // Solvers answering after the request re-price: moved prices may leave the RFQ unquoted until it expires.
      if (expectOutcome(poll, [200], ['rfq_expired'], 'poll rfq') !== null) return checkAfterStep(m, r);
      rfq = poll.body.rfq;
    }
    expect(rfq.status, JSON.stringify(rfq)).toBe('ready');
    const quote_id: string = rfq.best_quote_id;
    if (!this.a.accept) {
      await advance(m, r, this.a.ttl_ms);
      if (m.quotes.length < LIMITS.quotes) m.quotes.push({ quote_id, kind: 'expired' });
      return checkAfterStep(m, r);
    }
    // Nothing else ran between the RFQ and here but the clock's own work, which cannot take a free credit.
    const quote = (await api(r, 'GET', `/quotes/${quote_id}`)).body.quote;
    if (this.a.accept_tick !== undefined) {
      const what = `quote.accept_${this.a.accept_tick}_tick`;
      m.reach.tried.add(what);
      await advance(m, r, quote.expires_at_ms - (this.a.accept_tick === 'last' ? 1 : 0) - m.now_ms);
      if (this.a.accept_tick === 'at') {
        const late = await api(r, 'POST', `/quotes/${quote_id}/accept`, { body: { slippage_bps: this.a.slippage_bps } });
        expect(
          [late.status, late.body.error?.code],
          `accept at the instant quote ${quote_id} expires (${quote.expires_at_ms}): ${JSON.stringify(late.body)}`,
        ).toEqual([m.profile.lifecycle_error_status.quote_expired, 'quote_expired']);
        m.reach.reached.add(what);
        return checkAfterStep(m, r);
      }
      m.reach.reached.add(what);
    }
    const key = `accept-${quote_id}`;
    const body = { slippage_bps: this.a.slippage_bps };
    const accepted = await api(r, 'POST', `/quotes/${quote_id}/accept`, { body, idem: key });
    expect(
      accepted.status,
      `${this.a.accept_tick === 'last' ? `accept on the last tick before quote ${quote_id} expires: ` : ''}${JSON.stringify(accepted.body)}`,
    ).toBe(200);
    if (m.writes.length < LIMITS.writes)
      m.writes.push({ method: 'POST', path: `/quotes/${quote_id}/accept`, body, key, status: accepted.status, answer: accepted.body });
    expect(accepted.body.trade.status).toBe('executing');
    expect(accepted.body.trade.quote_id).toBe(quote_id);
    // The trade pays what its quote promised, net of fees; the market may still move past the slippage.
    const promised = {
      amount_in_atoms: BigInt(quote.amount_in_atoms),
      amount_out_atoms: BigInt(quote.expected_out_atoms),
      min_out_atoms: 0n,
      from_asset_key: from.asset_key,
      to_asset_key: to.asset_key,
    };
    m.ops.push(newOp('trade', accepted.body.trade.trade_id, account.account_id, credit.credit_id, promised, ['execution_failed']));
    await checkAfterStep(m, r);
  }
  toString = (): string => `firmTrade(${JSON.stringify(this.a)})`;
}
