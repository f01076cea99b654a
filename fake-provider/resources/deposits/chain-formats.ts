// Real-format on-chain values for simulated deposits: transaction hashes and source addresses per chain,
// generated from a seeded stream or checked when a control call supplies them.
import { base58, bech32, createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import type { Rng } from '../../../sim/index.ts';
import type { WalletChain } from '../accounts/index.ts';
import { addressProblem, toChecksumAddress } from '../assets/index.ts';

const isEvm = (chain: WalletChain): boolean => chain.startsWith('evm:');

function decodes(text: string, decode: (s: string) => Uint8Array): Uint8Array | null {
  try {
    return decode(text);
  } catch {
    return null;
  }
}

/** 0x + 64 hex on EVM chains, 64 hex on Bitcoin and Zcash, a base58 64-byte signature on Solana. */
export function generateTxHash(chain: WalletChain, rng: Rng): string {
  if (chain === 'solana') return base58.encode(rng.bytes(64));
  return rng.hex(32, isEvm(chain) ? '0x' : '');
}

/** The canonical form of a transaction hash (hex lowercased), or null when it is not one for this chain. */
export function canonicalTxHash(chain: WalletChain, text: string): string | null {
  if (chain === 'solana') return decodes(text, base58.decode)?.length === 64 ? text : null;
  const re = isEvm(chain) ? /^0x[0-9a-fA-F]{64}$/ : /^[0-9a-fA-F]{64}$/;
  return re.test(text) ? text.toLowerCase() : null;
}

/**
 * A sender address in the chain's real format (checksums included) from random hash bytes. Senders are
 * outside parties whose keys swapsim never needs, so no key pair is generated: that was a full
 * secp256k1 key generation per deposit, the engine's largest single cost.
 */
export function generateSourceAddress(chain: WalletChain, rng: Rng): string {
  if (isEvm(chain)) return toChecksumAddress(rng.hex(20));
  if (chain === 'btc') return bech32.encode('bc', [0, ...bech32.toWords(rng.bytes(20))]);
  if (chain === 'solana') return base58.encode(rng.bytes(32));
  return zecCheck.encode(Uint8Array.from([0x1c, 0xb8, ...rng.bytes(20)]));
}

const zecCheck = createBase58check(sha256);

/** Whether `text` is a well-formed address on the chain (the one format check, shared with destinations). */
export function isChainAddress(chain: WalletChain, text: string): boolean {
  return addressProblem(chain, text) === null;
}
