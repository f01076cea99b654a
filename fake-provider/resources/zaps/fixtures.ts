// Test-only helpers for the zap suites: a funded account (credits through the real deposit flow), a
// destination for the output asset, zap calls, and reading a zap's events, balances and credits.
import type { HttpReply, TestSim } from '../../testing/harness.ts';
import { ARB_ETH, ARB_USDC, fundedCredit, newDestination, startDepositSim } from '../cancels/fixtures.ts';
import { readyAccount } from '../deposits/fixtures.ts';

export { ARB_ETH, ARB_USDC, ARB_FINALITY_MS, balancesOf, newOrgKey, readyAccount, startDepositSim, fundedCredit, newDestination, EVM_ADDRESS } from '../cancels/fixtures.ts';
export { land, eventsOf } from '../deposits/fixtures.ts';

/** 60 USDC → ETH at 3200 USD: 0.01875 ETH gross; fees and spread take at most 0.4%. */
export const IN_ATOMS = '60000000';
/** About 1.3% under the gross: clear of fees, spread and a minute's price walk. */
export const FLOOR_ATOMS = '18500000000000000';

export interface Funded {
  account_id: string;
  credit_id: string;
  destination_id: string;
}

/** A ready account with a 100 USDC credit and a destination for ETH (Arbitrum). */
export async function funded(sim: TestSim, key?: string, atoms = '100000000'): Promise<Funded> {
  const account_id = await readyAccount(sim, key);
  const credit_id = await fundedCredit(sim, account_id, ARB_USDC, atoms, key);
  const destination_id = await newDestination(sim, account_id, ARB_ETH, undefined, key);
  return { account_id, credit_id, destination_id };
}

/** Pins the prices the suites compute with (the walk goes on from them). */
export async function pinPrices(sim: TestSim, prices: Record<string, string> = { [ARB_ETH]: '3200', [ARB_USDC]: '1' }): Promise<void> {
  const r = await sim.control('PUT', '/market/prices', { prices });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
}

/** Every zap suite's sim: deposits on the virtual clock, ETH pinned at 3,200 USD and USDC at 1. */
export async function startZapSim(): Promise<TestSim> {
  const sim = await startDepositSim();
  await pinPrices(sim);
  return sim;
}

export function postZap(sim: TestSim, body: Record<string, unknown>, opts: { key?: string | null; idem?: string } = {}): Promise<HttpReply> {
  return sim.api('POST', '/zaps', { body, ...opts });
}

/** A credit-funded USDC → ETH zap body. */
export function creditZap(f: Funded, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    account_id: f.account_id, from_asset_key: ARB_USDC, to_asset_key: ARB_ETH, amount_in_atoms: IN_ATOMS,
    min_amount_out_atoms: '0', destination_id: f.destination_id, credit_id: f.credit_id, ...extra,
  };
}

/** A deposit-funded USDC → ETH zap body. */
export function depositZap(account_id: string, destination_id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { account_id, from_asset_key: ARB_USDC, to_asset_key: ARB_ETH, amount_in_atoms: '50000000', min_amount_out_atoms: '0', destination_id, ...extra };
}

export async function getZap(sim: TestSim, zap_id: string, key?: string): Promise<any> {
  const r = await sim.api('GET', `/zaps/${zap_id}`, { key });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return r.body.zap;
}

/** The zap.* events of one zap, oldest first, as [type, data]. */
export function zapEvents(sim: TestSim, zap_id: string): Array<[string, Record<string, unknown>]> {
  return sim.running.runtime.world.events.all
    .map((e) => e.envelope)
    .filter((e) => e.type.startsWith('zap.') && e.data.zap_id === zap_id)
    .map((e) => [e.type, { ...e.data }]);
}

export async function credit(sim: TestSim, account_id: string, credit_id: string, key?: string): Promise<any> {
  for (const status of ['open', 'consumed']) {
    const r = await sim.api('GET', `/accounts/${account_id}/credits?status=${status}&limit=100`, { key });
    const c = r.body.credits.find((x: any) => x.credit_id === credit_id);
    if (c) return c;
  }
  return undefined;
}

/** The in-memory holder of a credit (a lock is not visible through /v1). */
export async function holderOf(sim: TestSim, credit_id: string): Promise<string | null> {
  const { creditStore, creditHolder } = await import('../credits/index.ts');
  return creditHolder(creditStore(sim.running.runtime.world).byId.get(credit_id)!);
}

export async function nowMs(sim: TestSim): Promise<number> {
  return (await sim.control('GET', '/clock')).body.clock.now_ms;
}

export async function addFault(sim: TestSim, body: Record<string, unknown>): Promise<string> {
  const r = await sim.control('POST', '/faults', body);
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return r.body.fault.fault_id;
}

/** Fill ≤ 1.5 s, settlement initiated 0.5 s later: by 2 s a zap is pending_settle. */
export const TO_PENDING_MS = 2_000;

/** A deposit-funded zap waiting on its single-use address. */
export async function awaitingZap(sim: TestSim, extra: Record<string, unknown> = {}) {
  const account_id = await readyAccount(sim);
  const destination_id = await newDestination(sim, account_id, ARB_ETH);
  const r = await postZap(sim, depositZap(account_id, destination_id, extra));
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return { account_id, destination_id, zap_id: r.body.zap.zap_id as string, deposit_address_id: r.body.zap.deposit_address.deposit_address_id as string, created: r.body.zap };
}

/** The deposit credit a landed deposit made on the address, once verified. */
export async function depositCredit(sim: TestSim, deposit_address_id: string): Promise<string> {
  const r = await sim.control('GET', `/deposits?deposit_address_id=${deposit_address_id}`);
  return r.body.deposits[0].credit_id;
}
