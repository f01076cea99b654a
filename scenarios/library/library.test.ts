// Every registered scenario runs in process (a fresh fake each) and passes; the canary fails, naming its
// expectation. The registry itself: kebab-case unique names, summaries, tags, and every item of the
// issue's list covered by at least one scenario. Every 2xx reply they get matches its route's response schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordReplies } from '../../fake-provider/testing/reply-schemas.ts';
import { formatRun, runScenario } from '../dsl/index.ts';
import { CANARY_LABEL, isCanary, SCENARIOS } from './index.ts';

describe('scenario registry', () => {
  it('has at least 30 scenarios plus one canary, with unique kebab-case names, summaries and tags', () => {
    const names = SCENARIOS.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const s of SCENARIOS) {
      expect(s.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(s.summary.length).toBeGreaterThan(20);
      expect(s.tags.length).toBeGreaterThan(0);
    }
    expect(SCENARIOS.filter(isCanary).map((s) => s.name)).toEqual(['canary-must-fail']);
    expect(SCENARIOS.filter((s) => !isCanary(s)).length).toBeGreaterThanOrEqual(30);
  });

  it('covers every case the issue lists', () => {
    const names = new Set(SCENARIOS.map((s) => s.name));
    const required = [
      'trade-exact-in',
      'trade-exact-out',
      'rfq-pending-polled',
      'zap-credit-funded',
      'zap-deposit-funded',
      'cancel-credit',
      'deposit-flagged-sanctions-match',
      'deposit-flagged-high-risk-score',
      'deposit-flagged-mixer-association',
      'deposit-partner-flagged',
      'deposit-partner-flag-too-late',
      'zap-from-asset-mismatch',
      'zap-min-amount-out-not-met',
      'zap-expired',
      'zap-deposit-flagged',
      ...[
        'execution-failed',
        'settlement-failed',
        'settlement-timeout',
        'settlement-orphaned',
        'deposit-insufficient-confirmations',
      ].flatMap((c) => [`trade-fails-${c}`, `zap-fails-${c}`]),
      'trade-reorg-out-leg',
      'trade-reorg-in-leg',
      'zap-reorg-out-leg',
      'zap-reorg-in-leg',
      'destination-suspended-mid-flight',
      'recovery-happy-path',
      'recovery-wrong-otp',
      'recovery-expired-otp',
      'recovery-already-claimed',
      'recovery-destination-screening-failed',
      'export-integrator-assisted',
      'export-user-initiated',
      'webhook-outage-recovered-from-feed',
      'webhook-duplicate-and-reordered',
      'webhook-secret-rotation',
      'rate-limit-storm',
      'idempotency-replay-and-conflict',
      'lose-response-retry-same-key',
      'quote-expired',
      'indicative-quote-accepted',
      'deactivated-account',
    ];
    expect(required.filter((n) => !names.has(n))).toEqual([]);
  });
});

describe('every scenario, in process', () => {
  // Every 2xx reply of every scenario must match its route's response schema: the types integrators get
  // (lib/api-types.ts) and the OpenAPI documents are built from those schemas.
  let replies: ReturnType<typeof recordReplies>;
  beforeAll(() => void (replies = recordReplies()));
  afterAll(() => replies.stop());

  it.each(SCENARIOS.filter((s) => !isCanary(s)).map((s) => [s.name, s] as const))('%s passes', async (_name, scenario) => {
    const run = await runScenario(scenario, { seed: '1' });
    if (!run.ok) console.log(formatRun(run));
    expect(run.error).toBeUndefined();
    expect(run.ok).toBe(true);
    expect(run.expectations.length).toBeGreaterThan(0);
    expect(run.expectations.every((e) => e.ok)).toBe(true);
    expect(run.timeline.filter((e) => e.kind === 'expectation')).toHaveLength(run.expectations.length);
    expect(run.steps.length).toBeGreaterThan(run.expectations.length);
  });

  it("every 2xx reply the scenarios got matches its route's response schema", () => {
    const { checked, routes, problems } = replies.mismatches();
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(500);
    expect(routes).toEqual(
      expect.arrayContaining(['GET /events', 'GET /trades/:trade_id', 'POST /clock/advance', 'GET /deposits', 'POST /faults']),
    );
  });

  it('the canary fails, naming its expectation, and stops there', async () => {
    const canary = SCENARIOS.find(isCanary)!;
    const run = await runScenario(canary, { seed: '1' });
    expect(run.ok).toBe(false);
    expect(run.error).toContain(CANARY_LABEL);
    expect(run.expectations.at(-1)).toMatchObject({ label: CANARY_LABEL, ok: false });
    expect(run.timeline.filter((e) => e.kind === 'expectation' && e.ok === false)).toHaveLength(1);
    expect(run.steps.some((s) => s.includes('unreachable'))).toBe(false);
  });
});
