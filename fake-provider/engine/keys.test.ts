// engine/keys.ts against noble's own getPublicKey as the oracle: the same bytes for random secrets, the
// edge scalars (1, n - 1) and seeds whose hash clamps to extreme ed25519 scalars.
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { ed25519PublicKey, secp256k1PublicKey } from './keys.ts';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const N = secp256k1.Point.Fn.ORDER;
const scalarBytes = (k: bigint): Uint8Array => Uint8Array.from(Buffer.from(k.toString(16).padStart(64, '0'), 'hex'));

describe('engine keys', () => {
  test.prop([fc.uint8Array({ minLength: 32, maxLength: 32 })], { numRuns: 200 })(
    'secp256k1: both encodings equal noble getPublicKey',
    (seed) => {
      fc.pre(secp256k1.utils.isValidSecretKey(seed));
      const got = secp256k1PublicKey(seed);
      expect(hex(got.compressed)).toBe(hex(secp256k1.getPublicKey(seed, true)));
      expect(hex(got.uncompressed)).toBe(hex(secp256k1.getPublicKey(seed, false)));
    },
  );

  test.prop([fc.uint8Array({ minLength: 32, maxLength: 32 })], { numRuns: 200 })('ed25519: equals noble getPublicKey', (seed) => {
    expect(hex(ed25519PublicKey(seed))).toBe(hex(ed25519.getPublicKey(seed)));
  });

  it('secp256k1 edge scalars 1 and n - 1, and refuses 0 and n', () => {
    for (const k of [1n, 2n, N - 1n])
      expect(hex(secp256k1PublicKey(scalarBytes(k)).compressed)).toBe(hex(secp256k1.getPublicKey(scalarBytes(k), true)));
    expect(() => secp256k1PublicKey(scalarBytes(0n))).toThrow();
    expect(() => secp256k1PublicKey(scalarBytes(N))).toThrow();
  });

  it('ed25519: all-zero and all-ones secrets, and refuses other lengths', () => {
    for (const b of [0, 0xff])
      expect(hex(ed25519PublicKey(new Uint8Array(32).fill(b)))).toBe(hex(ed25519.getPublicKey(new Uint8Array(32).fill(b))));
    expect(() => ed25519PublicKey(new Uint8Array(31))).toThrow();
  });
});
