// The split-run verdict: summaries that are not one run's are refused in one line; the instances' figures
// are added (one instance may hold every 429 of the over phase) and every threshold one k6 process has is
// re-checked on the sums, for limit and journey scripts alike.
import { describe, expect, test } from 'vitest';
import { combineSummaries, evaluate, main, RefusedInputs } from './combine.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const plan = {
  limit: 10,
  tolerance: 0.1,
  at_max_rejected: 0.11,
  max_dropped_fraction: 0.01,
  phases: [
    { name: 'under', per_s: 8, duration_ms: 10_000 },
    { name: 'over', per_s: 15, duration_ms: 10_000 },
  ],
};
// What limitThresholds gives one process for this plan (lo 0.6, hi 0.8).
const whole = {
  rl_429_bad_envelope: ['count==0'],
  rl_429_missing_retry_after: ['count==0'],
  'rl_errors{scenario:under}': ['rate==0'],
  'dropped_iterations{scenario:under}': ['count<=0'],
  'rl_rejected{scenario:under}': ['rate==0'],
  'rl_errors{scenario:over}': ['rate==0'],
  'dropped_iterations{scenario:over}': ['count<=1'],
  'rl_rejected{scenario:over}': ['rate>0'],
  'rl_accepted{scenario:over}': ['rate>=0.6', 'rate<=0.8'],
};
const rate = (passes: number, fails: number) => ({ type: 'rate', values: { rate: passes / Math.max(1, passes + fails), passes, fails } });
const count = (n: number) => ({ type: 'counter', values: { count: n } });
const instance = (
  segment: string,
  over429: number,
  over2xx: number,
  extra: Record<string, unknown> = {},
  top: Record<string, unknown> = {},
) => ({
  script: 'reads',
  segment,
  run_id: 'r1',
  start_ms: 1_800_000_000_000,
  start_agreed: true,
  setup_completed: true,
  plan,
  whole_run_thresholds: whole,
  metrics: {
    'rl_rejected{scenario:under}': rate(0, 40),
    'rl_errors{scenario:under}': rate(0, 40),
    'dropped_iterations{scenario:under}': count(0),
    'rl_rejected{scenario:over}': rate(over429, over2xx),
    'rl_accepted{scenario:over}': rate(over2xx, over429),
    'rl_errors{scenario:over}': rate(0, over429 + over2xx),
    'dropped_iterations{scenario:over}': count(0),
    rl_429_bad_envelope: count(0),
    rl_429_missing_retry_after: count(0),
    ...extra,
  },
  ...top,
});

describe('combining a split run', () => {
  test('one instance with every 429: the sums pass as one process would', () => {
    const c = combineSummaries([instance('0:1/2', 45, 30), instance('1/2:1', 0, 75)]);
    const over = c.phases.find((p) => p.phase === 'over')!;
    expect(over).toMatchObject({ requests: 150, rejected_429: 45, accepted_2xx: 105, offered_per_s: 15, accepted_per_s: 10.5 });
    expect(c.phases.find((p) => p.phase === 'under')).toMatchObject({ requests: 80, offered_per_s: 8 });
    expect(c.passed, JSON.stringify(c.checks)).toBe(true);
    // Every threshold of the whole run is re-checked, and the setup check: 10 + 1.
    expect(c.checks).toHaveLength(11);
  });

  test('a limit not enforced in sum fails, and so does a 429 under the limit or an instance whose setup failed', () => {
    expect(
      combineSummaries([instance('0:1/2', 0, 75), instance('1/2:1', 0, 75)])
        .checks.filter((k) => !k.ok)
        .map((k) => k.name),
    ).toEqual(['rl_accepted{scenario:over}: rate<=0.8', 'rl_rejected{scenario:over}: rate>0']);
    const under429 = instance('1/2:1', 20, 55, { 'rl_rejected{scenario:under}': rate(3, 37) });
    expect(
      combineSummaries([instance('0:1/2', 25, 50), under429]).checks.find((k) => k.name === 'rl_rejected{scenario:under}: rate==0')!.ok,
    ).toBe(false);
    expect(combineSummaries([instance('0:1/2', 25, 50), { ...instance('1/2:1', 20, 55), setup_completed: false }]).passed).toBe(false);
    // Drops: the allowance is the whole phase's, and the instances' drops add up.
    const drops = (n: number) => ({ 'dropped_iterations{scenario:over}': count(n) });
    expect(
      combineSummaries([instance('0:1/2', 25, 50, drops(1)), instance('1/2:1', 20, 55, drops(1))]).checks.find(
        (k) => k.name === 'dropped_iterations{scenario:over}: count<=1',
      )!.ok,
    ).toBe(false);
  });

  test("a journey script: journeys, unfinished ones, the burst's 429s and latency are re-checked (no phase plan needed)", () => {
    const t = {
      journey_ok: ['rate>=0.95'],
      journey_unfinished: ['count<=0'],
      journeys_finished: ['count>0'],
      'rl_rejected{scenario:burst}': ['rate>0'],
      'http_req_duration{expected_response:true}': ['p(95)<2000'],
    };
    const j = (segment: string, m: Record<string, unknown>) => ({
      script: 'proxy-conduct',
      segment,
      run_id: 'p1',
      start_ms: 5,
      start_agreed: true,
      setup_completed: true,
      whole_run_thresholds: t,
      metrics: m,
    });
    const base = {
      journey_ok: rate(4, 0),
      journey_unfinished: count(0),
      journeys_finished: count(4),
      'http_req_duration{expected_response:true}': { type: 'trend', values: { 'p(95)': 300 } },
    };
    const ok = combineSummaries([
      j('0:1/2', { ...base, 'rl_rejected{scenario:burst}': rate(0, 75) }),
      j('1/2:1', { ...base, 'rl_rejected{scenario:burst}': rate(40, 35) }),
    ]);
    expect(ok.passed, JSON.stringify(ok.checks)).toBe(true);
    const no429 = combineSummaries([
      j('0:1/2', { ...base, 'rl_rejected{scenario:burst}': rate(0, 75) }),
      j('1/2:1', { ...base, 'rl_rejected{scenario:burst}': rate(0, 75) }),
    ]);
    expect(no429.checks.filter((k) => !k.ok).map((k) => k.name)).toEqual(['rl_rejected{scenario:burst}: rate>0']);
    const cut = combineSummaries([
      j('0:1/2', base),
      j('1/2:1', {
        ...base,
        journey_unfinished: count(2),
        'http_req_duration{expected_response:true}': { type: 'trend', values: { 'p(95)': 2500 } },
      }),
    ]);
    expect(cut.checks.filter((k) => !k.ok).map((k) => k.name)).toEqual([
      'http_req_duration{expected_response:true}: p(95)<2000',
      'journey_unfinished: count<=0',
    ]);
  });

  test('files that are not one run are refused, each in one line', () => {
    const refused = (reports: any[]) => {
      try {
        combineSummaries(reports);
      } catch (e) {
        expect(e).toBeInstanceOf(RefusedInputs);
        expect((e as Error).message).not.toContain('\n');
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(refused([instance('0:1/2', 45, 30), instance('0:1/2', 45, 30)])).toMatch(/segment 0:1\/2 given twice/);
    expect(refused([instance('0:1/2', 45, 30)])).toMatch(/cover 0 to 0.5 only/);
    expect(refused([instance('0:1/2', 45, 30), instance('1/2:1', 0, 75, {}, { run_id: 'r2' })])).toMatch(/from run r2, #1 from run r1/);
    expect(
      refused([
        instance('0:1/2', 45, 30),
        instance('1/2:1', 0, 75, {}, { plan: { ...plan, phases: [{ ...plan.phases[0], duration_ms: 30_000 }, plan.phases[1]] } }),
      ]),
    ).toMatch(/different phase plans/);
    expect(refused([instance('0:1/2', 45, 30), instance('1/2:1', 0, 75, {}, { start_ms: 1_800_000_009_000 })])).toMatch(
      /different agreed times/,
    );
    expect(
      refused([
        instance('0:1/2', 45, 30, {}, { start_agreed: false }),
        instance('1/2:1', 0, 75, {}, { start_agreed: false, start_ms: 1_800_000_090_000 }),
      ]),
    ).toMatch(/90 s apart/);
    expect(refused([instance('0:1/2', 45, 30), { ...instance('1/2:1', 0, 75), script: 'writes' }])).toMatch(/writes summary/);
  });

  test('the command: exit 2 and one line on stderr for refused files, 0 or 1 for a verdict', () => {
    const dir = mkdtempSync(join(tmpdir(), 'combine-'));
    const a = join(dir, 'a.json');
    writeFileSync(a, JSON.stringify(instance('0:1/2', 45, 30)));
    const b = join(dir, 'b.json');
    writeFileSync(b, JSON.stringify(instance('1/2:1', 0, 75)));
    expect(main([a, a])).toBe(2);
    expect(main([a, b])).toBe(0);
    writeFileSync(b, JSON.stringify(instance('1/2:1', 0, 75, { rl_429_bad_envelope: count(1) })));
    expect(main([a, b])).toBe(1);
  });

  test('threshold expressions read as k6 reads them', () => {
    expect(evaluate('p(95)<2000', { 'p(95)': 1999 })).toEqual({ ok: true, observed: 1999 });
    expect(evaluate('count<=3', { count: 4 })!.ok).toBe(false);
    expect(evaluate('rate>=0.95', { rate: 0.95 })!.ok).toBe(true);
    expect(evaluate('p(99)<10', { 'p(95)': 1 })!.ok).toBe(false);
  });
});
