import { describe, it, expect } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58, bech32, bech32m, createBase58check } from '@scure/base';
import { WALLET_CHAINS, addressFromPrivateKey, deriveWallet, type WalletChain } from './wallets.ts';

// Secret key with value 1: its public key is the generator G, so addresses are widely published.
const KEY_ONE = `${'00'.repeat(31)}01`;
const G_COMPRESSED = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';

// Deterministic seeds for the tests (never random, so failures reproduce).
const seed = (label: string): Uint8Array => sha256(utf8ToBytes(label));

describe('known vectors', () => {
  it('EVM: key 1 -> 0x7E5F…5Bdf with EIP-55 casing on both EVM chains', () => {
    expect(addressFromPrivateKey('evm:1', KEY_ONE)).toBe('0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf');
    expect(addressFromPrivateKey('evm:42161', KEY_ONE)).toBe('0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf');
    expect(addressFromPrivateKey('evm:1', `0x${KEY_ONE}`)).toBe('0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf');
  });

  it('Bitcoin: key 1 compressed -> bc1qw508…f3t4 (bech32, witness v0)', () => {
    const addr = addressFromPrivateKey('btc', KEY_ONE);
    expect(addr).toBe('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
    const { prefix, words } = bech32.decode(addr as `${string}1${string}`);
    expect(prefix).toBe('bc');
    expect(words[0]).toBe(0);
    // hash160(G compressed) is the well-known 751e76e8… program.
    expect(bytesToHex(bech32.fromWords(words.slice(1)))).toBe('751e76e8199196d454941c45d1b3a323f1433bd6');
    // v0 must use bech32, so the bech32m checksum must reject it.
    expect(() => bech32m.decode(addr as `${string}1${string}`)).toThrow();
  });

  it('Zcash: key 1 compressed -> t1UYsZVJkLPeMjxEtACvSxfWuNmddpWfxzs', () => {
    const addr = addressFromPrivateKey('zec', KEY_ONE);
    expect(addr).toBe('t1UYsZVJkLPeMjxEtACvSxfWuNmddpWfxzs');
    // Cross-check from first principles: 0x1CB8 || hash160(G compressed), base58check.
    const h160 = ripemd160(sha256(hexToBytes(G_COMPRESSED)));
    const payload = new Uint8Array([0x1c, 0xb8, ...h160]);
    expect(createBase58check(sha256).encode(payload)).toBe(addr);
  });

  it('Solana: RFC 8032 test vector 1 -> base58 of its public key', () => {
    const secret = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
    const pub = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
    const w = deriveWallet('solana', hexToBytes(secret));
    expect(w.public_key_hex).toBe(pub);
    expect(w.private_key_hex).toBe(secret);
    expect(w.address).toBe(base58.encode(hexToBytes(pub)));
    expect(w.address).toBe('FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z');
    expect(addressFromPrivateKey('solana', secret)).toBe(w.address);
  });

  it('secp256k1 chains report the compressed public key', () => {
    for (const chain of ['evm:1', 'evm:42161', 'btc', 'zec'] as const) {
      const w = deriveWallet(chain, hexToBytes(KEY_ONE));
      expect(w.public_key_hex).toBe(G_COMPRESSED);
      expect(w.private_key_hex).toBe(KEY_ONE);
    }
  });
});

describe('deriveWallet', () => {
  const addressShape: Record<WalletChain, RegExp> = {
    'evm:1': /^0x[0-9a-fA-F]{40}$/,
    'evm:42161': /^0x[0-9a-fA-F]{40}$/,
    btc: /^bc1q[02-9ac-hj-np-z]{38}$/,
    solana: /^[1-9A-HJ-NP-Za-km-z]{32,44}$/,
    zec: /^t1[1-9A-HJ-NP-Za-km-z]{33}$/,
  };

  it.each(WALLET_CHAINS)('%s: same seed gives the same wallet', (chain) => {
    const a = deriveWallet(chain, seed('alice'));
    const b = deriveWallet(chain, seed('alice'));
    expect(a).toEqual(b);
    expect(a.chain).toBe(chain);
    expect(a.address).toMatch(addressShape[chain]);
    expect(a.private_key_hex).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each(WALLET_CHAINS)('%s: different seeds give different addresses', (chain) => {
    const addrs = new Set(['a', 'b', 'c', 'd', 'e'].map((l) => deriveWallet(chain, seed(l)).address));
    expect(addrs.size).toBe(5);
  });

  it.each(WALLET_CHAINS)('%s: addressFromPrivateKey round-trips the exported key', (chain) => {
    for (let i = 0; i < 10; i++) {
      const w = deriveWallet(chain, seed(`round-trip-${i}`));
      expect(addressFromPrivateKey(chain, w.private_key_hex)).toBe(w.address);
    }
  });

  it('does not mutate or alias the caller seed', () => {
    const s = seed('alias');
    const copy = Uint8Array.from(s);
    const w = deriveWallet('solana', s);
    s.fill(0);
    expect(w.private_key_hex).toBe(bytesToHex(copy));
  });

  it('re-hashes seeds that are not valid secp256k1 scalars', () => {
    const zero = new Uint8Array(32);
    const overN = new Uint8Array(32).fill(0xff); // > curve order n
    expect(secp256k1.utils.isValidSecretKey(zero)).toBe(false);
    expect(secp256k1.utils.isValidSecretKey(overN)).toBe(false);
    expect(deriveWallet('btc', zero).private_key_hex).toBe(bytesToHex(sha256(zero)));
    expect(deriveWallet('evm:1', overN).private_key_hex).toBe(bytesToHex(sha256(overN)));
    // ed25519 accepts any 32 bytes, so Solana uses the seed as-is.
    expect(deriveWallet('solana', zero).private_key_hex).toBe('00'.repeat(32));
  });

  it('rejects seeds that are not 32 bytes', () => {
    expect(() => deriveWallet('btc', new Uint8Array(31))).toThrow(/32 bytes/);
    expect(() => deriveWallet('solana', new Uint8Array(33))).toThrow(/32 bytes/);
  });
});

describe('addressFromPrivateKey input checks', () => {
  it('rejects keys of the wrong length or outside the secp256k1 range', () => {
    expect(() => addressFromPrivateKey('evm:1', '01')).toThrow();
    expect(() => addressFromPrivateKey('zec', '00'.repeat(32))).toThrow();
    expect(() => addressFromPrivateKey('btc', 'ff'.repeat(32))).toThrow();
  });
});
