// The split-run verdict: the instances' per-phase counts are added (one instance may hold every 429 of the
// over phase) and judged against the plan as one process's thresholds would be.
import { describe, expect, test } from 'vitest';
import { combineSummaries } from './combine.ts';

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
const rate = (passes: number, fails: number) => ({ values: { rate: passes / Math.max(1, passes + fails), passes, fails } });
const instance = (segment: string, over429: number, over2xx: number, extra: Record<string, unknown> = {}) => ({
  script: 'reads',
  segment,
  setup_completed: true,
  plan,
  metrics: {
    'rl_rejected{scenario:under}': rate(0, 40),
    'rl_errors{scenario:under}': rate(0, 40),
    'rl_rejected{scenario:over}': rate(over429, over2xx),
    'rl_errors{scenario:over}': rate(0, over429 + over2xx),
    rl_429_bad_envelope: { values: { count: 0 } },
    rl_429_missing_retry_after: { values: { count: 0 } },
    ...extra,
  },
});

describe('combining a split run', () => {
  test('one instance with every 429: the sums pass as one process would', () => {
    const c = combineSummaries([instance('0:1/2', 45, 30), instance('1/2:1', 0, 75)]);
    const over = c.phases.find((p) => p.phase === 'over')!;
    expect(over).toMatchObject({ requests: 150, rejected_429: 45, accepted_2xx: 105, offered_per_s: 15, accepted_per_s: 10.5 });
    expect(c.phases.find((p) => p.phase === 'under')).toMatchObject({ requests: 80, offered_per_s: 8 });
    expect(c.passed).toBe(true);
  });

  test('a limit not enforced in sum fails, and so does a 429 under the limit or an instance whose setup failed', () => {
    expect(combineSummaries([instance('0:1/2', 0, 75), instance('1/2:1', 0, 75)]).checks.filter((k) => !k.ok).map((k) => k.name)).toEqual(['over: some 429s', 'over: accepted fraction in [0.6000, 0.8000]']);
    const under429 = instance('1/2:1', 20, 55, { 'rl_rejected{scenario:under}': rate(3, 37) });
    expect(combineSummaries([instance('0:1/2', 25, 50), under429]).checks.find((k) => k.name === 'under: no 429')!.ok).toBe(false);
    expect(combineSummaries([instance('0:1/2', 25, 50), { ...instance('1/2:1', 20, 55), setup_completed: false }]).passed).toBe(false);
  });
});
