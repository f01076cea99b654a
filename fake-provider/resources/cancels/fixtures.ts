// Test-only helpers for the cancel and history suites: credits made by the real deposit flow, registered
// destinations, cancels, and reading a cancel's events.
import type { TestSim } from '../../testing/harness.ts';
import { ARB_FINALITY_MS, land, newDepositAddress } from '../deposits/fixtures.ts';

export { ARB_ETH, ARB_USDC, ARB_FINALITY_MS, balancesOf, newOrgKey, readyAccount, startDepositSim } from '../deposits/fixtures.ts';

export const EVM_ADDRESS = '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf';
export const SOL_ADDRESS = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
/** Default profile: broadcast 2 s after POST /cancels. */
export const BROADCAST_MS = 2_000;

/** An open credit of `atoms` on the account, through deposit address → landed deposit → verification. */
export async function fundedCredit(sim: TestSim, account_id: string, asset_key: string, atoms: string, key?: string): Promise<string> {
  const da = await newDepositAddress(sim, account_id, asset_key, key);
  const landed = await land(sim, { deposit_address_id: da.deposit_address_id, atoms });
  if (landed.status !== 200) throw new Error(JSON.stringify(landed.body));
  // A deposit credit's source_id is its transaction; poll the real list until verification made it.
  for (let i = 0; i < 60; i++) {
    await sim.advance(ARB_FINALITY_MS);
    const r = await sim.api('GET', `/accounts/${account_id}/credits?asset_key=${asset_key}`, { key });
    const credit = r.body.credits.find((c: any) => c.source_id === landed.body.deposit.tx_hash);
    if (credit) return credit.credit_id;
  }
  throw new Error('deposit never verified');
}

export async function newDestination(sim: TestSim, account_id: string, asset_key: string, address = EVM_ADDRESS, key?: string): Promise<string> {
  const r = await sim.api('POST', `/accounts/${account_id}/destinations`, { body: { asset_key, address }, key });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return r.body.destination.destination_id;
}

export async function postCancel(sim: TestSim, body: Record<string, unknown>, opts: { key?: string; idem?: string } = {}) {
  return sim.api('POST', '/cancels', { body, ...opts });
}

export async function getCancel(sim: TestSim, cancel_id: string, key?: string): Promise<any> {
  return (await sim.api('GET', `/cancels/${cancel_id}`, { key })).body.cancel;
}

/** The cancel.* events of one cancel, oldest first, as [type, data]. */
export function cancelEvents(sim: TestSim, cancel_id: string): Array<[string, Record<string, unknown>]> {
  return sim.running.runtime.world.events.all
    .map((e) => e.envelope)
    .filter((e) => e.type.startsWith('cancel.') && e.data.cancel_id === cancel_id)
    .map((e) => [e.type, { ...e.data }]);
}
