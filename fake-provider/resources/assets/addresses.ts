// Real on-chain address formats per chain (destinations, deposit sources, recovery destinations): EVM hex with EIP-55,
// Bitcoin segwit (bech32/bech32m) and legacy base58check, Solana base58 keys, Zcash transparent.
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { base58, bech32, bech32m, createBase58check } from '@scure/base';
import { createKeccak, type IHasher } from 'hash-wasm';
import type { Chain } from './catalog.ts';

const base58check = createBase58check(sha256);

/** keccak256 of `data` in pure JS (noble): the reference, and what runs until the WebAssembly one is ready. */
export function keccak256Js(data: Uint8Array | string): Uint8Array {
  return keccak_256(typeof data === 'string' ? utf8ToBytes(data) : data);
}

let wasmKeccak: IHasher | undefined;
/**
 * hash-wasm's WebAssembly keccak is ~8× faster per hash (1.1 µs against 8.4 µs for 40 bytes; every generated
 * deposit sender and wallet address takes one) but compiles asynchronously. Awaiting it at the top of this
 * module stopped CommonJS projects from `require('swapsim')`, so it takes over once ready and noble's gives
 * the same bytes until then (or for good, if WebAssembly is unavailable). Resolves once the switch is made.
 */
export const keccakReady: Promise<void> = createKeccak(256).then(
  (hasher) => {
    wasmKeccak = hasher;
  },
  () => undefined,
);

/** keccak256 of `data` (the Ethereum hash, not NIST SHA3-256), a string as its UTF-8 bytes. */
export function keccak256(data: Uint8Array | string): Uint8Array {
  if (wasmKeccak === undefined) return keccak256Js(data);
  // A scratch instance: init → update → digest run synchronously, so calls never interleave.
  wasmKeccak.init();
  wasmKeccak.update(data);
  return wasmKeccak.digest('binary');
}

/** Why an address is malformed for its chain, or null when it is a valid mainnet address. */
export function addressProblem(chain: Chain, address: string): string | null {
  switch (chain) {
    case 'evm:1':
    case 'evm:42161':
      return evmProblem(address);
    case 'btc':
      return btcProblem(address);
    case 'solana':
      return solanaProblem(address);
    case 'zec':
      return zecProblem(address);
  }
}

function evmProblem(address: string): string | null {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return 'an EVM address is 0x followed by 40 hex digits';
  const hex = address.slice(2);
  // All-lowercase or all-uppercase hex carries no checksum; mixed case claims EIP-55 and must match it.
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return null;
  return toChecksumAddress(hex.toLowerCase()) === address ? null : 'the mixed-case EVM address fails its EIP-55 checksum';
}

/** The checksummed address is written here, then read out as latin1 text. */
const checksumText = Buffer.from('0x'.padEnd(42, '0'), 'latin1');

/** EIP-55: a hex letter is uppercase when the matching nibble of keccak256(lowercase hex) is >= 8. */
export function toChecksumAddress(lowerHex40: string): string {
  // ASCII hex: hashed as its UTF-8 bytes, one byte a char here.
  const hash = keccak256(lowerHex40);
  // Nibble i of the hash is the high (even i) or low (odd i) half of byte i/2.
  for (let i = 0; i < 40; i++) {
    const nibble = i & 1 ? hash[i >> 1]! & 15 : hash[i >> 1]! >> 4;
    const ch = lowerHex40.charCodeAt(i);
    checksumText[i + 2] = nibble >= 8 && ch >= 97 ? ch - 32 : ch;
  }
  return checksumText.toString('latin1', 0, 42);
}

// Mainnet only (the service has no test network): `bc` segwit, P2PKH version 0x00, P2SH version 0x05.
function btcProblem(address: string): string | null {
  if (/^bc1/i.test(address)) return segwitProblem(address);
  if (/^[13]/.test(address)) {
    const payload = tryDecode(() => base58check.decode(address));
    if (payload && payload.length === 21 && (payload[0] === 0x00 || payload[0] === 0x05)) return null;
    return 'not a valid base58check P2PKH (1…) or P2SH (3…) Bitcoin address';
  }
  return 'a Bitcoin mainnet address starts with bc1, 1 or 3';
}

// BIP-173 / BIP-350: witness v0 uses bech32 with a 20- or 32-byte program; v1..16 use bech32m, 2..40 bytes.
function segwitProblem(address: string): string | null {
  const bad = 'not a valid bech32/bech32m segwit address';
  const asBech32 = tryDecode(() => bech32.decode(address as `${string}1${string}`));
  const asBech32m = asBech32 ? null : tryDecode(() => bech32m.decode(address as `${string}1${string}`));
  const decoded = asBech32 ?? asBech32m;
  if (decoded?.prefix !== 'bc' || decoded.words.length < 1) return bad;
  const version = decoded.words[0]!;
  const program = tryDecode(() => bech32.fromWords(decoded.words.slice(1)));
  if (!program || version > 16) return bad;
  if (version === 0) return asBech32 && (program.length === 20 || program.length === 32) ? null : bad;
  return asBech32m && program.length >= 2 && program.length <= 40 ? null : bad;
}

// Any 32 bytes are a Solana address (program-derived addresses are off the curve by design).
function solanaProblem(address: string): string | null {
  const bytes = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address) ? tryDecode(() => base58.decode(address)) : null;
  return bytes && bytes.length === 32 ? null : 'a Solana address is 32 bytes in base58';
}

// Transparent addresses only: t1 (P2PKH, version 1cb8) and t3 (P2SH, version 1cbd).
function zecProblem(address: string): string | null {
  const payload = /^t[13]/.test(address) ? tryDecode(() => base58check.decode(address)) : null;
  if (payload && payload.length === 22 && payload[0] === 0x1c && (payload[1] === 0xb8 || payload[1] === 0xbd)) return null;
  return 'not a valid Zcash transparent address (t1… or t3…, base58check)';
}

function tryDecode<T>(fn: () => T): T | null {
  try {
    return fn();
  } catch {
    return null;
  }
}
