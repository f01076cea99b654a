// Real-format on-chain values for simulated deposits: transaction hashes and source addresses per chain,
// generated from a seeded stream or checked when a control call supplies them.
import { base58 } from '@scure/base';
import type { Rng } from '../../../sim/index.ts';
import { deriveWallet, type WalletChain } from '../accounts/index.ts';
import { addressProblem } from '../assets/index.ts';

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
  return (isEvm(chain) ? '0x' : '') + rng.hex(32);
}

/** The canonical form of a transaction hash (hex lowercased), or null when it is not one for this chain. */
export function canonicalTxHash(chain: WalletChain, text: string): string | null {
  if (chain === 'solana') return decodes(text, base58.decode)?.length === 64 ? text : null;
  const re = isEvm(chain) ? /^0x[0-9a-fA-F]{64}$/ : /^[0-9a-fA-F]{64}$/;
  return re.test(text) ? text.toLowerCase() : null;
}

/** A sender address of a real key pair on the chain. */
export function generateSourceAddress(chain: WalletChain, rng: Rng): string {
  return deriveWallet(chain, rng.bytes(32)).address;
}

/** Whether `text` is a well-formed address on the chain (the one format check, shared with destinations). */
export function isChainAddress(chain: WalletChain, text: string): boolean {
  return addressProblem(chain, text) === null;
}
