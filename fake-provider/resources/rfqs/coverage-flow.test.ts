// rfqCoverageFlow (for the transition-coverage suite) takes every rfq and quote machine edge over HTTP.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { edgesOf, machineInfo } from '../../engine/index.ts';
import { rfqCoverageFlow } from '../../testing/fixtures/rfqs.ts';

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim({ seed: 'rfq-coverage' });
});
afterAll(() => sim.close());

it('takes pending→ready, pending→expired, ready→expired, open→consumed and open→expired', async () => {
  await rfqCoverageFlow(sim);
  const taken = new Set(
    sim.running.runtime.world.transitions.records.filter((r) => r.from !== null).map((r) => `${r.kind}|${r.from}|${r.event}|${r.to}`),
  );
  for (const kind of ['rfq', 'quote']) {
    for (const e of edgesOf(machineInfo(kind)!.machine))
      expect(taken.has(`${kind}|${e.from}|${e.event}|${e.to}`), `${kind} ${e.from} --${e.event}--> ${e.to}`).toBe(true);
  }
  expect(await sim.invariants()).toMatchObject({ ok: true, violations: [] });
});
