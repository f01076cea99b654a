// Distributed execution on a real k6: the same limit script as one process, then as two processes with
// --execution-segment 0:1/2 and 1/2:1 (sharing RUN_ID, so they share keys and the first creates them, and
// start their phases at the time the leader announced). Combined, the two offer and get accepted the same
// per-phase rates and 429s as one, within 10%. (Without the common start, the follower's later setup made
// each phase on the shared key span the offset: 87 429s against 102 in one run.) No INSTANCES is given: each
// instance knows from its segment that the over phase is not its own to judge. The same RUN_ID a second time
// is refused on both instances; proxy-conduct split in two gets a verdict from k6:combine, burst included;
// k6:combine refuses files of different runs or the same segment twice.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestSim, type TestSim } from '../../fake-provider/testing/harness.ts';
import { combineSummaries, formatCombined, main as combineMain } from '../k6-split/combine.ts';
import { join } from 'node:path';
import { K6, SKIP_LINE, runK6 } from './real-k6.ts';

if (!K6) console.log(SKIP_LINE);

describe.skipIf(!K6)('a limit script split across two k6 processes', () => {
  let sim: TestSim;
  let fast: TestSim;
  beforeAll(async () => {
    sim = await startTestSim({ clock: 'realtime' });
    fast = await startTestSim({ clock: 'realtime', speed: 4 });
  });
  afterAll(async () => {
    await sim?.close();
    await fast?.close();
  });
  const seq = ['--execution-segment-sequence', '0,1/2,1'];
  const halvesOf = (script: string, env: Record<string, string>) =>
    Promise.all(['0:1/2', '1/2:1'].map((s) => runK6(script, env, { args: ['--execution-segment', s, ...seq] })));
  const files: Record<string, string[]> = {};

  test('reads at 50/s: two segments give the rates and 429s of one process', async () => {
    const env = {
      BASE_URL: sim.base_url,
      CONTROL_URL: sim.control_url,
      LIMIT: '50',
      PHASE_DURATION: '6s',
      PHASE_GAP: '1s',
      SUMMARY_DIR: 'out',
    };
    const one = await runK6('reads', { ...env, RUN_ID: 'split-one' });
    expect(one.code, one.stdout + one.stderr).toBe(0);
    const halves = await halvesOf('reads', { ...env, RUN_ID: 'split-two' });
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
    expect(keys.filter((k) => !k.includes('_start_') && !k.endsWith('_run')).sort()).toEqual([
      'sk_k6_split-two_reads_at',
      'sk_k6_split-two_reads_over',
      'sk_k6_split-two_reads_under',
    ]);
    // The leader's claim of the run id: what refuses a second run with it.
    expect(keys.filter((k) => k.endsWith('_run'))).toEqual(['sk_k6_split-two_run']);
    expect(keys.filter((k) => k.includes('_start_'))).toHaveLength(1);
    expect(halves[1]!.stdout).toMatch(/phases start at .*, as the leader announced/);
    files.reads = [join(halves[0]!.cwd, 'out/reads-seg-0-1_2-summary.json'), join(halves[1]!.cwd, 'out/reads-seg-1_2-1-summary.json')];
    files.one = [join(one.cwd, 'out/reads-summary.json')];
  }, 240_000);

  test('the same RUN_ID again: the leader is refused, and the follower takes no start time from the earlier run', async () => {
    expect(files.reads, 'needs the split run above').toBeTruthy();
    const env = {
      BASE_URL: sim.base_url,
      CONTROL_URL: sim.control_url,
      LIMIT: '50',
      PHASE_DURATION: '6s',
      PHASE_GAP: '1s',
      SUMMARY_DIR: 'out',
    };
    const again = await halvesOf('reads', { ...env, RUN_ID: 'split-two', SPLIT_WAIT: '8s' });
    expect(again.map((h) => h.code)).toEqual([107, 107]);
    expect(again[0]!.stderr).toMatch(/RUN_ID split-two was already used on this server/);
    expect(again[1]!.stderr).toMatch(/no start time from the leader after 8 s .*1 from an earlier run with RUN_ID split-two ignored/);
  });

  test("proxy-conduct split in two: k6:combine re-checks every threshold of the whole run, the burst's 429s included", {
    timeout: 180_000,
  }, async () => {
    const keys = [(await fast.newOrg({})).api_key, (await fast.newOrg({})).api_key];
    const env = {
      BASE_URL: fast.base_url,
      CONTROL_URL: fast.control_url,
      API_KEYS: keys.join(','),
      DURATION: '3s',
      BURST_DURATION: '3s',
      RUN_ID: 'proxy-split',
      SUMMARY_DIR: 'out',
    };
    const halves = await halvesOf('proxy-conduct', env);
    for (const h of halves) expect(h.code, h.stdout + h.stderr).toBe(0);
    const split = combineSummaries([halves[0]!.json('proxy-conduct-seg-0-1_2'), halves[1]!.json('proxy-conduct-seg-1_2-1')]);
    console.log(formatCombined(split));
    expect(split.passed, JSON.stringify(split.checks)).toBe(true);
    const names = split.checks.map((c) => c.name);
    for (const n of [
      'rl_rejected{scenario:burst}: rate>0',
      'journey_ok: rate>=0.95',
      'journeys_finished: count>0',
      'journey_unfinished: count<=0',
      'idempotency_reuse_not_409: count==0',
    ])
      expect(names).toContain(n);
    expect(split.checks.find((c) => c.name === 'rl_rejected{scenario:burst}: rate>0')!.observed).toMatch(/^[1-9][\d.]*% \(\d+ of \d+\)$/);
    files.proxy = [
      join(halves[0]!.cwd, 'out/proxy-conduct-seg-0-1_2-summary.json'),
      join(halves[1]!.cwd, 'out/proxy-conduct-seg-1_2-1-summary.json'),
    ];
  });

  test('k6:combine refuses files that are not one run: exit 2', () => {
    expect(files.reads && files.proxy).toBeTruthy();
    expect(combineMain(files.reads!)).toBe(0);
    expect(combineMain([files.reads![0]!, files.reads![0]!])).toBe(2);
    expect(combineMain([files.reads![0]!, files.proxy![1]!])).toBe(2);
    expect(combineMain([files.reads![0]!, files.one![0]!])).toBe(2);
    expect(combineMain(files.proxy!)).toBe(0);
  });
});
