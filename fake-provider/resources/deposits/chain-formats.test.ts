// Chain formats: known-good addresses of each chain pass (checksums included), near misses fail, and
// generated hashes and sender addresses have the chain's real shape.
import { describe, expect, it } from 'vitest';
import { createRng } from '../../../sim/index.ts';
import { canonicalTxHash, generateSourceAddress, generateTxHash, isChainAddress } from './chain-formats.ts';

describe('isChainAddress', () => {
  it.each([
    ['evm:1', '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf'],
    ['btc', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
    ['btc', 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr'],
    ['btc', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
    ['solana', 'FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z'],
    ['zec', 't1UYsZVJkLPeMjxEtACvSxfWuNmddpWfxzs'],
  ] as const)('%s accepts %s', (chain, address) => {
    expect(isChainAddress(chain, address)).toBe(true);
  });

  it.each([
    ['evm:42161', '0x7E5F4552091A69125d5DfCb7b8C2659029395Bd'],
    ['btc', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5'],
    ['btc', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb'],
    ['solana', '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf'],
    ['zec', 't1UYsZVJkLPeMjxEtACvSxfWuNmddpWfxzt'],
    ['zec', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
  ] as const)('%s refuses %s', (chain, address) => {
    expect(isChainAddress(chain, address)).toBe(false);
  });
});

describe('transaction hashes', () => {
  it('canonicalizes hex hashes to lowercase and refuses other shapes', () => {
    expect(canonicalTxHash('evm:1', `0x${'AB'.repeat(32)}`)).toBe(`0x${'ab'.repeat(32)}`);
    expect(canonicalTxHash('evm:1', 'ab'.repeat(32))).toBeNull();
    expect(canonicalTxHash('btc', 'CD'.repeat(32))).toBe('cd'.repeat(32));
    expect(canonicalTxHash('zec', `0x${'cd'.repeat(32)}`)).toBeNull();
    expect(canonicalTxHash('solana', 'ab'.repeat(32))).toBeNull();
  });

  it('generates hashes and senders each chain accepts back', () => {
    const rng = createRng('formats');
    for (const chain of ['evm:1', 'evm:42161', 'btc', 'solana', 'zec'] as const) {
      const tx = generateTxHash(chain, rng);
      expect(canonicalTxHash(chain, tx)).toBe(tx);
      expect(isChainAddress(chain, generateSourceAddress(chain, rng))).toBe(true);
    }
  });
});
