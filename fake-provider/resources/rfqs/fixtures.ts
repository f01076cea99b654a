// Test-only helpers for RFQ, quote and trade suites: a funded account (credit through the real deposit
// flow), a registered destination, RFQ bodies, and one flow that takes every RFQ and quote transition.
import { expect } from 'vitest';
import type { TestSim } from '../../testing/harness.ts';
import { land, newDepositAddress, readyAccount } from '../deposits/fixtures.ts';
import { DEFAULT_PROFILE } from '../../profile.ts';

export const ARB_ETH = 'native.evm:42161';
export const ARB_USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';
export const BTC = 'native.btc';
export const SOL = 'native.solana';
export const SOL_USDC = 'spl.solana:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
export const BONK = 'spl.solana:DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
/** A real EVM address (private key 1), clean unless a test flags it. */
export const EVM_ADDRESS = '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf';
export const ETH = 10n ** 18n;

export interface Funded {
  account_id: string;
  credit_id: string;
  destination_id: string;
}

/** An account with a verified credit of `atoms` of `asset_key` and a destination for `to_asset_key`. */
export async function fundedAccount(sim: TestSim, opts: { asset_key?: string; atoms?: string; to_asset_key?: string; key?: string } = {}): Promise<Funded> {
  const asset_key = opts.asset_key ?? ARB_ETH;
  const account_id = await readyAccount(sim, opts.key);
  const da = await newDepositAddress(sim, account_id, asset_key, opts.key);
  const landed = await land(sim, { deposit_address_id: da.deposit_address_id, atoms: opts.atoms ?? (2n * ETH).toString() });
  expect(landed.status, JSON.stringify(landed.body)).toBe(200);
  await sim.settle();
  const credits = (await sim.api('GET', `/accounts/${account_id}/credits`, { key: opts.key })).body.credits;
  expect(credits).toHaveLength(1);
  const d = await sim.api('POST', `/accounts/${account_id}/destinations`, { body: { asset_key: opts.to_asset_key ?? ARB_USDC, address: EVM_ADDRESS }, key: opts.key });
  expect(d.status, JSON.stringify(d.body)).toBe(200);
  return { account_id, credit_id: credits[0].credit_id, destination_id: d.body.destination.destination_id };
}

export function firmBody(f: Funded, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    account_id: f.account_id,
    credit_id: f.credit_id,
    destination_id: f.destination_id,
    from_asset_key: ARB_ETH,
    to_asset_key: ARB_USDC,
    side: 'exact_in',
    amount_in_atoms: ETH.toString(),
    mode: 'firm',
    ...extra,
  };
}

export function indicativeBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { from_asset_key: ARB_ETH, to_asset_key: ARB_USDC, side: 'exact_in', amount_in_atoms: ETH.toString(), mode: 'indicative', ...extra };
}

/**
 * Takes every rfq and quote machine transition over HTTP (for the transition-coverage suite): pending →
 * ready → expired, pending → expired, open → consumed, open → expired. Needs the default profile.
 */
export async function rfqCoverageFlow(sim: TestSim): Promise<void> {
  const f = await fundedAccount(sim);
  // pending → ready, then ready → expired and open → expired at the TTL.
  const slow = await sim.api('POST', '/rfqs', { body: indicativeBody({ wait_ms: 0, ttl_ms: 5_000 }) });
  expect(slow.status, JSON.stringify(slow.body)).toBe(202);
  await sim.advance(1_000);
  expect((await sim.api('GET', `/rfqs/${slow.body.rfq.rfq_id}`)).body.rfq.status).toBe('ready');
  // pending → expired: the pair closes before the solvers answer, so no quote ever comes.
  const never = await sim.api('POST', '/rfqs', { body: indicativeBody({ wait_ms: 0 }) });
  expect(never.status, JSON.stringify(never.body)).toBe(202);
  await sim.control('PUT', '/market/liquidity', { pairs: [{ from_asset_key: ARB_ETH, to_asset_key: ARB_USDC, max_notional_usd: '0' }] });
  await sim.advance(1_000);
  await sim.control('PUT', '/market/liquidity', { pairs: [{ from_asset_key: ARB_ETH, to_asset_key: ARB_USDC, max_notional_usd: null }] });
  expect((await sim.api('GET', `/rfqs/${never.body.rfq.rfq_id}`)).body.error.code).toBe('rfq_expired');
  // open → consumed.
  const firm = await sim.api('POST', '/rfqs', { body: firmBody(f, { wait_ms: 10_000, ttl_ms: 60_000 }) });
  expect(firm.status, JSON.stringify(firm.body)).toBe(200);
  const accepted = await sim.api('POST', `/quotes/${firm.body.rfq.best_quote_id}/accept`, { body: { slippage_bps: '50' } });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  await sim.settle();
}

/** The RFQ suites' sim: raised rate limits, and a fixed spread and latency so amounts are known to the atom and 200 vs 202 depends only on wait_ms. */
export const SIM_OPTIONS = {
  RAISED: { reads: 100_000, writes: 100_000, indicative_rfqs: 100_000, firm_rfqs: 100_000 },
  FIXED: { ...DEFAULT_PROFILE, spread_bps: { min: 20, max: 20 }, solver_latency_ms: { min: 100, max: 100 } },
};

export const expectError = (r: { status: number; body: any }, status: number, code: string, param?: string): void => {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.error.code).toBe(code);
  if (param !== undefined) expect(r.body.error.param).toBe(param);
};

/** Calls over the suite's sim (read when called: the sim starts in beforeAll). */
export function rfqHelpers(get: () => TestSim) {
  const now = async (): Promise<number> => (await get().control('GET', '/clock')).body.clock.now_ms;
  /** Prices set now hold until the sim minute ends; nothing below advances the clock between set and use. */
  const setPrices = async (prices: Record<string, string> = { [ARB_ETH]: '3200', [ARB_USDC]: '1' }): Promise<void> => {
    const r = await get().control('PUT', '/market/prices', { prices });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };
  const rfq = (body: Record<string, unknown>, opts: { key?: string; idem?: string } = {}) => get().api('POST', '/rfqs', { body, ...opts });
  const quoteOf = async (body: Record<string, unknown>, key?: string) => {
    const r = await rfq(body, { key });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const q = await get().api('GET', `/quotes/${r.body.rfq.best_quote_id}`, { key });
    expect(q.status).toBe(200);
    return q.body.quote;
  };
  const accept = (quote_id: string, body: Record<string, unknown> = { slippage_bps: '50' }, opts: { key?: string; idem?: string } = {}) =>
    get().api('POST', `/quotes/${quote_id}/accept`, { body, ...opts });
  return { now, setPrices, rfq, quoteOf, accept };
}
