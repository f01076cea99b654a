// Test-only helpers for the recovery suites: a zap failed by a fault (leaving its credit open), an email on
// the account, the newest emailed OTP, and one run that takes every edge of the recovery machine.
import type { TestSim } from '../../testing/harness.ts';
import { addFault, creditZap, EVM_ADDRESS, funded, getZap, postZap } from '../zaps/fixtures.ts';

export { ARB_ETH, ARB_USDC, EVM_ADDRESS, newDestination } from '../zaps/fixtures.ts';
/** A well-formed Arbitrum address the suites flag in screening. */
export const FLAGGED_ADDRESS = '0x6813Eb9362372EEF6200f3b1dbC3f819671cBA69';

export interface FailedZap {
  account_id: string;
  credit_id: string;
  zap_id: string;
  zap: any;
}

/** A ready account with a 100 USDC credit, and a credit-funded zap on it failed with execution_failed. */
export async function failedZap(sim: TestSim, key?: string): Promise<FailedZap> {
  const f = await funded(sim, key);
  await addFault(sim, { target: 'zap', effect: { fail: 'execution_failed' }, match: { account_id: f.account_id }, times: 1 });
  const r = await postZap(sim, creditZap(f), { key });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  await sim.settle();
  const zap = await getZap(sim, r.body.zap.zap_id, key);
  return { account_id: f.account_id, credit_id: f.credit_id, zap_id: zap.zap_id, zap };
}

export async function attachEmail(sim: TestSim, account_id: string, key?: string): Promise<void> {
  const r = await sim.api('PATCH', `/accounts/${account_id}`, { body: { email: 'user@example.com' }, key });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
}

export async function latestOtp(sim: TestSim, account_id: string): Promise<string> {
  return (await sim.control('GET', `/emails?account_id=${account_id}`)).body.emails.at(-1).otp_code;
}

export function activate(sim: TestSim, recovery_id: string, body: Record<string, unknown>, opts: { key?: string | null; idem?: string } = {}) {
  return sim.api('POST', `/recoveries/${recovery_id}/activate`, { body, ...opts });
}

export function recoverFunds(sim: TestSim, body: Record<string, unknown>) {
  return sim.api('POST', '/public/recover-funds', { body, key: null });
}

/**
 * created → active → active (resend) → failed (flagged destination) → active → claimed → failed (a
 * `recovery` fault fails the payout) → active → claimed, then the payout confirms.
 */
export async function driveRecoveryEdges(sim: TestSim): Promise<void> {
  const { account_id, credit_id, zap } = await failedZap(sim);
  const recovery_id = zap.recovery.recovery_id as string;
  await attachEmail(sim, account_id);
  const ok = async (p: Promise<{ status: number; body: any }>, status: number) => {
    const r = await p;
    if (r.status !== status) throw new Error(JSON.stringify(r.body));
  };
  await ok(activate(sim, recovery_id, { account_id, credit_id }), 200);
  await ok(activate(sim, recovery_id, { account_id, credit_id }), 200);
  await sim.control('POST', '/screening/addresses', { address: FLAGGED_ADDRESS, flag_reason: 'sanctions_match' });
  await ok(recoverFunds(sim, { account_id, credit_id, otp_code: await latestOtp(sim, account_id), destination: { address: FLAGGED_ADDRESS } }), 403);
  await ok(activate(sim, recovery_id, { account_id, credit_id }), 200);
  await ok(sim.control('POST', '/faults', { target: 'recovery', effect: { fail: 'broadcast_failed' }, match: { ids: [recovery_id] }, times: 1 }), 200);
  await ok(recoverFunds(sim, { account_id, credit_id, otp_code: await latestOtp(sim, account_id), destination: { address: EVM_ADDRESS } }), 202);
  await sim.settle();
  await ok(activate(sim, recovery_id, { account_id, credit_id }), 200);
  await ok(recoverFunds(sim, { account_id, credit_id, otp_code: await latestOtp(sim, account_id), destination: { address: EVM_ADDRESS } }), 202);
  await sim.settle();
}
