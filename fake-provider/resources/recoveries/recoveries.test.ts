// Failed-zap recovery over real HTTP on the virtual clock: creation with the zap's failure (and not
// without an open credit or with recovery disabled), activation, the public claim with every error code,
// the cancel-style payout that consumes the credit, one payout only, throttling, invariants, machine edges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, type Profile } from '../../profile.ts';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { edgesOf } from '../../engine/index.ts';
import { recoveryMachine } from './machine.ts';
import { depositZap, getZap, land, newDestination as zapDestination, postZap, readyAccount } from '../../testing/fixtures/zaps.ts';
import {
  ARB_ETH,
  ARB_USDC,
  EVM_ADDRESS,
  FLAGGED_ADDRESS,
  activate,
  attachEmail,
  driveRecoveryEdges,
  failedZap,
  latestOtp,
  newDestination,
  recoverFunds,
} from '../../testing/fixtures/recoveries.ts';

const ROOMY: Profile = { ...DEFAULT_PROFILE, public_per_ip: { max: 1000, window_ms: 60_000 } };
let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim({ profile: ROOMY, seed: 'recoveries' });
});
afterAll(() => sim.close());

const envelopes = (s: TestSim) => s.running.runtime.world.events.all.map((e) => e.envelope);
const emails = async (s: TestSim, account_id: string) => (await s.control('GET', `/emails?account_id=${account_id}`)).body.emails;
const creditOf = async (s: TestSim, account_id: string, credit_id: string, key?: string) => {
  for (const status of ['open', 'consumed']) {
    const r = await s.api('GET', `/accounts/${account_id}/credits?status=${status}&limit=100`, { key });
    const c = r.body.credits.find((x: any) => x.credit_id === credit_id);
    if (c) return c;
  }
  return undefined;
};

/** A failed zap's recovery, activated (email attached), with its OTP. */
async function activated() {
  const f = await failedZap(sim);
  const recovery_id = f.zap.recovery.recovery_id as string;
  await attachEmail(sim, f.account_id);
  const r = await activate(sim, recovery_id, { account_id: f.account_id, credit_id: f.credit_id });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { ...f, recovery_id, otp: await latestOtp(sim, f.account_id) };
}

describe('creation', () => {
  it('a failed zap leaving an open credit gets a recovery: recovery.created first, then zap.failed and GET zap carry its ids', async () => {
    const { account_id, credit_id, zap_id, zap } = await failedZap(sim);
    expect(zap.status).toBe('failed');
    expect(zap.recovery).toEqual({ recovery_id: expect.stringMatching(/^rec_/), credit_id });
    const { recovery_id } = zap.recovery;
    const mine = envelopes(sim).filter((e) => e.account_id === account_id && (e.type.startsWith('recovery.') || e.type === 'zap.failed'));
    expect(mine.map((e) => [e.type, e.data])).toEqual([
      ['recovery.created', { recovery_id, credit_id, asset_key: ARB_USDC }],
      ['zap.failed', { zap_id, failure_code: 'execution_failed', recovery_id, credit_id }],
    ]);
    expect((await creditOf(sim, account_id, credit_id)).status).toBe('open');
  });

  it('no recovery when the organization has recovery disabled', async () => {
    const key = (
      await sim.newOrg({
        recovery_enabled: false,
        rate_limits: { reads: 100_000, writes: 100_000, indicative_rfqs: 1_000, firm_rfqs: 1_000 },
      })
    ).api_key;
    const { account_id, zap } = await failedZap(sim, key);
    expect(zap.status).toBe('failed');
    expect(zap).not.toHaveProperty('recovery');
    const failed = envelopes(sim).find((e) => e.type === 'zap.failed' && e.data.zap_id === zap.zap_id)!;
    expect(failed.data).toEqual({ zap_id: zap.zap_id, failure_code: 'execution_failed' });
    expect(envelopes(sim).filter((e) => e.account_id === account_id && e.type.startsWith('recovery.'))).toEqual([]);
  });

  it('no recovery for a flagged deposit (no credit); a mismatched deposit’s credit gets one', async () => {
    const account_id = await readyAccount(sim);
    const destination_id = await zapDestination(sim, account_id, ARB_ETH);
    await sim.control('POST', '/screening/addresses', { address: FLAGGED_ADDRESS, flag_reason: 'mixer_association' });
    const flagged = (await postZap(sim, depositZap(account_id, destination_id))).body.zap;
    await land(sim, { deposit_address_id: flagged.deposit_address.deposit_address_id, atoms: '55000000', source_address: FLAGGED_ADDRESS });
    const mismatched = (await postZap(sim, depositZap(account_id, destination_id))).body.zap;
    await land(sim, { deposit_address_id: mismatched.deposit_address.deposit_address_id, atoms: '1000000000000000', asset_key: ARB_ETH });
    await sim.settle();
    const a = await getZap(sim, flagged.zap_id);
    expect(a.failure_code).toBe('deposit_flagged');
    expect(a).not.toHaveProperty('recovery');
    const b = await getZap(sim, mismatched.zap_id);
    expect(b.failure_code).toBe('from_asset_mismatch');
    expect(b.recovery).toEqual({ recovery_id: expect.stringMatching(/^rec_/), credit_id: expect.any(String) });
    const created = envelopes(sim).filter((e) => e.account_id === account_id && e.type === 'recovery.created');
    expect(created.map((e) => e.data)).toEqual([
      { recovery_id: b.recovery.recovery_id, credit_id: b.recovery.credit_id, asset_key: ARB_ETH },
    ]);
  });
});

describe('POST /recoveries/{recovery_id}/activate', () => {
  it('emails an OTP and answers the active recovery; again (new key) a fresh OTP; the same key replays', async () => {
    const f = await failedZap(sim);
    const recovery_id = f.zap.recovery.recovery_id;
    const body = { account_id: f.account_id, credit_id: f.credit_id };
    const noEmail = await activate(sim, recovery_id, body);
    expect(noEmail.status).toBe(422);
    expect(noEmail.body.error.code).toBe('email_not_configured');
    expect(await emails(sim, f.account_id)).toEqual([]);
    await attachEmail(sim, f.account_id);
    const r = await activate(sim, recovery_id, body, { idem: `act-${recovery_id}` });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const now_ms = (await sim.control('GET', '/clock')).body.clock.now_ms;
    expect(r.body.recovery).toEqual({
      recovery_id,
      account_id: f.account_id,
      credit_id: f.credit_id,
      status: 'active',
      otp_sent: true,
      activated_at_ms: now_ms,
    });
    const inbox = await emails(sim, f.account_id);
    expect(inbox).toHaveLength(1);
    expect(inbox[0]).toMatchObject({ purpose: 'recovery', email: 'user@example.com', otp_code: expect.stringMatching(/^[0-9]{6}$/) });
    expect((await activate(sim, recovery_id, body, { idem: `act-${recovery_id}` })).status).toBe(200);
    expect(await emails(sim, f.account_id)).toHaveLength(1);
    await sim.advance(1_000);
    const again = await activate(sim, recovery_id, body);
    expect(again.status).toBe(200);
    expect(again.body.recovery.activated_at_ms).toBe(now_ms + 1_000);
    expect(await emails(sim, f.account_id)).toHaveLength(2);
  });

  it('404 recovery_not_found for an unknown id, a binding mismatch or another org; 400 for bad input; 409 idempotency_key_reuse', async () => {
    const f = await failedZap(sim);
    const recovery_id = f.zap.recovery.recovery_id;
    await attachEmail(sim, f.account_id);
    const other = await readyAccount(sim);
    for (const [id, body] of [
      ['rec_nope', { account_id: f.account_id, credit_id: f.credit_id }],
      [recovery_id, { account_id: f.account_id, credit_id: 'crd_nope' }],
      [recovery_id, { account_id: other, credit_id: f.credit_id }],
    ] as const) {
      const r = await activate(sim, id, body);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('recovery_not_found');
    }
    const otherOrg = (await sim.newOrg({})).api_key;
    expect(
      (await activate(sim, recovery_id, { account_id: f.account_id, credit_id: f.credit_id }, { key: otherOrg })).body.error.code,
    ).toBe('recovery_not_found');
    const bad = await activate(sim, recovery_id, { account_id: f.account_id, credit_id: 42 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', param: 'credit_id' });
    expect((await activate(sim, recovery_id, { account_id: f.account_id })).body.error).toMatchObject({
      code: 'parameter_missing',
      param: 'credit_id',
    });
    expect((await activate(sim, recovery_id, { account_id: f.account_id, credit_id: f.credit_id }, { key: null })).status).toBe(401);
    expect(await emails(sim, f.account_id)).toEqual([]);
    expect(
      (await activate(sim, recovery_id, { account_id: f.account_id, credit_id: f.credit_id }, { idem: `reuse-${recovery_id}` })).status,
    ).toBe(200);
    const reuse = await activate(sim, recovery_id, { account_id: f.account_id, credit_id: 'crd_other' }, { idem: `reuse-${recovery_id}` });
    expect(reuse.status).toBe(409);
    expect(reuse.body.error.code).toBe('idempotency_key_reuse');
  });
});

describe('POST /public/recover-funds', () => {
  it('claims the full credit by a cancel-style transfer (202), which confirms and consumes the credit; never a second payout', async () => {
    const { account_id, credit_id, recovery_id, otp } = await activated();
    const r = await recoverFunds(sim, { account_id, credit_id, otp_code: otp, destination: { address: EVM_ADDRESS } });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body.recovery).toEqual({
      recovery_id,
      account_id,
      credit_id,
      status: 'claimed',
      asset_key: ARB_USDC,
      amount_atoms: '100000000',
      cancel_id: expect.stringMatching(/^can_/),
      poll_after_ms: expect.any(Number),
    });
    const { cancel_id } = r.body.recovery;
    const claimed = envelopes(sim).find((e) => e.type === 'recovery.claimed' && e.data.recovery_id === recovery_id)!;
    expect(claimed.data).toEqual({ recovery_id, credit_id, asset_key: ARB_USDC, cancel_id });
    await sim.settle();
    expect((await sim.api('GET', `/cancels/${cancel_id}`)).body.cancel).toMatchObject({ status: 'confirmed', credit_id });
    expect((await creditOf(sim, account_id, credit_id)).status).toBe('consumed');

    await sim.api('POST', `/recoveries/${recovery_id}/activate`, { body: { account_id, credit_id } }).then((a) => {
      expect(a.status).toBe(409);
      expect(a.body.error).toMatchObject({ code: 'recovery_already_claimed', details: { recovery_id, cancel_id } });
    });
    const second = await recoverFunds(sim, { account_id, credit_id, otp_code: otp, destination: { address: EVM_ADDRESS } });
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({ code: 'recovery_already_claimed', details: { recovery_id, cancel_id } });
    const cancels = envelopes(sim).filter((e) => e.type === 'cancel.created' && e.data.credit_id === credit_id);
    expect(cancels).toHaveLength(1);
    expect(await sim.invariants()).toMatchObject({ ok: true });
  });

  it('404 recovery_not_found, 401 invalid_otp (also before activation), 401 otp_expired, 400 invalid_parameter; none change anything', async () => {
    const f = await failedZap(sim);
    const recovery_id = f.zap.recovery.recovery_id;
    const base = { account_id: f.account_id, credit_id: f.credit_id, destination: { address: EVM_ADDRESS } };
    const notYet = await recoverFunds(sim, { ...base, otp_code: '000000' });
    expect(notYet.status).toBe(401);
    expect(notYet.body.error).toMatchObject({ code: 'invalid_otp', param: 'otp_code' });
    await attachEmail(sim, f.account_id);
    expect((await activate(sim, recovery_id, { account_id: f.account_id, credit_id: f.credit_id })).status).toBe(200);
    const otp = await latestOtp(sim, f.account_id);
    const missing = await recoverFunds(sim, { ...base, credit_id: 'crd_nope', otp_code: otp });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('recovery_not_found');
    const wrong = await recoverFunds(sim, { ...base, otp_code: otp === '123456' ? '654321' : '123456' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_otp');
    const badAddress = await recoverFunds(sim, { ...base, otp_code: otp, destination: { address: 'not-an-address' } });
    expect(badAddress.status).toBe(400);
    expect(badAddress.body.error).toMatchObject({ code: 'invalid_parameter', param: 'destination.address' });
    expect((await recoverFunds(sim, { ...base, otp_code: otp, destination: {} })).body.error).toMatchObject({ code: 'parameter_missing' });
    await sim.advance(DEFAULT_PROFILE.otp_validity_ms);
    const expired = await recoverFunds(sim, { ...base, otp_code: otp });
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('otp_expired');
    expect(envelopes(sim).filter((e) => e.account_id === f.account_id && e.type.startsWith('cancel.'))).toEqual([]);
    // Re-activating sends a new OTP that works.
    expect((await activate(sim, recovery_id, { account_id: f.account_id, credit_id: f.credit_id })).status).toBe(200);
    expect((await recoverFunds(sim, { ...base, otp_code: await latestOtp(sim, f.account_id) })).status).toBe(202);
    await sim.settle();
  });

  it('403 destination_screening_failed: recovery.failed, the credit stays open, the OTP is used up; re-activate and claim elsewhere', async () => {
    const { account_id, credit_id, recovery_id, otp } = await activated();
    await sim.control('POST', '/screening/addresses', { address: FLAGGED_ADDRESS, flag_reason: 'sanctions_match' });
    const r = await recoverFunds(sim, { account_id, credit_id, otp_code: otp, destination: { address: FLAGGED_ADDRESS } });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: 'destination_screening_failed', details: { recovery_id } });
    const failed = envelopes(sim).find((e) => e.type === 'recovery.failed' && e.data.recovery_id === recovery_id)!;
    expect(failed.data).toEqual({ recovery_id, credit_id, asset_key: ARB_USDC, failure_code: 'destination_screening_failed' });
    expect((await creditOf(sim, account_id, credit_id)).status).toBe('open');
    expect((await recoverFunds(sim, { account_id, credit_id, otp_code: otp, destination: { address: EVM_ADDRESS } })).body.error.code).toBe(
      'invalid_otp',
    );
    expect((await activate(sim, recovery_id, { account_id, credit_id })).body.recovery.status).toBe('active');
    const ok = await recoverFunds(sim, {
      account_id,
      credit_id,
      otp_code: await latestOtp(sim, account_id),
      destination: { address: EVM_ADDRESS },
    });
    expect(ok.status).toBe(202);
    await sim.settle();
  });

  it('409 credit_in_use while a cancel holds the credit, then 409 credit_already_consumed (recover-funds and activate)', async () => {
    const { account_id, credit_id, recovery_id, otp } = await activated();
    const destination_id = await newDestination(sim, account_id, ARB_USDC);
    const c = await sim.api('POST', '/cancels', { body: { account_id, credit_id, destination_id } });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    const body = { account_id, credit_id, otp_code: otp, destination: { address: EVM_ADDRESS } };
    const inUse = await recoverFunds(sim, body);
    expect(inUse.status).toBe(409);
    expect(inUse.body.error.code).toBe('credit_in_use');
    await sim.settle();
    const consumed = await recoverFunds(sim, body);
    expect(consumed.status).toBe(409);
    expect(consumed.body.error.code).toBe('credit_already_consumed');
    const act = await activate(sim, recovery_id, { account_id, credit_id });
    expect(act.status).toBe(409);
    expect(act.body.error.code).toBe('credit_already_consumed');
    expect(envelopes(sim).filter((e) => e.type === 'recovery.claimed' && e.data.recovery_id === recovery_id)).toEqual([]);
  });

  it('takes every edge of the recovery machine; invariants hold', async () => {
    const before = sim.running.runtime.world.transitions.records.length;
    await driveRecoveryEdges(sim);
    const taken = new Set(
      sim.running.runtime.world.transitions.records
        .slice(before)
        .filter((t) => t.kind === 'recovery')
        .map((t) => `${t.from}|${t.event}|${t.to}`),
    );
    for (const e of edgesOf(recoveryMachine)) expect(taken, `${e.from} --${e.event}--> ${e.to}`).toContain(`${e.from}|${e.event}|${e.to}`);
    expect(await sim.invariants()).toMatchObject({ ok: true });
  });
});

describe('abuse controls', () => {
  it('burns the OTP after otp_max_attempts wrong codes: even the right code is invalid_otp until activation sends a fresh one', async () => {
    const max = ROOMY.otp_max_attempts;
    const { account_id, credit_id, recovery_id, otp } = await activated();
    const claim = (otp_code: string) => recoverFunds(sim, { account_id, credit_id, otp_code, destination: { address: EVM_ADDRESS } });
    const wrongFor = (code: string) => (code === '000000' ? '000001' : '000000');
    for (let i = 1; i < max; i++) {
      const r = await claim(wrongFor(otp));
      expect(r.status).toBe(401);
      expect(r.body.error).toMatchObject({ code: 'invalid_otp', param: 'otp_code' });
      expect(r.body.error.message).not.toMatch(/no longer works/);
    }
    const burning = await claim(wrongFor(otp));
    expect(burning.status).toBe(401);
    expect(burning.body.error.code).toBe('invalid_otp');
    expect(burning.body.error.message).toMatch(/no longer works/);
    const right = await claim(otp);
    expect(right.status).toBe(401);
    expect(right.body.error.code).toBe('invalid_otp');
    expect(envelopes(sim).filter((e) => e.account_id === account_id && e.type.startsWith('cancel.'))).toEqual([]);
    // A fresh OTP starts a fresh count: max - 1 wrong codes leave it working.
    expect((await activate(sim, recovery_id, { account_id, credit_id })).status).toBe(200);
    const fresh = await latestOtp(sim, account_id);
    for (let i = 1; i < max; i++) expect((await claim(wrongFor(fresh))).status).toBe(401);
    const ok = await claim(fresh);
    expect(ok.status, JSON.stringify(ok.body)).toBe(202);
    await sim.settle();
  });

  it('429 rate_limited per client address, on sim time', async () => {
    const s = await startTestSim({ profile: { ...DEFAULT_PROFILE, public_per_ip: { max: 2, window_ms: 60_000 } }, seed: 'recoveries-ip' });
    try {
      const body = { account_id: 'acct_nope', credit_id: 'crd_nope', otp_code: '1', destination: { address: EVM_ADDRESS } };
      for (let i = 0; i < 2; i++) expect((await recoverFunds(s, body)).status).toBe(404);
      const limited = await recoverFunds(s, body);
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe('rate_limited');
      await s.advance(60_000);
      expect((await recoverFunds(s, body)).status).toBe(404);
    } finally {
      await s.close();
    }
  });
});
