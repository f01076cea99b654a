// Address formats per chain against published vectors (BIP-173/350, EIP-55, well-known addresses) and
// against addresses derived by the accounts resource's real key derivation.
import { describe, expect, it } from 'vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { createBase58check } from '@scure/base';
import { deriveWallet, WALLET_CHAINS } from '../accounts/index.ts';
import { addressProblem, keccak256, keccak256Js, keccakReady, toChecksumAddress } from './addresses.ts';

const seed = (label: string): Uint8Array => sha256(utf8ToBytes(label));
const zecT3 = createBase58check(sha256).encode(Uint8Array.from([0x1c, 0xbd, ...seed('t3').subarray(0, 20)]));

const VALID: Array<[Parameters<typeof addressProblem>[0], string]> = [
  ['evm:1', '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf'],
  ['evm:1', '0x7e5f4552091a69125d5dfcb7b8c2659029395bdf'],
  ['evm:42161', '0x7E5F4552091A69125D5DFCB7B8C2659029395BDF'],
  ['btc', 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4'],
  ['btc', 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3'],
  ['btc', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0'],
  ['btc', 'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs'],
  ['btc', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
  ['btc', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'],
  ['solana', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'],
  ['solana', '11111111111111111111111111111111'],
  ['zec', 't1Hsc1LR8yKnbbe3twRp88p6vFfC5t7DLbs'],
  ['zec', zecT3],
];

const INVALID: Array<[Parameters<typeof addressProblem>[0], string, string]> = [
  ['evm:1', '0x7E5F4552091A69125d5DfCb7b8C2659029395BdF', 'bad EIP-55 checksum'],
  ['evm:1', '7e5f4552091a69125d5dfcb7b8c2659029395bdf', 'no 0x'],
  ['evm:1', '0x7e5f4552091a69125d5dfcb7b8c2659029395bd', '39 hex digits'],
  ['evm:42161', '0x7e5f4552091a69125d5dfcb7b8c2659029395bdg', 'non-hex digit'],
  ['btc', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', 'v0 with a bech32m checksum'],
  ['btc', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf', 'v1 with a bech32 checksum'],
  ['btc', 'bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4', 'character outside the alphabet'],
  ['btc', 'BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', 'v0 program of 16 bytes'],
  ['btc', 'bc1zw508d6qejxtdg4y5r3zarvaryvqyzf3du', 'non-zero padding'],
  ['btc', 'bc1gmk9yu', 'empty program'],
  ['btc', 'Bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'mixed case'],
  ['btc', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'testnet'],
  ['btc', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb', 'bad base58check checksum'],
  ['btc', 't1Hsc1LR8yKnbbe3twRp88p6vFfC5t7DLbs', 'a Zcash address'],
  ['solana', '1111111111111111111111111111111', '31 bytes'],
  ['solana', '0PjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 'character outside base58'],
  ['solana', '0x7e5f4552091a69125d5dfcb7b8c2659029395bdf', 'an EVM address'],
  ['zec', 't1Hsc1LR8yKnbbe3twRp88p6vFfC5t7DLbt', 'bad checksum'],
  ['zec', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'a Bitcoin address'],
  ['zec', 'zs1z7rejlpsa98s2rrrfkwmaxu53e4ue0ulcrw0h4x5g8jl04tak0d3mm47vdtahatqrlkngh9sly', 'a shielded address'],
];

describe('addressProblem', () => {
  it.each(VALID)('%s accepts %s', (chain, address) => {
    expect(addressProblem(chain, address)).toBeNull();
  });

  it.each(INVALID)('%s rejects %s (%s)', (chain, address) => {
    expect(addressProblem(chain, address)).toEqual(expect.any(String));
  });

  it('accepts the address every wallet chain derives', () => {
    for (const chain of WALLET_CHAINS) expect(addressProblem(chain, deriveWallet(chain, seed(chain)).address)).toBeNull();
  });

  it('computes EIP-55 casing (spec vector from EIP-55)', () => {
    expect(toChecksumAddress('5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toBe('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
    // Keccak-256 (Ethereum's, not NIST SHA3-256): the empty input and "abc", as bytes and as a string.
    const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
    expect(hex(keccak256(new Uint8Array()))).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(hex(keccak256('abc'))).toBe('4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
    expect(hex(keccak256(new TextEncoder().encode('abc')))).toBe(hex(keccak256('abc')));
  });

  it('hashes the same bytes in pure JS (before WebAssembly is ready) and in WebAssembly (after)', async () => {
    const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
    expect(hex(keccak256Js(new Uint8Array()))).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(hex(keccak256Js('abc'))).toBe('4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
    await keccakReady;
    // Lengths around keccak-256's 136-byte block, non-ASCII text, and the 40-char hex EIP-55 hashes.
    const inputs: Array<Uint8Array | string> = [0, 1, 135, 136, 137, 272, 1000].map((n) =>
      Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 255),
    );
    inputs.push('5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', 'Zoë, 日本, 🙂');
    for (const input of inputs) expect(hex(keccak256(input))).toBe(hex(keccak256Js(input)));
  });
});
