// Failed-zap recovery: the happy path (activate, OTP by email, recover-funds, the payout cancel confirms),
// a wrong OTP, an expired OTP, a second claim, and a recovery destination that fails screening.
import type { Scenario, ScenarioDsl } from '../dsl/index.ts';
import { errorOf, ETH, HUNDRED_USDC, StepFailed, USDC } from '../dsl/index.ts';
import { funded, usdcZap, zapId } from './common.ts';

interface Failed {
  account_id: string;
  credit_id: string;
  recovery_id: string;
}

/** An account with an email and a 100 USDC credit, and a zap on it failed (execution_failed) leaving a recovery. */
async function failedZap(t: ScenarioDsl): Promise<Failed> {
  const f = await funded(t, USDC, ETH, HUNDRED_USDC, { email: 'user@example.com' });
  await t.fault({ target: 'zap', effect: { fail: 'execution_failed' }, match: { account_id: f.account_id }, times: 1 });
  const zap_id = await zapId(t, usdcZap(f));
  const zap = await t.poll('zap', zap_id);
  await t.expect(
    'the failed zap offers a recovery',
    zap.status === 'failed' && typeof zap.recovery?.recovery_id === 'string',
    JSON.stringify(zap),
  );
  if (!zap.recovery) throw new StepFailed(`zap ${zap_id} failed without a recovery`);
  return { account_id: f.account_id, credit_id: f.credit_id, recovery_id: zap.recovery.recovery_id };
}

async function activated(t: ScenarioDsl, r: Failed): Promise<string> {
  const a = await t.recovery.activate(r.recovery_id, r.account_id, r.credit_id);
  t.expectHttp('recovery activated', a, 200);
  t.expectEqual('active, OTP sent', [a.body.recovery.status, a.body.recovery.otp_sent], ['active', true]);
  return t.otp(r.account_id);
}

/** A claim to a clean address and its payout cancel confirmed. */
async function claimed(t: ScenarioDsl, r: Failed, otp_code: string, label: string): Promise<string> {
  const c = await t.recovery.claim({ account_id: r.account_id, credit_id: r.credit_id, otp_code, address: t.address(USDC, label) });
  t.expectHttp('recover-funds accepted', c, 202);
  t.expectEqual(
    'claimed for the whole credit',
    [c.body.recovery.status, c.body.recovery.amount_atoms, c.body.recovery.asset_key],
    ['claimed', HUNDRED_USDC, USDC],
  );
  await t.poll('cancel', c.body.recovery.cancel_id);
  await t.expectStatus('cancel', c.body.recovery.cancel_id, 'confirmed');
  return c.body.recovery.cancel_id;
}

const wrongOtp = (otp: string): string => (otp === '000000' ? '111111' : '000000');

export const recoveryScenarios: Scenario[] = [
  {
    name: 'recovery-happy-path',
    summary:
      'A failed zap leaves its credit open: activate, OTP by email, recover-funds to a clean address, the payout confirms and consumes the credit',
    tags: ['recovery', 'zap', 'happy-path'],
    async run(t) {
      const r = await failedZap(t);
      const otp = await activated(t, r);
      await claimed(t, r, otp, 'payout');
      await t.expectEvents(r.account_id, r.recovery_id, ['recovery.created', 'recovery.claimed'], { absent: ['recovery.failed'] });
      await t.expectCredit(r.account_id, r.credit_id, 'consumed');
      await t.expectBalance(r.account_id, USDC, '0', '0');
      await t.expectInvariants();
    },
  },
  {
    name: 'recovery-wrong-otp',
    summary: 'recover-funds with a wrong OTP answers 401 invalid_otp and changes nothing; the right OTP then claims',
    tags: ['recovery', 'error'],
    async run(t) {
      const r = await failedZap(t);
      const otp = await activated(t, r);
      const bad = await t.recovery.claim({
        account_id: r.account_id,
        credit_id: r.credit_id,
        otp_code: wrongOtp(otp),
        address: t.address(USDC, 'payout'),
      });
      t.expectError(bad, 'invalid_otp', 401);
      await t.expectCredit(r.account_id, r.credit_id, 'open');
      await t.expectEvents(r.account_id, r.recovery_id, ['recovery.created'], { absent: ['recovery.claimed', 'recovery.failed'] });
      await claimed(t, r, otp, 'payout');
      await t.expectInvariants();
    },
  },
  {
    name: 'recovery-expired-otp',
    summary: 'An OTP used 11 minutes after activation answers 401 otp_expired; activating again sends a fresh OTP that claims',
    tags: ['recovery', 'error', 'expiry'],
    async run(t) {
      const r = await failedZap(t);
      const otp = await activated(t, r);
      await t.advance('11m');
      t.expectError(
        await t.recovery.claim({ account_id: r.account_id, credit_id: r.credit_id, otp_code: otp, address: t.address(USDC, 'payout') }),
        'otp_expired',
        401,
      );
      await t.expectCredit(r.account_id, r.credit_id, 'open');
      const fresh = await activated(t, r);
      await claimed(t, r, fresh, 'payout');
      await t.expectInvariants();
    },
  },
  {
    name: 'recovery-already-claimed',
    summary: 'A second recover-funds after a claim answers 409 recovery_already_claimed naming the first payout; never a second payout',
    tags: ['recovery', 'error', 'idempotency'],
    async run(t) {
      const r = await failedZap(t);
      const otp = await activated(t, r);
      const cancel_id = await claimed(t, r, otp, 'payout');
      const again = await t.recovery.claim({
        account_id: r.account_id,
        credit_id: r.credit_id,
        otp_code: otp,
        address: t.address(USDC, 'other'),
      });
      t.expectError(again, 'recovery_already_claimed', 409);
      t.expectEqual('details name the first payout', errorOf(again.body)?.details, { recovery_id: r.recovery_id, cancel_id });
      const reactivate = await t.recovery.activate(r.recovery_id, r.account_id, r.credit_id);
      t.expectError(reactivate, 'recovery_already_claimed', 409);
      const claims = (await t.events({ account_id: r.account_id, types: 'recovery.claimed,cancel.created' })).map((e) => e.type);
      t.expectEqual('one claim, one payout', claims, ['cancel.created', 'recovery.claimed']);
      await t.expectInvariants();
    },
  },
  {
    name: 'recovery-destination-screening-failed',
    summary:
      'A recovery to a sanctioned address answers 403 destination_screening_failed (recovery.failed, credit open); a new activation to a clean address claims',
    tags: ['recovery', 'screening', 'error'],
    async run(t) {
      const r = await failedZap(t);
      const otp = await activated(t, r);
      const bad = t.address(USDC, 'sanctioned');
      t.expectHttp(
        'address flagged in screening',
        await t.sim('POST', '/screening/addresses', { address: bad, flag_reason: 'sanctions_match' }),
        200,
      );
      t.expectError(
        await t.recovery.claim({ account_id: r.account_id, credit_id: r.credit_id, otp_code: otp, address: bad }),
        'destination_screening_failed',
        403,
      );
      await t.expectEvents(r.account_id, r.recovery_id, ['recovery.created', 'recovery.failed'], { absent: ['recovery.claimed'] });
      await t.expectCredit(r.account_id, r.credit_id, 'open');
      const fresh = await activated(t, r);
      await claimed(t, r, fresh, 'clean');
      await t.expectCredit(r.account_id, r.credit_id, 'consumed');
      await t.expectInvariants();
    },
  },
];
