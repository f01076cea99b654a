// Test fixtures for key export: a fixed P-256 recipient key pair, bundle opening with an @hpke/core
// recipient context (as an integrator would), and the export flows the transition-coverage suite runs.
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { TestSim } from '../../testing/harness.ts';
import { exportSuite, HPKE_AAD, HPKE_ENC_BYTES, HPKE_INFO, type BundlePlaintext } from './hpke.ts';

export interface RecipientKeys {
  private_key: Uint8Array;
  /** Uncompressed, 130 hex characters starting `04`: what `target_public_key` takes. */
  public_key_hex: string;
}

/** A deterministic recipient key pair (a hash is a valid P-256 scalar with overwhelming probability). */
export function recipientKeys(label = 'swapsim export test'): RecipientKeys {
  const private_key = sha256(utf8ToBytes(label));
  return { private_key, public_key_hex: bytesToHex(p256.getPublicKey(private_key, false)) };
}

/** Opens an `export_bundle` (base64 of enc || ciphertext) with a recipient context. */
export async function openWithRecipient(bundle_base64: string, keys: RecipientKeys): Promise<BundlePlaintext> {
  const suite = exportSuite();
  const bytes = new Uint8Array(Buffer.from(bundle_base64, 'base64'));
  const recipientKey = await suite.kem.importKey('raw', Uint8Array.from(keys.private_key).buffer, false);
  const ctx = await suite.createRecipientContext({ recipientKey, enc: bytes.slice(0, HPKE_ENC_BYTES), info: new TextEncoder().encode(HPKE_INFO) });
  const pt = await ctx.open(bytes.slice(HPKE_ENC_BYTES), HPKE_AAD);
  return JSON.parse(new TextDecoder().decode(pt)) as BundlePlaintext;
}

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
