// The trading model's two sides: `TradingModel`, the little the test believes (accounts, their destinations,
// the operations it started, the fault rules it added) and `TradingReal`, the running fake. Credits are read
// from the API, never predicted. Commands (one file each) read the model to decide what is legal and which
// answers are legitimate, act on the real side, and assert.
import { expect } from 'vitest';
import type { HttpReply, TestSim } from '../../fake-provider/testing/harness.ts';
import { DEFAULT_PROFILE } from '../../fake-provider/profile.ts';

export interface TAccount {
  account_id: string;
  /** Deposit fault rules matched to this account (a funding deposit may then be dropped or late). */
  deposit_faults: number;
}

export interface TDestination {
  destination_id: string;
  account_id: string;
  asset_key: string;
  suspended: boolean;
}

export type OpKind = 'trade' | 'zap' | 'cancel';

export interface TOp {
  kind: OpKind;
  id: string;
  account_id: string;
  /** The source credit; null for a deposit-funded zap (its credit comes from the deposit). */
  credit_id: string | null;
}

export interface TQuote {
  quote_id: string;
  /** `indicative` quotes answer quote_not_firm; `expired` firm quotes answer quote_expired. */
  kind: 'indicative' | 'expired';
}

export interface TradingModel {
  now_ms: number;
  accounts: TAccount[];
  destinations: TDestination[];
  ops: TOp[];
  quotes: TQuote[];
  faults: number;
  /** Counters for fresh addresses (destinations, flagged sources). */
  addresses: number;
}

export interface TradingReal {
  sim: TestSim;
}

export const LIMITS = { accounts: 3, destinations: 8, ops: 14, quotes: 6, faults: 5 };

/** The assets the test trades: price-bearing, with atoms per USD at the catalog's starting prices (for sizing only). */
export interface TAsset {
  asset_key: string;
  chain: string;
  atoms_per_usd: bigint;
  /** Another asset on the same chain (a deposit of it on this asset's address provokes from_asset_mismatch). */
  sibling: string | null;
}

const ETH = 'native.evm:1';
const USDC = 'erc20.evm:1_0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const ARB_ETH = 'native.evm:42161';
const ARB_USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';
const SOL = 'native.solana';
const SOL_USDC = 'spl.solana:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const BTC = 'native.btc';
const BONK = 'spl.solana:DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';

/** Assets an account is funded with (fast-finality chains, each with a sibling on its chain). */
export const FUND_ASSETS: readonly TAsset[] = [
  { asset_key: ETH, chain: 'evm:1', atoms_per_usd: 10n ** 18n / 3200n, sibling: USDC },
  { asset_key: USDC, chain: 'evm:1', atoms_per_usd: 10n ** 6n, sibling: ETH },
  { asset_key: ARB_ETH, chain: 'evm:42161', atoms_per_usd: 10n ** 18n / 3200n, sibling: ARB_USDC },
  { asset_key: ARB_USDC, chain: 'evm:42161', atoms_per_usd: 10n ** 6n, sibling: ARB_ETH },
  { asset_key: SOL, chain: 'solana', atoms_per_usd: 10n ** 9n / 180n, sibling: SOL_USDC },
  { asset_key: SOL_USDC, chain: 'solana', atoms_per_usd: 10n ** 6n, sibling: SOL },
];

/** Assets a destination (an output) may be for: the funded ones, Bitcoin (slow finality), Bonk (no USD market → unsupported_pair). */
export const TRADE_ASSETS: readonly TAsset[] = [
  ...FUND_ASSETS,
  { asset_key: BTC, chain: 'btc', atoms_per_usd: 10n ** 8n / 95_000n, sibling: null },
  { asset_key: BONK, chain: 'solana', atoms_per_usd: 10n ** 5n, sibling: null },
];

export const tradeAsset = (asset_key: string): TAsset => TRADE_ASSETS.find((a) => a.asset_key === asset_key)!;

/** Sim time a deposit on `chain` needs to verify: finality (one block more for inclusion) or screening, whichever is later. */
export function depositSettleMs(chain: string): number {
  const c = DEFAULT_PROFILE.chains[chain];
  return Math.max(c.block_ms * (c.finality_confirmations + 2), DEFAULT_PROFILE.deposit_screening_ms) + 1_000;
}

/** Advances the sim clock and the model's idea of it together. */
export async function advance(m: TradingModel, r: TradingReal, ms: number): Promise<void> {
  await r.sim.advance(ms);
  m.now_ms += ms;
}

/** A 2xx, or an error whose code is one of `allowed` (never a 5xx, never an unexpected code). Returns the code, or null on success. */
export function expectOutcome(res: HttpReply, ok: number[], allowed: readonly string[], what: string): string | null {
  const shown = `${what}: ${res.status} ${JSON.stringify(res.body)}`;
  if (ok.includes(res.status)) return null;
  expect(res.status, shown).toBeLessThan(500);
  expect(res.body?.error?.code, shown).toBeDefined();
  expect(allowed, shown).toContain(res.body.error.code);
  return res.body.error.code as string;
}

export interface WireCredit {
  credit_id: string;
  asset_key: string;
  atoms: string;
  status: string;
  source_type: string;
  source_id: string;
}

/** Every credit of one account in one status, following cursors. */
export async function creditsOf(r: TradingReal, account_id: string, status: 'open' | 'consumed' = 'open'): Promise<WireCredit[]> {
  const out: WireCredit[] = [];
  let cursor: string | null = null;
  do {
    const res: HttpReply = await r.sim.api('GET', `/accounts/${account_id}/credits?status=${status}&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out.push(...res.body.credits);
    cursor = res.body.next_cursor;
  } while (cursor);
  return out;
}

/** After every command: the fake's own invariant check (credit conservation, lifecycle paths, no internal errors). */
export async function checkAfterStep(_m: TradingModel, r: TradingReal): Promise<void> {
  const inv = await r.sim.invariants();
  expect(inv.violations, JSON.stringify(inv.violations)).toEqual([]);
}

/** A fresh destination address on the asset's chain (seeded apart from every other test's addresses). */
export { sourceAddressFor } from '../model/commands/addresses.ts';

/** What a spending command (firm trade, credit-funded zap) picks by index: an open credit, a destination of the same account, and an amount. */
export async function pickSpend(
  m: TradingModel,
  r: TradingReal,
  a: { accountIdx: number; creditIdx: number; destinationIdx: number; fraction_bps: number },
) {
  const account = m.accounts[a.accountIdx % m.accounts.length];
  const mine = m.destinations.filter((d) => d.account_id === account.account_id);
  const credits = await creditsOf(r, account.account_id);
  if (mine.length === 0 || credits.length === 0) return null;
  const credit = credits[a.creditIdx % credits.length];
  const dest = mine[a.destinationIdx % mine.length];
  const amount_in = (BigInt(credit.atoms) * BigInt(a.fraction_bps)) / 10_000n || 1n;
  return { account, credit, dest, from: tradeAsset(credit.asset_key), to: tradeAsset(dest.asset_key), amount_in };
}
