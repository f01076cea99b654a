// Command (a boundary-seeking clock step): a deposit-funded zap with an expires_at_ms, read on the exact ticks
// of its expiry. Spec (States, Zap): "awaiting_deposit or executing, expires_at_ms reached before execution
// begins → failed (zap_expired)". One tick before the instant it still awaits its deposit; at the instant
// (reached) it is failed with zap_expired; one tick after it still is. Optionally a transfer lands on its
// address one tick before the instant: it cannot verify within the tick, so the zap still expires, and the
// deposit, once verified, stays an ordinary credit of the account (the zap ended before it was funded).
import type fc from 'fast-check';
import { expect } from 'vitest';
import { advance, api, checkAfterStep, faultCodes, LIMITS, newOp, type TradingModel, type TradingReal } from '../model.ts';
import { pickDepositZap, postDepositZap } from './zap-from-deposit.ts';

export interface ZapExpiryTickArgs {
  accountIdx: number;
  destinationIdx: number;
  fromIdx: number;
  /** expires_at_ms this far after creation. */
  ttl_ms: number;
  /** A transfer lands on the zap's address one tick before it expires. */
  land_before: boolean;
}

export class ZapExpiryTick implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(readonly a: ZapExpiryTickArgs) {}
  check = (m: Readonly<TradingModel>): boolean => m.accounts.length > 0 && m.destinations.length > 0 && m.ops.length < LIMITS.ops;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const pick = pickDepositZap(m, this.a);
    if (!pick) return checkAfterStep(m, r);
    const { account, from, to } = pick;
    const amount_in = 500n * from.atoms_per_usd;
    const expires_at_ms = m.now_ms + this.a.ttl_ms;
    const { code, res } = await postDepositZap(m, r, pick, amount_in, { expires_at_ms });
    if (code !== null) return checkAfterStep(m, r);
    const zap = res.body.zap;
    expect(zap.status).toBe('awaiting_deposit');
    m.reach.tried.add('zap.expiry_ticks');
    // A zap fault rule on the account may end it first (a `fail: zap_expired` rule decides its own timing).
    const ruled = faultCodes(m, 'zap', account.account_id).length > 0;
    m.ops.push(
      newOp(
        'zap',
        zap.zap_id,
        account.account_id,
        null,
        { amount_in_atoms: null, amount_out_atoms: null, min_out_atoms: 0n, from_asset_key: from.asset_key, to_asset_key: to.asset_key },
        ['zap_expired'],
      ),
    );
    const read = async (): Promise<Record<string, unknown>> => {
      const got = await api(r, 'GET', `/zaps/${zap.zap_id}`);
      expect(got.status, JSON.stringify(got.body)).toBe(200);
      return got.body.zap;
    };

    await advance(m, r, expires_at_ms - 1 - m.now_ms);
    const before = await read();
    if (!ruled)
      expect(before.status, `zap ${zap.zap_id} one tick before its expires_at_ms ${expires_at_ms}: ${JSON.stringify(before)}`).toBe(
        'awaiting_deposit',
      );
    if (this.a.land_before) {
      const dep = await r.sim.control('POST', '/deposits', {
        deposit_address_id: zap.deposit_address.deposit_address_id,
        atoms: amount_in.toString(),
      });
      expect(dep.status, JSON.stringify(dep.body)).toBe(200);
      m.deposits.push({
        account_id: account.account_id,
        tx_hash: dep.body.deposit.tx_hash,
        asset_key: from.asset_key,
        atoms: amount_in,
        expect: account.deposit_faults > 0 ? 'uncertain' : 'verified',
      });
    }
    for (const tick of [0, 1]) {
      await advance(m, r, expires_at_ms + tick - m.now_ms);
      const now = await read();
      const shown = `zap ${zap.zap_id} ${tick === 0 ? 'at the instant its expires_at_ms is reached' : 'one tick after its expires_at_ms'} (${expires_at_ms}): ${JSON.stringify(now)}`;
      if (ruled) expect(now.status, shown).toBe('failed');
      else expect([now.status, now.failure_code], shown).toEqual(['failed', 'zap_expired']);
    }
    m.reach.reached.add('zap.expiry_ticks');
    await checkAfterStep(m, r);
  }
  toString = (): string => `zapExpiryTick(${JSON.stringify(this.a)})`;
}
