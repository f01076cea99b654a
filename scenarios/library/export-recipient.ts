// The integrator's side of a key export: a fixed P-256 recipient key pair and opening an \`export_bundle\` with an
// @hpke/core recipient context, as an integrator would. Used by the export scenarios and by tests.
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { exportSuite, HPKE_AAD, HPKE_ENC_BYTES, HPKE_INFO, type BundlePlaintext } from '../../fake-provider/resources/exports/index.ts';

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
  const ctx = await suite.createRecipientContext({
    recipientKey,
    enc: bytes.slice(0, HPKE_ENC_BYTES),
    info: new TextEncoder().encode(HPKE_INFO),
  });
  const pt = await ctx.open(bytes.slice(HPKE_ENC_BYTES), HPKE_AAD);
  return JSON.parse(new TextDecoder().decode(pt)) as BundlePlaintext;
}
