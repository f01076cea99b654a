// The payout guard other resources call (requireUsableDestination) and the resource invariants, run
// directly against a live world: no /v1 route uses the guard yet, so each of its throws is tripped here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { ApiError } from '../../contract/errors.ts';
import { deriveWallet } from '../accounts/index.ts';
import {
  destinationsResource,
  getDestinationRecord,
  reactivateDestination,
  requireUsableDestination,
  suspendDestination,
} from './index.ts';

const ETH = 'native.evm:1';
const address = deriveWallet('evm:1', sha256(utf8ToBytes('usable'))).address;

let sim: TestSim;
let org_id: string;
let other_org_id: string;
beforeAll(async () => {
  // Writes come faster than the spec's 20/s per key in wall time: lift the limit (tested elsewhere).
  sim = await startTestSim({ seed_orgs: [{ api_keys: ['sk_test_default'], rate_limits: { writes: 100_000 } }] });
  org_id = [...sim.running.runtime.world.orgs.values()].find((o) => o.api_keys.includes(sim.api_key))!.organization_id;
  other_org_id = (await sim.newOrg()).organization_id;
});
afterAll(() => sim.close());

const world = () => sim.running.runtime.world;
const newAccount = async (): Promise<string> => (await sim.api('POST', '/accounts', { body: {} })).body.account.account_id;
const newDestination = async (account_id: string): Promise<string> =>
  (await sim.api('POST', `/accounts/${account_id}/destinations`, { body: { asset_key: ETH, address } })).body.destination.destination_id;

function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

describe('requireUsableDestination', () => {
  it('returns a usable destination, with or without the asset check', async () => {
    const acct = await newAccount();
    const id = await newDestination(acct);
    expect(requireUsableDestination(world(), org_id, acct, id).destination_id).toBe(id);
    expect(requireUsableDestination(world(), org_id, acct, id, ETH).address).toBe(address);
  });

  it('throws 404 destination_not_found for unknown, deleted, another account’s and another org’s', async () => {
    const acct = await newAccount();
    const sibling = await newAccount();
    const id = await newDestination(acct);
    const gone = await newDestination(acct);
    expect((await sim.api('DELETE', `/accounts/${acct}/destinations/${gone}`)).status).toBe(204);
    for (const [o, a, d] of [
      [org_id, acct, 'dest_nope'],
      [org_id, acct, gone],
      [org_id, sibling, id],
      [other_org_id, acct, id],
    ]) {
      const e = thrown(() => requireUsableDestination(world(), o, a, d));
      expect(e).toMatchObject({ code: 'destination_not_found', param: 'destination_id' });
    }
    // The deleted record is still there for in-flight trades that named it.
    expect(getDestinationRecord(world(), gone)?.destination_id).toBe(gone);
  });

  it('throws 403 destination_suspended with the suspension in details, and passes again once reactivated', async () => {
    const acct = await newAccount();
    const id = await newDestination(acct);
    const d = suspendDestination(world(), id, 'high_risk_score');
    const e = thrown(() => requireUsableDestination(world(), org_id, acct, id, ETH));
    expect(e).toMatchObject({
      code: 'destination_suspended',
      param: 'destination_id',
      details: { destination_id: id, suspended_at_ms: d.snapshot.context.suspended_at_ms, suspension_reason: 'high_risk_score' },
    });
    reactivateDestination(world(), id);
    expect(requireUsableDestination(world(), org_id, acct, id).destination_id).toBe(id);
  });

  it('throws invalid_parameter on destination_id when the destination is for another asset (checked before suspension)', async () => {
    const acct = await newAccount();
    const id = await newDestination(acct);
    const other = 'erc20.evm:1_0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
    expect(thrown(() => requireUsableDestination(world(), org_id, acct, id, other))).toMatchObject({
      code: 'invalid_parameter',
      param: 'destination_id',
    });
    suspendDestination(world(), id, 'sanctions_match');
    expect(thrown(() => requireUsableDestination(world(), org_id, acct, id, other)).code).toBe('invalid_parameter');
    expect(thrown(() => requireUsableDestination(world(), org_id, acct, id, ETH)).code).toBe('destination_suspended');
  });
});

describe('destination invariants', () => {
  it('hold over everything above, and catch suspension fields that disagree with the state', async () => {
    expect(destinationsResource.invariants!(world())).toEqual([]);
    const acct = await newAccount();
    const id = await newDestination(acct);
    const d = getDestinationRecord(world(), id)!;
    const real = d.snapshot;
    try {
      // A usable destination carrying half a suspension: both checks must trip.
      d.snapshot = { ...real, context: { suspended_at_ms: 1, suspension_reason: null } } as typeof real;
      const found = destinationsResource.invariants!(world()).map((v) => v.invariant);
      expect(found).toEqual(expect.arrayContaining(['destinations.suspension_fields_paired', 'destinations.suspension_matches_state']));
      // Suspended per the machine but no destination.suspended event was ever published.
      d.snapshot = { ...real, value: 'suspended', context: { suspended_at_ms: 1, suspension_reason: 'x' } } as typeof real;
      expect(destinationsResource.invariants!(world()).map((v) => v.invariant)).toEqual(['destinations.events_match_state']);
    } finally {
      d.snapshot = real;
    }
    expect(await sim.invariants()).toMatchObject({ ok: true, violations: [] });
  });
});
