// The coverage plan and how reach is observed: every spec item is planned into exactly one of each block of 10
// runs for any seed (the app-wide ones into two runs of their own in the first ten, one in each ten after), every
// item has steps that reach it, and a run's reach is read from what happened (a failure counts for its item only
// from the stage the spec names; a rule that never fired reaches nothing).
import { describe, expect, it } from 'vitest';
import { COVERAGE_ITEMS, ITEM_IDS, PLAN_RUNS, compactRuns, coverageTable, plannedItems } from './coverage.ts';
import { observeReach, type ReachInput } from './reach.ts';
import { runsAlone } from './batch.ts';
import { generateScenario, ITEM_STEPS, NO_BACKGROUND } from './scenario.ts';
import type { VerifyRun } from './run.ts';

const emptyRun = (over: Partial<VerifyRun> = {}): VerifyRun => ({
  account_ids: ['acc_1'],
  lines: [],
  notes: [],
  forged: [],
  trades: [],
  zaps: [],
  cancels: [],
  started_at_ms: 0,
  webhook_rule_ids: [],
  background_rule_ids: [],
  api_rule_ids: [],
  op_rules: [],
  previous_secret: [],
  stale: [],
  restarts: 0,
  rotations: 0,
  rule_effects: {},
  api_rule_kinds: {},
  probes: [],
  recoveries: [],
  ...over,
});

const input = (events: ReachInput['events'], over: Partial<ReachInput> = {}): ReachInput => ({
  scenario: { theme: '', adversarial_profile: false, accounts: [{ asset: 0, usd: 20 }], background: NO_BACKGROUND, steps: [] },
  run: emptyRun(),
  events,
  fired: new Set(),
  log: [],
  records: [],
  ...over,
});

const ev = (type: string, data: Record<string, unknown>, i = 0) => ({ event_id: `evt_${type}_${i}`, type, data });

describe('the coverage plan', () => {
  it('plans every item into exactly one of each block of 10 runs, whatever the seed, the app-wide ones into two runs of the first block and one of each later block', () => {
    for (let seed = -5; seed < 300; seed++) {
      for (const cycle of [0, 1, 2]) {
        const runs = Array.from({ length: PLAN_RUNS }, (_, i) => plannedItems(seed, cycle * PLAN_RUNS + i + 1));
        const all = runs.flat();
        expect(all.length, `seed ${seed}`).toBe(COVERAGE_ITEMS.length);
        expect(new Set(all)).toEqual(ITEM_IDS);
        const alone = runs.filter((items) => items.some((id) => COVERAGE_ITEMS.find((i) => i.id === id)!.placement === 'alone'));
        expect(alone).toHaveLength(cycle === 0 ? 2 : 1);
        // Items one step reaches together stay together.
        expect(runs.findIndex((r) => r.includes('destination.suspended'))).toBe(
          runs.findIndex((r) => r.includes('destination.reactivated')),
        );
      }
    }
  });

  it('draws the same runs for the same seed, and lets the seed decide which run takes which item', () => {
    expect(generateScenario(5, 3)).toEqual(generateScenario(5, 3));
    const where = (seed: number) =>
      Array.from({ length: PLAN_RUNS }, (_, i) => plannedItems(seed, i + 1)).findIndex((r) => r.includes('zap.failed.zap_expired'));
    expect(new Set(Array.from({ length: 40 }, (_, s) => where(s))).size).toBeGreaterThan(3);
  });

  it('has steps for every item, and a run that goes alone exactly when its plan holds an app-wide item', () => {
    for (const i of COVERAGE_ITEMS) expect(ITEM_STEPS[i.id], i.id).toBeDefined();
    for (let run = 1; run <= 20; run++) {
      const s = generateScenario(1, run);
      const alone_items = plannedItems(1, run).some((id) => COVERAGE_ITEMS.find((i) => i.id === id)!.placement === 'alone');
      expect(runsAlone(s), `run ${run}: ${s.theme}`).toBe(alone_items);
    }
  });
});

describe('observed reach', () => {
  it('counts a settlement failure for its item only from the stage the spec names', () => {
    const trade = (news: string, extra: Record<string, unknown> = {}, i = 0) => ev(`trade.${news}`, { trade_id: 'trd_1', ...extra }, i);
    const from_filled = [trade('executing'), trade('filled'), trade('failed', { failure_code: 'settlement_failed' })];
    expect(observeReach(input(from_filled))).toContain('trade.failed.settlement_failed');
    // settlement_failed happens from filled: one after pending_settle is not the item (a mislabelled failure reaches nothing).
    const from_pending = [
      trade('executing'),
      trade('filled'),
      trade('pending_settle'),
      trade('failed', { failure_code: 'settlement_failed' }),
    ];
    expect(observeReach(input(from_pending))).not.toContain('trade.failed.settlement_failed');
    const timeout = [trade('executing'), trade('filled'), trade('pending_settle'), trade('failed', { failure_code: 'settlement_timeout' })];
    expect(observeReach(input(timeout))).toContain('trade.failed.settlement_timeout');
    expect(observeReach(input([ev('zap.failed', { zap_id: 'zap_1', failure_code: 'zap_expired' })]))).toContain('zap.failed.zap_expired');
  });

  it('tells a deposit-funded zap from a credit-funded one, and a partner window that lapsed from one that never opened', () => {
    const funded = [
      ev('zap.awaiting_deposit', { zap_id: 'zap_1' }),
      ev('zap.executing', { zap_id: 'zap_1' }),
      ev('zap.settled', { zap_id: 'zap_1' }),
    ];
    expect(observeReach(input(funded))).toEqual(expect.arrayContaining(['zap.deposit_funded']));
    expect(observeReach(input(funded))).not.toContain('zap.settled');
    const lapsed = [
      ev('deposit.partner_screening', { deposit_address_id: 'da_1' }),
      ev('deposit.verified', { deposit_address_id: 'da_1' }),
    ];
    expect(observeReach(input(lapsed))).toContain('deposit.partner_window_lapsed');
    expect(observeReach(input([ev('deposit.verified', { deposit_address_id: 'da_2' })]))).not.toContain('deposit.partner_window_lapsed');
  });

  it('counts a rule only when it fired, and a reorg only with its orphaned settlement', () => {
    const run = emptyRun({
      rule_effects: { f1: 'drop', f2: 'reorder' },
      api_rule_kinds: { f3: '429' },
      op_rules: [{ fault_id: 'f4', step: 3, what: '{"reorg":"out"} on trd_1' }],
    });
    const fired = new Set(['f1', 'f3', 'f4']);
    const reached = observeReach(
      input([ev('trade.settled', { trade_id: 'trd_1' }), ev('trade.settlement_orphaned', { trade_id: 'trd_1' })], { run, fired }),
    );
    expect(reached).toEqual(expect.arrayContaining(['delivery.drop', 'api.429', 'trade.reorg.out']));
    expect(reached).not.toContain('delivery.reorder');
    expect(observeReach(input([ev('trade.settled', { trade_id: 'trd_1' })], { run, fired }))).not.toContain('trade.reorg.out');
  });

  it('counts a probe for a pending or flagged deposit only when the state was compared', () => {
    const probes = [{ step: 4, compared: false, pending_deposits: 1, flagged_deposits: 1 }];
    expect(observeReach(input([], { run: emptyRun({ probes }) }))).toEqual([]);
    expect(observeReach(input([], { run: emptyRun({ probes: [{ ...probes[0], compared: true }] }) }))).toEqual([
      'deposit.flagged_probe',
      'deposit.pending_probe',
    ]);
  });

  it('reads a progress delivery that came after its terminal one as late, from the delivery log', () => {
    const events = [ev('trade.executing', { trade_id: 'trd_1' }), ev('trade.settled', { trade_id: 'trd_1' })];
    const attempt = (event_id: string, at_ms: number) => ({
      delivery_id: `dlv_${event_id}`,
      event_id,
      event_type: '',
      at_ms,
      http_status: 200,
      copies: 1,
      effects: [],
      replay: false,
      end_state: 'succeeded',
    });
    expect(observeReach(input(events, { log: [attempt(events[1].event_id, 10), attempt(events[0].event_id, 20)] }))).toContain(
      'delivery.late_progress',
    );
    expect(observeReach(input(events, { log: [attempt(events[0].event_id, 10), attempt(events[1].event_id, 20)] }))).not.toContain(
      'delivery.late_progress',
    );
  });

  it('tables the runs that reached each item', () => {
    const rows = coverageTable([
      { run: 2, items: ['trade.settled'] },
      { run: 1, items: ['trade.settled', 'cancel.confirmed'] },
    ]);
    expect(rows.find((r) => r.item === 'trade.settled')?.runs).toEqual([1, 2]);
    expect(rows.find((r) => r.item === 'app.restart')?.runs).toEqual([]);
    expect(compactRuns([1, 2, 3, 5, 7, 8])).toBe('1–3, 5, 7–8');
  });
});
