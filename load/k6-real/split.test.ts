// Distributed execution on a real k6: the same limit script as one process, then as two processes with
// --execution-segment 0:1/2 and 1/2:1 (sharing RUN_ID, so they share keys and the first creates them, and
// start their phases at the time the leader announced). Combined, the two offer and get accepted the same
// per-phase rates and 429s as one, within 10%. (Without the common start, the follower's later setup made
// each phase on the shared key span the offset: 87 429s against 102 in one run.)
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestSim, type TestSim } from '../../fake-provider/testing/harness.ts';
import { combineSummaries, formatCombined } from '../k6-split/combine.ts';
import { K6, SKIP_LINE, runK6 } from './real-k6.ts';

if (!K6) console.log(SKIP_LINE);

describe.skipIf(!K6)('a limit script split across two k6 processes', () => {
  let sim: TestSim;
  beforeAll(async () => {
    sim = await startTestSim({ clock: 'realtime' });
  });
  afterAll(() => sim?.close());

  test('reads at 50/s: two segments give the rates and 429s of one process', async () => {
    const env = { BASE_URL: sim.base_url, CONTROL_URL: sim.control_url, LIMIT: '50', PHASE_DURATION: '6s', PHASE_GAP: '1s', SUMMARY_DIR: 'out' };
    const one = await runK6('reads', { ...env, RUN_ID: 'split-one' });
    expect(one.code, one.stdout + one.stderr).toBe(0);
    const seq = ['--execution-segment-sequence', '0,1/2,1'];
    const halves = await Promise.all(
      ['0:1/2', '1/2:1'].map((s) => runK6('reads', { ...env, RUN_ID: 'split-two', INSTANCES: '2' }, { args: ['--execution-segment', s, ...seq] })),
    );
    for (const h of halves) expect(h.code, h.stdout + h.stderr).toBe(0);
    expect(halves[0]!.stdout).toMatch(/segment 0:1\/2 \(leader\)/);
    const single = combineSummaries([one.json('reads')]);
    const split = combineSummaries([halves[0]!.json('reads-seg-0-1_2'), halves[1]!.json('reads-seg-1_2-1')]);
    console.log(formatCombined(single) + formatCombined(split));
    expect(split.passed, JSON.stringify(split.checks)).toBe(true);
    for (const phase of ['under', 'at', 'over']) {
      const a = single.phases.find((p) => p.phase === phase)!;
      const b = split.phases.find((p) => p.phase === phase)!;
      expect(Math.abs(b.offered_per_s - a.offered_per_s) / a.offered_per_s, `${phase} offered`).toBeLessThanOrEqual(0.1);
      expect(Math.abs(b.accepted_per_s - a.accepted_per_s) / a.accepted_per_s, `${phase} accepted`).toBeLessThanOrEqual(0.1);
    }
    const a429 = single.phases.find((p) => p.phase === 'over')!.rejected_429;
    const b429 = split.phases.find((p) => p.phase === 'over')!.rejected_429;
    expect(a429).toBeGreaterThan(0);
    expect(Math.abs(b429 - a429) / a429, `429s: one ${a429}, split ${b429}`).toBeLessThanOrEqual(0.1);
    // One org per phase was made, not one per instance, and the leader's one start-time announcement.
    const orgs = (await sim.control('GET', '/organizations')).body.organizations as Array<{ api_keys: string[] }>;
    const keys = orgs.flatMap((o) => o.api_keys).filter((k) => k.startsWith('sk_k6_split-two_'));
    expect(keys.filter((k) => !k.includes('_start_')).sort()).toEqual(['sk_k6_split-two_reads_at', 'sk_k6_split-two_reads_over', 'sk_k6_split-two_reads_under']);
    expect(keys.filter((k) => k.includes('_start_'))).toHaveLength(1);
    expect(halves[1]!.stdout).toMatch(/phases start at .*, as the leader announced/);
  });
});
