// Test fixtures for key export: the export flows the transition-coverage suite runs (the recipient key pair
// and bundle opening are scenarios/library/export-recipient.ts, which the scenario library uses too).
import type { TestSim } from '../../testing/harness.ts';
import { recipientKeys } from '../../../scenarios/library/export-recipient.ts';

function must(r: { status: number; body: any }, what: string): any {
  if (r.status !== 200) throw new Error(`${what}: expected 200, got ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/**
 * Every account-machine export edge: an integrator export started before the wallets exist (so they are
 * derived while export_initiated), then exported; and a user-email export of a deactivated account.
 */
export async function exportCoverageFlow(sim: TestSim): Promise<void> {
  const keys = recipientKeys();
  const early = must(await sim.api('POST', '/accounts', { body: {} }), 'create').account.account_id;
  must(await sim.api('POST', `/accounts/${early}/export-keys`, { body: { target_public_key: keys.public_key_hex } }), 'export-keys');
  const user = must(await sim.api('POST', '/accounts', { body: {} }), 'create').account.account_id;
  must(await sim.api('PATCH', `/accounts/${user}`, { body: { email: 'user@example.com' } }), 'email');
  must(await sim.api('POST', `/accounts/${user}/deactivate`), 'deactivate');
  must(await sim.api('POST', '/public/initiate-export', { body: { account_id: user }, key: null }), 'initiate');
  const otp_code = must(await sim.control('GET', `/emails?account_id=${user}`), 'inbox').emails.at(-1).otp_code;
  must(await sim.api('POST', '/public/complete-export', { body: { account_id: user, otp_code, target_public_key: keys.public_key_hex }, key: null }), 'complete');
  await sim.settle();
  for (const id of [early, user]) {
    const status = must(await sim.api('GET', `/accounts/${id}`), 'get').account.status;
    if (status !== 'exported') throw new Error(`account ${id} is ${status} after settle`);
  }
}
