// Test-only helpers for the deposit and credit suites: a sim with raised rate limits, an account whose
// wallets are derived, deposit addresses, landing deposits and reading events and balances.
import { startTestSim, type HttpReply, type TestSim } from '../../testing/harness.ts';
import type { EventEnvelope } from '../../engine/index.ts';

/** A new account with every chain's wallet announced (the shared flow). */
export { readyAccount } from '../../testing/flows.ts';

export const ARB_ETH = 'native.evm:42161';
export const ARB_USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';
export const ETH_USDC = 'erc20.evm:1_0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
/** Arbitrum finality in the default profile: 20 confirmations × 250 ms. */
export const ARB_FINALITY_MS = 5_000;

const RAISED = { reads: 100_000, writes: 100_000, indicative_rfqs: 1_000, firm_rfqs: 1_000 };

export function startDepositSim(): Promise<TestSim> {
  return startTestSim({ seed_orgs: [{ api_keys: ['sk_test_default'], rate_limits: RAISED }] });
}

export async function newOrgKey(sim: TestSim, body: Record<string, unknown> = {}): Promise<string> {
  return (await sim.newOrg({ rate_limits: RAISED, ...body })).api_key;
}

export async function newDepositAddress(sim: TestSim, account_id: string, asset_key: string, key?: string): Promise<{ deposit_address_id: string; address: string; asset_key: string }> {
  const r = await sim.api('POST', `/accounts/${account_id}/deposit-addresses`, { body: { asset_key }, key });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return r.body.deposit_address;
}

export function land(sim: TestSim, body: Record<string, unknown>): Promise<HttpReply> {
  return sim.control('POST', '/deposits', body);
}

export async function deposit(sim: TestSim, deposit_address_id: string): Promise<any> {
  const r = await sim.control('GET', `/deposits?deposit_address_id=${deposit_address_id}`);
  return r.body.deposits;
}

export function eventsOf(sim: TestSim, account_id: string, prefix = ''): EventEnvelope[] {
  return sim.running.runtime.world.events.all.map((e) => e.envelope).filter((e) => e.account_id === account_id && e.type.startsWith(prefix));
}

export async function balancesOf(sim: TestSim, account_id: string, key?: string): Promise<Record<string, { available_atoms: string; pending_atoms: string }>> {
  const r = await sim.api('GET', `/accounts/${account_id}/balances`, { key });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return Object.fromEntries(r.body.balances.map((b: any) => [b.asset_key, { available_atoms: b.available_atoms, pending_atoms: b.pending_atoms }]));
}
