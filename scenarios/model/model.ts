// The model-based property test's two sides: `CoreModel`, what the test believes about the world, and
// `CoreReal`, the running fake plus a real webhook receiver. Commands (one file each) read the model to
// decide what is legal and to predict answers, act on the real side, and assert.
import { expect } from 'vitest';
import type { TestSim } from '../../fake-provider/testing/harness.ts';
import type { Receiver } from '../dsl/webhook-receiver.ts';

interface ModelAccount {
  account_id: string;
  created_at_ms: number;
}

interface ModelDepositAddress {
  deposit_address_id: string;
  account_id: string;
  asset_key: string;
  chain: string;
  /** Deposit addresses are monitored for a bounded period (profile deposit_address_ttl_ms) from here. */
  opened_at_ms: number;
}

interface ModelDeposit {
  account_id: string;
  asset_key: string;
  atoms: bigint;
  flagged: boolean;
}

interface ModelDestination {
  destination_id: string;
  account_id: string;
  suspended: boolean;
}

export interface CoreModel {
  now_ms: number;
  accounts: ModelAccount[];
  addresses: ModelDepositAddress[];
  deposits: ModelDeposit[];
  destinations: ModelDestination[];
  outage: boolean;
  /** Counter for fresh flagged source addresses. */
  flagged_sources: number;
}

export interface CoreReal {
  sim: TestSim;
  receiver: Receiver;
}

export const LIMITS = { accounts: 4, addresses: 8, deposits: 12, destinations: 6 };

/** After every command: the fake's own invariant check, and balances bounded by what the model deposited. */
export async function checkAfterStep(m: CoreModel, r: CoreReal): Promise<void> {
  const inv = await r.sim.invariants();
  expect(inv.violations, JSON.stringify(inv.violations)).toEqual([]);
  for (const a of m.accounts) {
    const res = await r.sim.api('GET', `/accounts/${a.account_id}/balances?limit=100`);
    expect(res.status).toBe(200);
    for (const asset_key of new Set(m.deposits.filter((d) => d.account_id === a.account_id).map((d) => d.asset_key))) {
      const mine = m.deposits.filter((d) => d.account_id === a.account_id && d.asset_key === asset_key);
      const clean = mine.filter((d) => !d.flagged).reduce((s, d) => s + d.atoms, 0n);
      const all = mine.reduce((s, d) => s + d.atoms, 0n);
      const row = res.body.balances.find((b: { asset_key: string }) => b.asset_key === asset_key) ?? {
        available_atoms: '0',
        pending_atoms: '0',
      };
      const available = BigInt(row.available_atoms);
      const pending = BigInt(row.pending_atoms);
      // Clean deposits are pending or available; flagged ones are pending until flagged, then gone.
      expect(available <= clean, `${asset_key} available ${available} > clean ${clean}`).toBe(true);
      expect(available + pending >= clean, `${asset_key} available+pending ${available + pending} < clean ${clean}`).toBe(true);
      expect(available + pending <= all, `${asset_key} available+pending ${available + pending} > all ${all}`).toBe(true);
    }
  }
}
