// Command: a transition the spec does not allow, attempted on purpose; the model requires the catalogued
// refusal and nothing changed (the account's credits, balances, activity feed and OTP inbox read the same
// before and after):
// - activate a recovery after its claim: 409 recovery_already_claimed, its details naming the claim, and no
//   OTP sent (States → Recovery: claimed has no way back to active while the payout stands);
// - activate a recovery with a credit it is not bound to: 404 recovery_not_found;
// - spend a consumed credit again (cancel, credit-funded zap, firm RFQ): 409 credit_already_consumed
//   (Credit: open → consumed, never back);
// - accept a quote a trade already consumed, under a new key: 409 quote_consumed.
import type fc from 'fast-check';
import { expect } from 'vitest';
import { api, checkAfterStep, creditsOf, FUND_ASSETS, type TradingModel, type TradingReal } from '../model.ts';

export type ForbiddenVariant =
  | 'activate_after_claim'
  | 'activate_other_credit'
  | 'cancel_consumed'
  | 'zap_consumed'
  | 'rfq_consumed'
  | 'accept_consumed';

/** What an integrator can read of one account, to show a refused request changed nothing. */
async function accountPrint(_m: TradingModel, r: TradingReal, account_id: string): Promise<string> {
  const credits = [...(await creditsOf(r, account_id, 'open')), ...(await creditsOf(r, account_id, 'consumed'))]
    .map((c) => `${c.credit_id} ${c.status} ${c.atoms}`)
    .sort();
  const balances = (await api(r, 'GET', `/accounts/${account_id}/balances?limit=100`)).body.balances;
  const events: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await api(r, 'GET', `/accounts/${account_id}/activity?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    events.push(...page.body.events.map((e: { event_id: string; type: string }) => `${e.event_id} ${e.type}`));
    cursor = page.body.next_cursor;
  } while (cursor);
  const emails = (await r.sim.control('GET', `/emails?account_id=${account_id}`)).body.emails.length;
  return JSON.stringify({ credits, balances, events, emails });
}

export class ForbiddenEdge implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(
    readonly idx: number,
    readonly variant: ForbiddenVariant,
  ) {}
  check = (m: Readonly<TradingModel>): boolean => m.accounts.length > 0;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const what = `forbidden.${this.variant}`;
    const attempt = await this.attempt(m);
    if (attempt === null) return checkAfterStep(m, r);
    m.reach.tried.add(what);
    const before = await accountPrint(m, r, attempt.account_id);
    const res = await api(r, 'POST', attempt.path, { body: attempt.body });
    expect(
      [res.status, res.body.error?.code],
      `${this}: ${attempt.path} ${JSON.stringify(attempt.body)} answered ${JSON.stringify(res.body)}`,
    ).toEqual(attempt.refusal);
    if (attempt.details) expect(res.body.error.details, `${this}: the refusal names the claim`).toMatchObject(attempt.details);
    expect(
      await accountPrint(m, r, attempt.account_id),
      `${this}: a refused ${attempt.path} changed what ${attempt.account_id} shows`,
    ).toBe(before);
    m.reach.reached.add(what);
    await checkAfterStep(m, r);
  }

  private async attempt(m: TradingModel): Promise<{
    account_id: string;
    path: string;
    body: Record<string, unknown>;
    refusal: [number, string];
    details?: Record<string, unknown>;
  } | null> {
    const pick = <T>(xs: T[]): T | null => (xs.length === 0 ? null : xs[this.idx % xs.length]);
    if (this.variant === 'activate_after_claim' || this.variant === 'activate_other_credit') {
      // A claim whose payout has not failed (a failed payout would reopen the recovery, a documented extra).
      const claim = pick(m.claimed.filter((c) => m.ops.find((o) => o.id === c.cancel_id)?.outcome !== 'failed'));
      if (!claim) return null;
      if (this.variant === 'activate_after_claim') {
        return {
          account_id: claim.account_id,
          path: `/recoveries/${claim.recovery_id}/activate`,
          body: { account_id: claim.account_id, credit_id: claim.credit_id },
          refusal: [409, 'recovery_already_claimed'],
          details: { recovery_id: claim.recovery_id, cancel_id: claim.cancel_id },
        };
      }
      const other = pick(
        [...m.credits.values()].filter(
          (c) => c.account_id === claim.account_id && c.credit_id !== undefined && c.credit_id !== claim.credit_id,
        ),
      );
      if (!other) return null;
      return {
        account_id: claim.account_id,
        path: `/recoveries/${claim.recovery_id}/activate`,
        body: { account_id: claim.account_id, credit_id: other.credit_id },
        refusal: [404, 'recovery_not_found'],
      };
    }
    if (this.variant === 'accept_consumed') {
      const w = pick(m.writes.filter((x) => x.status === 200));
      if (!w) return null;
      const account_id = m.ops.find((o) => o.id === (w.answer as { trade: { trade_id: string } }).trade.trade_id)!.account_id;
      return { account_id, path: w.path, body: { slippage_bps: '50' }, refusal: [409, 'quote_consumed'] };
    }
    // A consumed credit the model knows by id, and a usable destination of its account (of its asset for a cancel).
    // Worth 5 USD or more at the starting prices, so a size bound is never the refusal.
    const worth = (c: { asset_key: string; atoms: bigint }) =>
      c.atoms / (FUND_ASSETS.find((a) => a.asset_key === c.asset_key)?.atoms_per_usd ?? c.atoms + 1n);
    const consumed = [...m.credits.values()].filter((c) => c.status === 'consumed' && c.credit_id !== undefined && worth(c) >= 5n);
    // Outputs with a USD market only, so the pair is never the refusal.
    const priced = new Set(FUND_ASSETS.map((a) => a.asset_key));
    const usable = (account_id: string, asset_key?: string) =>
      m.destinations.filter(
        (d) =>
          d.account_id === account_id && !d.suspended && priced.has(d.asset_key) && (asset_key === undefined || d.asset_key === asset_key),
      );
    const credit = pick(
      consumed.filter(
        (c) =>
          usable(c.account_id, this.variant === 'cancel_consumed' ? c.asset_key : undefined).length > 0 &&
          (this.variant === 'cancel_consumed' || usable(c.account_id).some((d) => d.asset_key !== c.asset_key)),
      ),
    );
    if (!credit) return null;
    const refusal: [number, string] = [409, 'credit_already_consumed'];
    if (this.variant === 'cancel_consumed') {
      const dest = pick(usable(credit.account_id, credit.asset_key))!;
      return {
        account_id: credit.account_id,
        path: '/cancels',
        body: { account_id: credit.account_id, credit_id: credit.credit_id, destination_id: dest.destination_id },
        refusal,
      };
    }
    const dest = pick(usable(credit.account_id).filter((d) => d.asset_key !== credit.asset_key))!;
    const spend = {
      account_id: credit.account_id,
      credit_id: credit.credit_id,
      destination_id: dest.destination_id,
      from_asset_key: credit.asset_key,
      to_asset_key: dest.asset_key,
      amount_in_atoms: credit.atoms.toString(),
    };
    if (this.variant === 'zap_consumed')
      return { account_id: credit.account_id, path: '/zaps', body: { ...spend, min_amount_out_atoms: '0' }, refusal };
    return {
      account_id: credit.account_id,
      path: '/rfqs',
      body: { ...spend, side: 'exact_in', mode: 'firm', ttl_ms: 5_000, wait_ms: 1_000 },
      refusal,
    };
  }

  toString = (): string => `forbiddenEdge(#${this.idx}, ${this.variant})`;
}
