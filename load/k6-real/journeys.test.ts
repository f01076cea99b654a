// lifecycle-mix on a real k6 against a realtime swapsim (sped up 4x, so a journey takes seconds): every
// journey ends, nothing is written twice, and swapsim's conduct recorder finds nothing, with k6's own
// wall-clock sleeps and the realtime clock's 20 ms ticks (the source of the former 0 ms "fast" polls).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestSim, type TestSim } from '../../fake-provider/testing/harness.ts';
import { K6, SKIP_LINE, runK6 } from './real-k6.ts';

if (!K6) console.log(SKIP_LINE);

describe.skipIf(!K6)('journeys on a real k6', () => {
  let sim: TestSim;
  beforeAll(async () => {
    sim = await startTestSim({ clock: 'realtime', speed: 4 });
  });
  afterAll(() => sim?.close());

  test('lifecycle-mix: journeys ok, no duplicate write, no conduct finding, nothing dropped', async () => {
    const run = await runK6(
      'lifecycle-mix',
      { BASE_URL: sim.base_url, CONTROL_URL: sim.control_url, DURATION: '4s', JOURNEYS_PER_S: '1', SUMMARY_DIR: 'out' },
      { timeout_ms: 100_000 },
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const s = run.json('lifecycle-mix');
    expect(s.passed).toBe(true);
    expect(s.metrics.journey_ok.values.passes).toBeGreaterThanOrEqual(3);
    expect(s.metrics.conduct_findings.values.count).toBe(0);
    expect(run.stderr).not.toMatch(/conduct finding/);
    expect(run.stdout).toMatch(/journeys ok: \d+ {2}journeys failed: 0/);
  });
});
