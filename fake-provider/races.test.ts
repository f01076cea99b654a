// Races, with fast-check's scheduler choosing the launch order of concurrent real HTTP requests:
// accept and cancel on the same credit, two accepts on one quote, and an Idempotency-Key replayed while
// the first request is in flight. Exactly one wins; nothing is spent twice; invariants hold after settling.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from './testing/harness.ts';
import { destination, firmQuote, fund, readyAccount } from './testing/flows.ts';

const ETH = 'native.evm:1';
const USDC = 'erc20.evm:1_0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim({ seed: 'races' });
});
afterAll(() => sim.close());

async function setup() {
  const account_id = await readyAccount(sim);
  const credit_id = await fund(sim, account_id, ETH, '1000000000000000000');
  const usdcDest = await destination(sim, account_id, USDC);
  const ethDest = await destination(sim, account_id, ETH);
  const { quote_id } = await firmQuote(sim, {
    account_id,
    credit_id,
    destination_id: usdcDest,
    from: ETH,
    to: USDC,
    amount_in_atoms: '500000000000000000',
  });
  return { account_id, credit_id, usdcDest, ethDest, quote_id };
}

/** Launches each call when the scheduler says so; all run concurrently against the server. */
function launch<T>(s: fc.Scheduler, label: string, call: () => Promise<T>): Promise<T> {
  return s.schedule(Promise.resolve(label), label).then(call);
}

describe('races', () => {
  it('accept and cancel on the same credit: exactly one wins, the credit is spent once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), async (s) => {
        const f = await setup();
        const accept = launch(s, 'accept', () => sim.api('POST', `/quotes/${f.quote_id}/accept`, { body: { slippage_bps: '100' } }));
        const cancel = launch(s, 'cancel', () =>
          sim.api('POST', '/cancels', { body: { account_id: f.account_id, credit_id: f.credit_id, destination_id: f.ethDest } }),
        );
        await s.waitAll();
        const [a, c] = await Promise.all([accept, cancel]);
        const wins = [a, c].filter((r) => r.status === 200);
        expect(wins, `${a.status} ${JSON.stringify(a.body)} / ${c.status} ${JSON.stringify(c.body)}`).toHaveLength(1);
        const loser = a.status === 200 ? c : a;
        expect(loser.status).toBe(409);
        expect(loser.body.error.code).toBe('credit_in_use');
        await sim.settle();
        const credit = (await sim.api('GET', `/accounts/${f.account_id}/credits?status=consumed&limit=100`)).body.credits.filter(
          (x: { credit_id: string }) => x.credit_id === f.credit_id,
        );
        expect(credit).toHaveLength(1);
        expect((await sim.invariants()).violations).toEqual([]);
      }),
      { numRuns: 12 },
    );
  });

  it('two accepts of one quote: one trade, the other quote_consumed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), async (s) => {
        const f = await setup();
        const one = launch(s, 'one', () => sim.api('POST', `/quotes/${f.quote_id}/accept`, { body: { slippage_bps: '100' } }));
        const two = launch(s, 'two', () => sim.api('POST', `/quotes/${f.quote_id}/accept`, { body: { slippage_bps: '50' } }));
        await s.waitAll();
        const results = await Promise.all([one, two]);
        expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
        expect(results.find((r) => r.status === 409)!.body.error.code).toBe('quote_consumed');
        await sim.settle();
        expect((await sim.invariants()).violations).toEqual([]);
      }),
      { numRuns: 12 },
    );
  });

  it('an Idempotency-Key replayed while the first request is in flight returns the same trade, once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.integer({ min: 2, max: 4 }), async (s, copies) => {
        const f = await setup();
        const key = `race-${f.quote_id}`;
        const calls = Array.from({ length: copies }, (_, i) =>
          launch(s, `copy${i}`, () => sim.api('POST', `/quotes/${f.quote_id}/accept`, { body: { slippage_bps: '100' }, idem: key })),
        );
        await s.waitAll();
        const results = await Promise.all(calls);
        for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(new Set(results.map((r) => JSON.stringify(r.body))).size).toBe(1);
        const trades = sim.running.runtime.world.events.all.filter(
          (e) => e.envelope.type === 'trade.executing' && e.envelope.data.quote_id === f.quote_id,
        );
        expect(trades).toHaveLength(1);
      }),
      { numRuns: 12 },
    );
  });
});
