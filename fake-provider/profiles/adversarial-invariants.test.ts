// The adversarial profile keeps every invariant: for 50 seeds, a sim under `adversarial-<seed>` runs a
// short mixed flow (fund, trade to settlement, cancel, a second deposit) and /_sim/invariants stays clean.
import { describe, expect, it } from 'vitest';
import { startTestSim } from '../testing/harness.ts';
import { destination, firmQuote, fund, readyAccount } from '../testing/flows.ts';
import { adversarialProfile } from './adversarial.ts';

const ETH = 'native.evm:1';
const USDC = 'erc20.evm:1_0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const SEEDS = 50;

describe('adversarial profile across seeds', () => {
  it(`keeps every invariant over ${SEEDS} seeds`, async () => {
    const outcomes = new Map<string, number>();
    for (let seed = 0; seed < SEEDS; seed++) {
      const profile = adversarialProfile(seed);
      const sim = await startTestSim({ profile, seed });
      try {
        const account_id = await readyAccount(sim);
        const trade_credit = await fund(sim, account_id, ETH, '1000000000000000000');
        const cancel_credit = await fund(sim, account_id, ETH, '200000000000000000');
        const usdc_dest = await destination(sim, account_id, USDC);
        const eth_dest = await destination(sim, account_id, ETH);
        const { quote_id } = await firmQuote(sim, {
          account_id,
          credit_id: trade_credit,
          destination_id: usdc_dest,
          from: ETH,
          to: USDC,
          amount_in_atoms: '500000000000000000',
        });
        const accept = await sim.api('POST', `/quotes/${quote_id}/accept`, { body: { slippage_bps: '100' } });
        expect(accept.status, `seed ${seed}: ${JSON.stringify(accept.body)}`).toBe(200);
        const cancel = await sim.api('POST', '/cancels', { body: { account_id, credit_id: cancel_credit, destination_id: eth_dest } });
        expect(cancel.status, `seed ${seed}: ${JSON.stringify(cancel.body)}`).toBe(200);
        // A spent credit cannot be cancelled: the lifecycle status is whatever this profile drew.
        const again = await sim.api('POST', '/cancels', { body: { account_id, credit_id: cancel_credit, destination_id: eth_dest } });
        expect(again.status).toBe(profile.lifecycle_error_status.credit_in_use);
        await sim.settle();
        const trade = (await sim.api('GET', `/trades/${accept.body.trade.trade_id}`)).body.trade;
        outcomes.set(trade.status, (outcomes.get(trade.status) ?? 0) + 1);
        expect((await sim.invariants()).violations, `seed ${seed} (${profile.name})`).toEqual([]);
      } finally {
        await sim.close();
      }
    }
    // Without faults every trade settles, whatever the profile drew.
    expect(Object.fromEntries(outcomes)).toEqual({ settled: SEEDS });
  }, 90_000);
});
