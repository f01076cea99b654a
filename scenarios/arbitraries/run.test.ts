// The scenario runner: fault and chaos items land where `at` says, steps print with resolved account indices,
// and a run against a real sim does what its steps say (funding, a trade to settlement, a cancel, a forged
// delivery answered by the receiver), then leaves no rule behind and no work scheduled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSim, type Sim } from '../../lib/sim.ts';
import { startReceiver, type Receiver } from '../dsl/webhook-receiver.ts';
import { DeliveryChaos, FaultPlan, Journey, mergeSteps } from './index.ts';
import type { ChaosStep, FaultStep, JourneyStep } from './steps.ts';

const NONE = { duplicate: 0, reorder: 0, drop: 0, bad_signature: 0, delay: 0 };

describe('mergeSteps', () => {
  it('inserts fault and chaos items before journey position at % (steps + 1), faults first', () => {
    const steps: JourneyStep[] = [
      { kind: 'advance', ms: 1_000 },
      { kind: 'advance', ms: 2_000 },
    ];
    const fault: FaultStep = { kind: 'fault', at: 1, account: 0, target: 'trade', effect: { fail: 'execution_failed' } };
    const chaosLate: ChaosStep = { kind: 'outage', at: 5, account: 0, hours: 73 }; // 5 % 3 = 2: after the last step
    const chaosFirst: ChaosStep = { kind: 'forge', at: 1, account: 0, forgery: 'unsigned', event: 'credit.created' };
    const merged = mergeSteps({ steps, faults: [fault], chaos: { background: NONE, items: [chaosLate, chaosFirst] } });
    expect(merged).toEqual([steps[0], fault, chaosFirst, steps[1], chaosLate]);
  });

  it('prints every line numbered, account indices resolved against the run', () => {
    const j = new Journey([{ asset: 0, usd: 20 }], [{ kind: 'cancel', account: 3, credit: 0 }]);
    const lines = j.describe(new FaultPlan([]), new DeliveryChaos({ ...NONE, drop: 0.2 }, []));
    expect(lines).toEqual([
      '1. setup: account #0 is created, and funded with 20 USD of native.evm:42161',
      '2. background webhook chaos on every delivery: drop 20%',
      '3. cancel: account #0 sends its credit #0 to its own destination',
    ]);
  });
});

describe('runScenario', () => {
  let sim: Sim;
  let receiver: Receiver;
  beforeAll(async () => {
    sim = await createSim({ seed: 'run-test' });
    receiver = await startReceiver();
    receiver.secret = (await sim.webhook(receiver.url)).secret;
  });
  afterAll(async () => {
    await receiver.close();
    await sim.close();
  });

  it('funds, trades to settlement, cancels, forges, and ends quiescent', async () => {
    const journey = new Journey(
      [{ asset: 1, usd: 150 }],
      [
        { kind: 'trade', account: 0, credit: 0, destination: 0, fraction_bps: 5_000 },
        { kind: 'advance', ms: 60_000 },
        { kind: 'cancel', account: 0, credit: 0 },
      ],
    );
    const chaos = new DeliveryChaos({ ...NONE, duplicate: 0.5 }, [
      { kind: 'forge', at: 0, account: 0, forgery: 'tampered_body', event: 'credit.created' },
    ]);
    const run = await journey.run(sim, {
      chaos,
      faults: new FaultPlan([{ kind: 'fault', at: 0, account: 0, target: 'cancel', effect: { fail: 'broadcast_failed' } }]),
      webhook: { url: receiver.url, secret: receiver.secret },
    });
    expect(run.account_ids).toHaveLength(1);
    expect(run.trades).toHaveLength(1);
    expect(run.cancels).toHaveLength(1);
    expect(run.forged).toEqual([expect.objectContaining({ step: 4, forgery: 'tampered_body', answered: 401 })]);
    const truth = await sim.truth(run.account_ids[0]);
    expect(truth.trades).toEqual([{ trade_id: run.trades[0], status: 'settled' }]);
    expect(truth.cancels).toEqual([{ cancel_id: run.cancels[0], status: 'failed' }]);
    expect(await sim.faults.list()).toEqual([]);
    const settled = await sim.control('POST', '/clock/settle', {});
    expect(settled.body).toMatchObject({ ran: { ran: 0 }, pending: 0 });
    expect((await sim.invariants()).violations).toEqual([]);
  }, 60_000);
});
