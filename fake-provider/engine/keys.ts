// Public keys from secret keys for wallet derivation (secp256k1, ed25519): each key's point is computed once
// and given in every encoding the caller needs, by variable-time multiplication of the base point. Same bytes
// as noble's getPublicKey; about a third of the cost (the account creation hot path's largest item).
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';

export interface Secp256k1PublicKey {
  /** 33 bytes, 0x02/0x03 tag. */
  compressed: Uint8Array;
  /** 65 bytes, 0x04 tag. */
  uncompressed: Uint8Array;
}

const SECP = secp256k1.Point;
const ED = ed25519.Point;

/**
 * The public key of a valid secp256k1 secret (a scalar in [1, n); throws otherwise). noble's getPublicKey
 * multiplies in constant time with blinding, a guard against timing side channels: the fake's keys come
 * from a seeded stream and are printed in key exports, so there is nothing to guard, and a caller wanting
 * both encodings paid the multiplication twice.
 */
export function secp256k1PublicKey(secret: Uint8Array): Secp256k1PublicKey {
  // Made affine once (one field inversion), so the two encodings do not invert again each.
  const point = SECP.fromAffine(SECP.BASE.multiplyUnsafe(SECP.Fn.fromBytes(secret)).toAffine());
  return { compressed: point.toBytes(true), uncompressed: point.toBytes(false) };
}

/** The RFC 8032 public key of a 32-byte ed25519 secret: SHA-512, clamp, reduce, multiply the base point. */
export function ed25519PublicKey(secret: Uint8Array): Uint8Array {
  if (secret.length !== 32) throw new Error(`ed25519PublicKey: secret must be 32 bytes, got ${secret.length}`);
  const head = sha512(secret).subarray(0, 32);
  head[0] &= 248;
  head[31] &= 127;
  head[31] |= 64;
  let scalar = 0n;
  for (let i = 31; i >= 0; i--) scalar = (scalar << 8n) | BigInt(head[i]);
  return ED.BASE.multiplyUnsafe(scalar % ED.Fn.ORDER).toBytes();
}
