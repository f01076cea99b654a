// Key-export bundles: HPKE (RFC 9180, base mode) with DHKEM(P-256, HKDF-SHA256), HKDF-SHA256 and
// AES-128-GCM, sealed to the integrator's or user's `target_public_key`; and that key's validation.
import { Aes128Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { p256 } from '@noble/curves/nist.js';
import { hexToBytes } from '@noble/hashes/utils.js';

/**
 * Wire format of `export_bundle`: standard base64 (padded) of `enc || ciphertext`, where `enc` is the
 * 65-byte uncompressed ephemeral P-256 key (starts 0x04) and `ciphertext` is the AEAD output (tag last).
 * The plaintext is UTF-8 JSON `{chain, address, private_key_hex}`.
 */
export const HPKE_ENC_BYTES = 65;
/** HPKE `info` (key schedule context), UTF-8. */
export const HPKE_INFO = 'swapsim key export v1';
/** AEAD additional data: empty. */
export const HPKE_AAD = new Uint8Array(0);

export interface BundlePlaintext {
  chain: string;
  address: string;
  private_key_hex: string;
}

/** The suite is stateless: one per call keeps this module free of shared mutable state. */
export function exportSuite(): CipherSuite {
  return new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes128Gcm() });
}

/** Why a `target_public_key` is refused, or null when it is an uncompressed P-256 point on the curve. */
export function targetKeyProblem(hex: string): string | null {
  if (!/^[0-9a-fA-F]{130}$/.test(hex)) return 'must be 130 hex characters (an uncompressed P-256 public key)';
  if (!hex.startsWith('04')) return "must start with '04' (uncompressed point form)";
  try {
    p256.Point.fromHex(hex.toLowerCase()).assertValidity();
    return null;
  } catch {
    return 'is not a point on the P-256 curve';
  }
}

/**
 * Seals one key to the target. Each call draws a fresh WebCrypto ephemeral key, so bundles differ from
 * run to run: the one output of swapsim that is not byte-identical for the same seed and inputs.
 */
export async function sealBundle(target_public_key_hex: string, plaintext: BundlePlaintext): Promise<string> {
  const suite = exportSuite();
  const recipientPublicKey = await suite.kem.deserializePublicKey(hexToBytes(target_public_key_hex.toLowerCase()));
  const { enc, ct } = await suite.seal(
    { recipientPublicKey, info: new TextEncoder().encode(HPKE_INFO) },
    new TextEncoder().encode(JSON.stringify(plaintext)),
    HPKE_AAD,
  );
  const out = new Uint8Array(enc.byteLength + ct.byteLength);
  out.set(new Uint8Array(enc), 0);
  out.set(new Uint8Array(ct), enc.byteLength);
  return Buffer.from(out).toString('base64');
}
