// `recovery` fault rules over real HTTP on the virtual clock: a payout that fails (broadcast_failed,
// confirmation_timeout) reopens the recovery with recovery.failed after cancel.failed, the credit stays
// open and a new claim pays out once; delay_ms postpones the payout; `cancel` and `recovery` rules stay apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, type Profile } from '../../profile.ts';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { ARB_FINALITY_MS, credit, nowMs } from '../../testing/fixtures/zaps.ts';
import {
  ARB_USDC,
  EVM_ADDRESS,
  activate,
  attachEmail,
  failedZap,
  latestOtp,
  newDestination,
  recoverFunds,
} from '../../testing/fixtures/recoveries.ts';

const ROOMY: Profile = { ...DEFAULT_PROFILE, public_per_ip: { max: 1000, window_ms: 60_000 } };
let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim({ profile: ROOMY, seed: 'recovery-faults' });
});
afterAll(() => sim.close());

const envelopes = () => sim.running.runtime.world.events.all.map((e) => e.envelope);
const addFault = async (body: Record<string, unknown>) => {
  const r = await sim.control('POST', '/faults', body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.fault.fault_id as string;
};

/** A failed zap's recovery, activated, with a claim body carrying its fresh OTP. */
async function activated() {
  const f = await failedZap(sim);
  const recovery_id = f.zap.recovery.recovery_id as string;
  await attachEmail(sim, f.account_id);
  expect((await activate(sim, recovery_id, { account_id: f.account_id, credit_id: f.credit_id })).status).toBe(200);
  const claim = async () => ({
    account_id: f.account_id,
    credit_id: f.credit_id,
    otp_code: await latestOtp(sim, f.account_id),
    destination: { address: EVM_ADDRESS },
  });
  return { ...f, recovery_id, claim };
}

/** The account's cancel and recovery events, in publication order, as [type, data]. */
const payoutEvents = (account_id: string) =>
  envelopes()
    .filter(
      (e) =>
        e.account_id === account_id && (e.type.startsWith('cancel.') || e.type.startsWith('recovery.')) && e.type !== 'recovery.created',
    )
    .map((e) => [e.type, e.data]);

describe('recovery fault rules', () => {
  it('{fail: broadcast_failed}: cancel.failed then recovery.failed, the credit stays open; re-activate and the next claim pays out once', async () => {
    const { account_id, credit_id, recovery_id, claim } = await activated();
    await addFault({ target: 'recovery', effect: { fail: 'broadcast_failed' }, match: { ids: [recovery_id] }, times: 1 });
    const r = await recoverFunds(sim, await claim());
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const first = r.body.recovery.cancel_id as string;
    // While the payout is in flight the recovery is claimed: no second claim.
    const during = await recoverFunds(sim, await claim());
    expect(during.status).toBe(409);
    expect(during.body.error).toMatchObject({ code: 'recovery_already_claimed', details: { recovery_id, cancel_id: first } });
    await sim.settle();
    expect((await sim.api('GET', `/cancels/${first}`)).body.cancel).toMatchObject({ status: 'failed', failure_code: 'broadcast_failed' });
    expect((await credit(sim, account_id, credit_id)).status).toBe('open');
    expect(payoutEvents(account_id)).toEqual([
      ['cancel.created', { cancel_id: first, credit_id }],
      ['recovery.claimed', { recovery_id, credit_id, asset_key: ARB_USDC, cancel_id: first }],
      ['cancel.failed', { cancel_id: first, credit_id, failure_code: 'broadcast_failed' }],
      ['recovery.failed', { recovery_id, credit_id, asset_key: ARB_USDC, failure_code: 'broadcast_failed' }],
    ]);
    // The claim used its OTP up; a fresh activation reopens the recovery.
    expect((await recoverFunds(sim, await claim())).body.error.code).toBe('invalid_otp');
    expect((await activate(sim, recovery_id, { account_id, credit_id })).body.recovery.status).toBe('active');
    const again = await recoverFunds(sim, await claim());
    expect(again.status).toBe(202);
    const second = again.body.recovery.cancel_id as string;
    expect(second).not.toBe(first);
    await sim.settle();
    expect((await sim.api('GET', `/cancels/${second}`)).body.cancel.status).toBe('confirmed');
    expect((await credit(sim, account_id, credit_id)).status).toBe('consumed');
    expect(envelopes().filter((e) => e.type === 'cancel.confirmed' && e.data.credit_id === credit_id)).toHaveLength(1);
    const done = await recoverFunds(sim, await claim());
    expect(done.body.error).toMatchObject({ code: 'recovery_already_claimed', details: { recovery_id, cancel_id: second } });
    expect((await sim.control('GET', '/faults')).body.fired.filter((f: { target: string }) => f.target === 'recovery')).toHaveLength(1);
    expect(await sim.invariants()).toMatchObject({ ok: true });
  });

  it('{fail: confirmation_timeout}: the payout is broadcast, then fails at finality; recovery.failed carries the code', async () => {
    const { account_id, credit_id, recovery_id, claim } = await activated();
    await addFault({ target: 'recovery', effect: { fail: 'confirmation_timeout' }, match: { account_id }, times: 1 });
    const r = await recoverFunds(sim, await claim());
    expect(r.status).toBe(202);
    const cancel_id = r.body.recovery.cancel_id as string;
    await sim.advance(DEFAULT_PROFILE.cancel_broadcast_ms);
    expect((await sim.api('GET', `/cancels/${cancel_id}`)).body.cancel).toMatchObject({ status: 'sent', tx_hash: expect.any(String) });
    await sim.advance(ARB_FINALITY_MS);
    expect((await sim.api('GET', `/cancels/${cancel_id}`)).body.cancel).toMatchObject({
      status: 'failed',
      failure_code: 'confirmation_timeout',
    });
    expect(payoutEvents(account_id).slice(-2)).toEqual([
      ['cancel.failed', { cancel_id, credit_id, failure_code: 'confirmation_timeout' }],
      ['recovery.failed', { recovery_id, credit_id, asset_key: ARB_USDC, failure_code: 'confirmation_timeout' }],
    ]);
    expect((await credit(sim, account_id, credit_id)).status).toBe('open');
    expect(await sim.invariants()).toMatchObject({ ok: true });
  });

  it('{delay_ms}: the payout broadcasts that much later (and confirms after it)', async () => {
    const { account_id, recovery_id, claim } = await activated();
    await addFault({ target: 'recovery', effect: { delay_ms: 60_000 }, match: { ids: [recovery_id] }, times: 1 });
    const t0 = await nowMs(sim);
    const cancel_id = (await recoverFunds(sim, await claim())).body.recovery.cancel_id as string;
    await sim.advance(DEFAULT_PROFILE.cancel_broadcast_ms + 59_999);
    expect((await sim.api('GET', `/cancels/${cancel_id}`)).body.cancel.status).toBe('pending');
    await sim.advance(1);
    expect((await sim.api('GET', `/cancels/${cancel_id}`)).body.cancel.status).toBe('sent');
    await sim.settle();
    const sent = envelopes().find((e) => e.type === 'cancel.sent' && e.data.cancel_id === cancel_id)!;
    expect(sent.created_at_ms).toBe(t0 + DEFAULT_PROFILE.cancel_broadcast_ms + 60_000);
    expect((await sim.api('GET', `/cancels/${cancel_id}`)).body.cancel.status).toBe('confirmed');
    expect(payoutEvents(account_id).map(([type]) => type)).toEqual([
      'cancel.created',
      'recovery.claimed',
      'cancel.sent',
      'cancel.confirmed',
    ]);
  });

  it('a `cancel` rule leaves recovery payouts alone, and a `recovery` rule leaves POST /cancels alone', async () => {
    const a = await activated();
    const cancelRule = await addFault({ target: 'cancel', effect: { fail: 'broadcast_failed' }, match: { account_id: a.account_id } });
    const payout = (await recoverFunds(sim, await a.claim())).body.recovery.cancel_id as string;
    await sim.settle();
    expect((await sim.api('GET', `/cancels/${payout}`)).body.cancel.status).toBe('confirmed');
    expect((await sim.control('DELETE', `/faults/${cancelRule}`)).status).toBe(200);

    const b = await activated();
    const recoveryRule = await addFault({ target: 'recovery', effect: { fail: 'broadcast_failed' }, match: { account_id: b.account_id } });
    const destination_id = await newDestination(sim, b.account_id, ARB_USDC);
    const c = await sim.api('POST', '/cancels', { body: { account_id: b.account_id, credit_id: b.credit_id, destination_id } });
    expect(c.status).toBe(200);
    await sim.settle();
    expect((await sim.api('GET', `/cancels/${c.body.cancel.cancel_id}`)).body.cancel.status).toBe('confirmed');
    expect((await sim.control('DELETE', `/faults/${recoveryRule}`)).status).toBe(200);
    expect(await sim.invariants()).toMatchObject({ ok: true });
  });

  it('refuses failure codes a payout cannot have (400 invalid_enum) and effects the target does not apply (501)', async () => {
    const bad = await sim.control('POST', '/faults', { target: 'recovery', effect: { fail: 'settlement_failed' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_enum', param: 'effect.fail' });
    expect(bad.body.error.message).toContain('broadcast_failed, confirmation_timeout');
    const reorg = await sim.control('POST', '/faults', { target: 'recovery', effect: { reorg: 'out' } });
    expect(reorg.status).toBe(501);
    expect(reorg.body.error.code).toBe('not_implemented');
  });
});
