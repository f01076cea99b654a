// Owns wallet key derivation for the fake provider: real key pairs and on-chain address
// encodings (EVM, Bitcoin P2WPKH, Solana, Zcash transparent) from caller-supplied seed bytes.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { keccak256, toChecksumAddress } from '../assets/index.ts';
import { base58, bech32, createBase58check } from '@scure/base';
import { ed25519PublicKey, secp256k1PublicKey, type Secp256k1PublicKey } from '../../engine/index.ts';

export type WalletChain = 'evm:1' | 'evm:42161' | 'btc' | 'solana' | 'zec';

export const WALLET_CHAINS: readonly WalletChain[] = Object.freeze(['evm:1', 'evm:42161', 'btc', 'solana', 'zec'] as const);

export interface WalletKey {
  chain: WalletChain;
  address: string;
  private_key_hex: string;
  public_key_hex: string;
}

// Zcash mainnet transparent P2PKH version bytes; they make addresses start with "t1".
const ZEC_P2PKH_PREFIX = Uint8Array.of(0x1c, 0xb8);
const base58check = createBase58check(sha256);

/** Derives a real key pair for `chain` from 32 bytes of seed material (supplied by the caller's seeded RNG; never read randomness yourself). */
export function deriveWallet(chain: WalletChain, seed32: Uint8Array): WalletKey {
  if (!(seed32 instanceof Uint8Array) || seed32.length !== 32) {
    throw new Error(`deriveWallet: seed32 must be 32 bytes, got ${seed32?.length}`);
  }
  // ed25519 accepts any 32 bytes as a secret; secp256k1 needs a scalar in [1, n).
  const secret = chain === 'solana' ? Uint8Array.from(seed32) : toSecp256k1Scalar(seed32);
  // One point per key, in both encodings: the address and the reported key read the same one.
  const keys = publicKeys(chain, secret);
  return {
    chain,
    address: addressFromKeys(chain, keys),
    private_key_hex: Buffer.from(secret).toString('hex'),
    public_key_hex: Buffer.from(keys.reported).toString('hex'),
  };
}

/** Recomputes the address a private key controls on that chain (used by tests and by a later key-export check). */
export function addressFromPrivateKey(chain: WalletChain, private_key_hex: string): string {
  const secret = hexToBytes(private_key_hex.replace(/^0x/i, ''));
  if (secret.length !== 32) throw new Error('addressFromPrivateKey: key must be 32 bytes');
  if (chain !== 'solana' && !secp256k1.utils.isValidSecretKey(secret)) {
    throw new Error('addressFromPrivateKey: not a valid secp256k1 secret key');
  }
  return addressFromKeys(chain, publicKeys(chain, secret));
}

// Re-hashing (rather than reducing mod n) keeps the mapping deterministic and uniform;
// an invalid scalar (0 or >= n) has probability ~2^-128, so this loop practically never spins.
function toSecp256k1Scalar(seed32: Uint8Array): Uint8Array {
  let k = Uint8Array.from(seed32);
  while (!secp256k1.utils.isValidSecretKey(k)) k = sha256(k);
  return k;
}

// Reported public key: compressed (33 bytes) for every secp256k1 chain, EVM included, so the
// field has one shape; EVM addresses are still hashed from the uncompressed form as required.
interface PublicKeys {
  reported: Uint8Array;
  secp: Secp256k1PublicKey | null;
}

function publicKeys(chain: WalletChain, secret: Uint8Array): PublicKeys {
  if (chain === 'solana') return { reported: ed25519PublicKey(secret), secp: null };
  const secp = secp256k1PublicKey(secret);
  return { reported: secp.compressed, secp };
}

function addressFromKeys(chain: WalletChain, keys: PublicKeys): string {
  switch (chain) {
    case 'evm:1':
    case 'evm:42161':
      return evmAddress(keys.secp!.uncompressed);
    case 'btc':
      return bech32.encode('bc', [0, ...bech32.toWords(hash160(keys.secp!.compressed))]);
    case 'solana':
      return base58.encode(keys.reported);
    case 'zec':
      return zecTransparentAddress(keys.secp!.compressed);
  }
}

const hash160 = (bytes: Uint8Array): Uint8Array => ripemd160(sha256(bytes));

function zecTransparentAddress(compressedPub: Uint8Array): string {
  const payload = new Uint8Array(22);
  payload.set(ZEC_P2PKH_PREFIX, 0);
  payload.set(hash160(compressedPub), 2);
  return base58check.encode(payload);
}

// Address = last 20 bytes of keccak256(X||Y), i.e. the uncompressed key without its 0x04 tag.
function evmAddress(uncompressedPub: Uint8Array): string {
  return toChecksumAddress(bytesToHex(keccak256(uncompressedPub.subarray(1)).subarray(-20)));
}
