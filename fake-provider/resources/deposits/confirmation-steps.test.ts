// Profile `deposit_confirmation_steps`: a deposit stepped once at finality and one stepped every block
// look the same from outside — the same /_sim/deposits rows at every sampled instant (confirmations
// included), the same events, balances and credits — while the first runs one timer instead of twenty.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE } from '../../profile.ts';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { ARB_ETH, ETH_USDC, balancesOf, eventsOf, land, newDepositAddress, readyAccount } from '../../testing/fixtures/deposits.ts';

const SOURCE_FLAGGED = '0x2B5AD5c4795c026514f8317c7a215E218DcCD6cF';
const RAISED = { reads: 100_000, writes: 100_000, indicative_rfqs: 1_000, firm_rfqs: 1_000 };

let perBlock: TestSim;
let atFinality: TestSim;
beforeAll(async () => {
  const start = (steps: 'per_block' | 'at_finality') =>
    startTestSim({
      seed: 'confirmation-steps',
      profile: { ...DEFAULT_PROFILE, deposit_confirmation_steps: steps },
      seed_orgs: [{ api_keys: ['sk_test_default'], rate_limits: RAISED }],
    });
  [perBlock, atFinality] = await Promise.all([start('per_block'), start('at_finality')]);
});
afterAll(async () => {
  await Promise.all([perBlock.close(), atFinality.close()]);
});

/** The same script on a sim: four deposits (plain, delayed, dropped, flagged on a 12 s-block chain) and what shows at each sample. */
async function script(sim: TestSim) {
  const account_id = await readyAccount(sim);
  const arb = await newDepositAddress(sim, account_id, ARB_ETH);
  const eth = await newDepositAddress(sim, account_id, ETH_USDC);
  await sim.control('POST', '/faults', { target: 'deposit', effect: { delay_ms: 1_100 }, times: 1 });
  await land(sim, { deposit_address_id: arb.deposit_address_id, atoms: '11' });
  await sim.control('POST', '/faults', { target: 'deposit', effect: { fail: 'deposit_insufficient_confirmations' }, times: 1 });
  await land(sim, { deposit_address_id: arb.deposit_address_id, atoms: '12' });
  await land(sim, { deposit_address_id: arb.deposit_address_id, atoms: '13' });
  await sim.control('POST', '/screening/addresses', { address: SOURCE_FLAGGED, flag_reason: 'sanctions_match' });
  await land(sim, { deposit_address_id: eth.deposit_address_id, atoms: '14', source_address: SOURCE_FLAGGED });
  const samples: unknown[] = [];
  const depositsNow = async () => (await sim.control('GET', `/deposits?account_id=${account_id}`)).body.deposits;
  for (const ms of [0, 1, 249, 250, 1_337, 2_999, 3_000, 4_750, 4_999, 5_000, 6_100, 6_101, 7_000, 60_000]) {
    await sim.advance(ms === 0 ? 0 : ms - ((samples.at(-1) as { at: number } | undefined)?.at ?? 0));
    samples.push({ at: ms, deposits: await depositsNow(), balances: await balancesOf(sim, account_id) });
  }
  const credits = (await sim.api('GET', `/accounts/${account_id}/credits`)).body.credits;
  return { samples, credits, events: eventsOf(sim, account_id).map((e) => [e.type, e.created_at_ms, e.data]) };
}

describe('deposit_confirmation_steps', () => {
  it('at_finality shows what per_block shows at every sampled instant, with the same events, balances and credits', async () => {
    const [a, b] = await Promise.all([script(perBlock), script(atFinality)]);
    expect(b).toEqual(a);
    // The script did exercise the cases: a dropped deposit one block short, a flagged one, verified ones.
    const last = (a.samples.at(-1) as { deposits: Array<{ status: string; confirmations: number }> }).deposits;
    expect(last.map((d) => [d.status, d.confirmations])).toEqual([
      ['verified', 20],
      ['dropped', 19],
      ['verified', 20],
      ['flagged', 0],
    ]);
    const mid = (a.samples.find((s) => (s as { at: number }).at === 1_337) as { deposits: Array<{ confirmations: number }> }).deposits;
    expect(mid.map((d) => d.confirmations)).toEqual([0, 5, 5, 0]);
  });

  it('at_finality runs one confirmation task per deposit, per_block one per block', async () => {
    const count = async (sim: TestSim) => {
      const account_id = await readyAccount(sim);
      // Nothing left over from the script (at finality steps, a flagged deposit's one timer still waits for its finality block).
      await sim.control('POST', '/clock/settle', {});
      const da = await newDepositAddress(sim, account_id, ARB_ETH);
      await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '5' });
      const r = await sim.control('POST', '/clock/settle', {});
      return r.body.ran.kinds['deposit.confirm'];
    };
    expect(await count(perBlock)).toBe(20);
    expect(await count(atFinality)).toBe(1);
  });
});
