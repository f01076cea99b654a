// Command: the failed-zap recovery of a credit the model predicts open: attach an email, activate (OTP
// emailed), then claim with a wrong OTP (401 invalid_otp), an expired one (401 otp_expired), the right
// one (202 claimed, a payout cancel of the whole credit), or the right one twice (409
// recovery_already_claimed, never a second payout). Skipped until a failed zap offers a recovery.
// The OTP's validity (the profile's otp_validity_ms from activation; the spec says only "limited") is hit
// on its exact ticks: claimed one tick before it ends (202), refused at the instant it ends (otp_expired).
import type fc from 'fast-check';
import { expect } from 'vitest';
import {
  advance,
  api,
  checkAfterStep,
  newOp,
  recognise,
  sourceAddressFor,
  tradeAsset,
  type TradingModel,
  type TradingReal,
  type WireCredit,
} from '../model.ts';

export type RecoveryVariant = 'claim' | 'wrong_otp' | 'expired_otp' | 'claim_twice' | 'otp_at_expiry' | 'claim_before_expiry';

export class RecoverFunds implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(
    readonly zapIdx: number,
    readonly variant: RecoveryVariant,
  ) {}
  check = (m: Readonly<TradingModel>): boolean => m.org.recovery_enabled && m.ops.some((o) => o.kind === 'zap' && o.outcome === 'failed');
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    // The failed zaps that offer a recovery whose credit is open and free (a flagged deposit leaves none).
    const candidates: Array<{ account_id: string; recovery_id: string; credit: WireCredit }> = [];
    for (const z of m.ops.filter((o) => o.kind === 'zap' && o.outcome === 'failed')) {
      const zap = (await api(r, 'GET', `/zaps/${z.id}`)).body.zap;
      if (!zap.recovery || m.ops.some((o) => o.credit_id === zap.recovery.credit_id && o.outcome === null)) continue;
      const open: WireCredit[] = (await api(r, 'GET', `/accounts/${z.account_id}/credits?status=open&limit=100`)).body.credits;
      for (const c of open) recognise(m, c);
      const credit = open.find((c) => c.credit_id === zap.recovery.credit_id);
      if (credit) candidates.push({ account_id: z.account_id, recovery_id: zap.recovery.recovery_id, credit });
    }
    if (candidates.length === 0) return checkAfterStep(m, r);
    m.reach.tried.add(`recovery.${this.variant}`);
    const { account_id, recovery_id, credit } = candidates[this.zapIdx % candidates.length];
    const credit_id = credit.credit_id;
    await api(r, 'PATCH', `/accounts/${account_id}`, { body: { email: `owner+${account_id}@example.com` } });
    const activated = await api(r, 'POST', `/recoveries/${recovery_id}/activate`, { body: { account_id: account_id, credit_id } });
    expect(activated.status, JSON.stringify(activated.body)).toBe(200);
    expect(activated.body.recovery).toMatchObject({ recovery_id, credit_id, status: 'active', otp_sent: true });
    const inbox = (await r.sim.control('GET', `/emails?account_id=${account_id}`)).body.emails.filter(
      (e: { purpose: string }) => e.purpose === 'recovery',
    );
    const otp: string = inbox[inbox.length - 1].otp_code;
    const destination = { address: sourceAddressFor(tradeAsset(credit.asset_key).chain, 40_000 + ++m.addresses) };
    const claim = (otp_code: string) =>
      r.sim.api('POST', '/public/recover-funds', { key: null, body: { account_id: account_id, credit_id, otp_code, destination } });
    if (this.variant === 'wrong_otp') {
      const wrong = await claim(otp === '000000' ? '111111' : '000000');
      expect([wrong.status, wrong.body.error?.code], 'a wrong OTP must be refused').toEqual([401, 'invalid_otp']);
      m.reach.reached.add('recovery.wrong_otp');
      return checkAfterStep(m, r);
    }
    // The OTP ends otp_validity_ms after its activation: the last valid tick is one before that instant.
    const ends_ms: number = activated.body.recovery.activated_at_ms + m.profile.otp_validity_ms;
    if (this.variant === 'otp_at_expiry') {
      await advance(m, r, ends_ms - m.now_ms);
      const late = await claim(otp);
      expect([late.status, late.body.error?.code], `an OTP claimed at the instant its validity ends (${ends_ms}) must be refused`).toEqual([
        401,
        'otp_expired',
      ]);
      m.reach.reached.add('recovery.otp_at_expiry');
      return checkAfterStep(m, r);
    }
    if (this.variant === 'claim_before_expiry') await advance(m, r, ends_ms - 1 - m.now_ms);
    if (this.variant === 'expired_otp') {
      await advance(m, r, m.profile.otp_validity_ms + 1_000);
      const late = await claim(otp);
      expect([late.status, late.body.error?.code], 'an expired OTP must be refused').toEqual([401, 'otp_expired']);
      m.reach.reached.add('recovery.expired_otp');
      return checkAfterStep(m, r);
    }
    const claimed = await claim(otp);
    expect(claimed.status, `${this}: ${JSON.stringify(claimed.body)}`).toBe(202);
    expect(claimed.body.recovery).toMatchObject({
      recovery_id,
      credit_id,
      status: 'claimed',
      asset_key: credit.asset_key,
      amount_atoms: credit.atoms,
    });
    const whole = {
      amount_in_atoms: BigInt(credit.atoms),
      amount_out_atoms: null,
      min_out_atoms: 0n,
      from_asset_key: credit.asset_key,
      to_asset_key: null,
    };
    m.ops.push({ ...newOp('cancel', claimed.body.recovery.cancel_id, account_id, credit_id, whole, []), fault_target: 'recovery' });
    m.reach.reached.add(this.variant === 'claim_before_expiry' ? 'recovery.claim_before_expiry' : 'recovery.claim');
    m.claimed.push({ recovery_id, account_id, credit_id, cancel_id: claimed.body.recovery.cancel_id });
    if (this.variant === 'claim_twice') {
      const again = await claim(otp);
      expect([again.status, again.body.error?.code], 'a second claim must be refused, never paid twice').toEqual([
        409,
        'recovery_already_claimed',
      ]);
      expect(again.body.error.details).toMatchObject({ recovery_id, cancel_id: claimed.body.recovery.cancel_id });
      m.reach.reached.add('recovery.claim_twice');
    }
    await checkAfterStep(m, r);
  }
  toString = (): string => `recoverFunds(failedZap#${this.zapIdx}, ${this.variant})`;
}
