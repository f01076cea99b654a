// What `swapsim verify` must reach, written from the spec (every lifecycle failure at the stage that can
// produce it, reorgs of each leg, deposit screening and the partner window, cancels and recovery payouts that
// fail, destination suspension, each delivery chaos and forgery, stale and future timestamps, each API fault,
// secret rotation, app restart, payload shapes), how each item is planned into the first 10 runs of any seed
// (the seed decides which run takes which item, never whether it comes), and how a run's reach is observed
// from what the provider and the relay saw, not from what was planned.
import fc from 'fast-check';
import { FAILURE_STAGES, faultCodesOf, stageOf, type FailureStage } from '../../fake-provider/failure-codes.ts';

/** Runs per plan cycle: every item is reached within each block of this many runs (1–10, 11–20, …). */
export const PLAN_RUNS = 10;

/** Items that do something app-wide go in runs of their own (batch.ts runs them alone). */
type Placement = 'batch' | 'alone';

export interface CoverageItem {
  id: string;
  /** The spec's area, for the table. */
  region: string;
  /** What reaching it means, in a phrase. */
  what: string;
  placement: Placement;
}

const SWAP_STAGES = ['fill', 'settlement_initiation', 'settlement_finality', 'settlement_reorg'] as const satisfies FailureStage[];

/**
 * The failures a `fail` rule on a credit-funded trade or zap reaches, each with the status it fails from (from
 * the failure-code registry). A zap's codes that also come with its deposit (deposit_insufficient_confirmations)
 * are reached through the deposit instead, and its own codes (floor, expiry, mismatch, flag) each their own way.
 */
export const SWAP_FAULT_FAILURES: Record<'trade' | 'zap', ReadonlyArray<readonly [code: string, from: string]>> = {
  trade: faultCodesOf('trade').map((code) => [code, fromStatus(code)] as const),
  zap: faultCodesOf('trade')
    .filter((code) => (faultCodesOf('zap') as readonly string[]).includes(code) && stageOf(code, ['deposit']) === null)
    .map((code) => [code, fromStatus(code)] as const),
};

function fromStatus(code: string): string {
  const stage = stageOf(code, SWAP_STAGES);
  const from = stage === null ? null : FAILURE_STAGES[stage].from;
  if (from === null) throw new Error(`${code} has no trade or zap stage`);
  return from;
}

/** The catalogue, in table order. */
export const COVERAGE_ITEMS: readonly CoverageItem[] = [
  { id: 'trade.settled', region: 'trades', what: 'a trade settles (settlement and change credits)', placement: 'batch' },
  ...SWAP_FAULT_FAILURES.trade.map(([code, from]) => ({
    id: `trade.failed.${code}`,
    region: 'trades',
    what: `a trade fails with ${code} from ${from}`,
    placement: 'batch' as const,
  })),
  { id: 'trade.reorg.out', region: 'trades', what: "a settled trade's out leg is orphaned, then reconfirmed", placement: 'batch' },
  { id: 'trade.reorg.in', region: 'trades', what: "a settled trade's in leg is orphaned, then reconfirmed", placement: 'batch' },
  { id: 'zap.settled', region: 'zaps', what: 'a credit-funded zap settles', placement: 'batch' },
  {
    id: 'zap.deposit_funded',
    region: 'zaps',
    what: 'a zap awaits its deposit, then executes on the observed amount and settles',
    placement: 'batch',
  },
  ...SWAP_FAULT_FAILURES.zap.map(([code, from]) => ({
    id: `zap.failed.${code}`,
    region: 'zaps',
    what: `a zap fails with ${code} from ${from}`,
    placement: 'batch' as const,
  })),
  { id: 'zap.failed.min_amount_out_not_met', region: 'zaps', what: 'a zap with an unreachable floor fails', placement: 'batch' },
  { id: 'zap.failed.zap_expired', region: 'zaps', what: 'a zap awaiting a deposit expires', placement: 'batch' },
  {
    id: 'zap.failed.from_asset_mismatch',
    region: 'zaps',
    what: "a zap's deposit is of another asset (credited for that asset)",
    placement: 'batch',
  },
  { id: 'zap.failed.deposit_flagged', region: 'zaps', what: "a zap's deposit is flagged by screening (no credit)", placement: 'batch' },
  {
    id: 'zap.failed.deposit_insufficient_confirmations',
    region: 'zaps',
    what: "a zap's deposit is dropped before finality",
    placement: 'batch',
  },
  { id: 'zap.reorg.out', region: 'zaps', what: "a settled zap's out leg is orphaned, then reconfirmed", placement: 'batch' },
  { id: 'zap.reorg.in', region: 'zaps', what: "a settled zap's in leg is orphaned, then reconfirmed", placement: 'batch' },
  { id: 'cancel.confirmed', region: 'cancels', what: 'a cancel confirms (the credit is consumed)', placement: 'batch' },
  {
    id: 'cancel.failed.broadcast_failed',
    region: 'cancels',
    what: 'a cancel fails with broadcast_failed (the credit stays open)',
    placement: 'batch',
  },
  {
    id: 'cancel.failed.confirmation_timeout',
    region: 'cancels',
    what: 'a cancel fails with confirmation_timeout (the credit stays open)',
    placement: 'batch',
  },
  {
    id: 'recovery.claimed',
    region: 'recoveries',
    what: "a failed zap's credit is recovered: activate, OTP, recover-funds, the payout confirms",
    placement: 'batch',
  },
  { id: 'recovery.failed', region: 'recoveries', what: "a recovery's payout fails (the credit stays open)", placement: 'batch' },
  { id: 'deposit.verified', region: 'deposits', what: 'a deposit is verified and credited', placement: 'batch' },
  {
    id: 'deposit.pending_probe',
    region: 'deposits',
    what: "the app's state is compared while a deposit is pending (detected, not credited)",
    placement: 'batch',
  },
  ...['sanctions_match', 'high_risk_score', 'mixer_association'].map((reason) => ({
    id: `deposit.flagged.${reason}`,
    region: 'deposits',
    what: `a deposit is flagged by the service (${reason}): no credit`,
    placement: 'batch' as const,
  })),
  {
    id: 'deposit.flagged.partner_flagged',
    region: 'deposits',
    what: 'the partner flags a deposit inside its screening window: no credit',
    placement: 'batch',
  },
  {
    id: 'deposit.partner_window_lapsed',
    region: 'deposits',
    what: "a deposit's partner screening window passes without objection, then it is verified",
    placement: 'batch',
  },
  { id: 'deposit.flagged_probe', region: 'deposits', what: "the app's state is compared after a deposit was flagged", placement: 'batch' },
  {
    id: 'destination.suspended',
    region: 'destinations',
    what: 'a registered destination is suspended by delta screening',
    placement: 'batch',
  },
  { id: 'destination.reactivated', region: 'destinations', what: 'a suspended destination is reactivated', placement: 'batch' },
  ...['duplicate', 'reorder', 'drop', 'bad_signature', 'delay'].map((effect) => ({
    id: `delivery.${effect}`,
    region: 'deliveries',
    what: `the provider's ${effect} effect on a delivery`,
    placement: 'batch' as const,
  })),
  { id: 'delivery.late_progress', region: 'deliveries', what: 'a progress event arrives after the terminal one', placement: 'batch' },
  {
    id: 'delivery.concurrent_copies',
    region: 'deliveries',
    what: 'a delivery reaches the app as two concurrent copies',
    placement: 'batch',
  },
  {
    id: 'delivery.outage_past_retry_window',
    region: 'deliveries',
    what: 'every delivery dropped for longer than the 72 h retry window',
    placement: 'batch',
  },
  ...['wrong_secret', 'tampered_body', 'unsigned'].map((forgery) => ({
    id: `forged.${forgery}`,
    region: 'signatures',
    what: `a forged delivery (${forgery.replace('_', ' ')}) is posted to the app`,
    placement: 'batch' as const,
  })),
  {
    id: 'timestamp.stale',
    region: 'signatures',
    what: 'a correctly signed delivery with a Svc-Timestamp 10 min old (a captured delivery replayed)',
    placement: 'batch',
  },
  {
    id: 'timestamp.future',
    region: 'signatures',
    what: 'a correctly signed delivery with a Svc-Timestamp 10 min ahead',
    placement: 'batch',
  },
  {
    id: 'payload.non_ascii',
    region: 'payloads',
    what: 'delivery bodies carrying non-ASCII text and escapes in stored fields (account labels)',
    placement: 'batch',
  },
  {
    id: 'payload.styled_body',
    region: 'payloads',
    what: 'delivery bodies written with the whitespace and escapes JSON allows (profile webhook_body_style), signed as sent',
    placement: 'batch',
  },
  ...['429', '429_no_retry_after', '500', '503', 'lost_response'].map((kind) => ({
    id: `api.${kind}`,
    region: 'API faults',
    what: `the app's own reads meet ${kind.replace(/_/g, ' ')} while it works and while it catches up`,
    placement: 'alone' as const,
  })),
  { id: 'profile.adversarial', region: 'API faults', what: 'the provider runs an adversarial behaviour profile', placement: 'alone' },
  {
    id: 'app.rotation',
    region: 'app',
    what: 'the webhook secret is rotated (a delivery signed with the previous one follows)',
    placement: 'alone',
  },
  { id: 'app.restart', region: 'app', what: 'the app restarts (configured again with the same provider)', placement: 'alone' },
];

export const ITEM_IDS = new Set(COVERAGE_ITEMS.map((i) => i.id));

/** Alone items travel together: all API-fault kinds (and the adversarial profile) in one run, rotation and restart in another. */
const ALONE_GROUPS: string[][] = [
  COVERAGE_ITEMS.filter((i) => i.placement === 'alone' && (i.id.startsWith('api.') || i.id === 'profile.adversarial')).map((i) => i.id),
  ['app.rotation', 'app.restart'],
];

/**
 * The alone groups of a cycle. The first ten runs keep them apart, so a failure there has the smaller case; from the
 * second cycle on one run carries both (every item still once a cycle), so a hundred runs spend 11 runs alone
 * rather than 20 (an alone run holds the app to itself: about as long as a batch of 8 of the others).
 */
const aloneGroups = (cycle: number): string[][] => (cycle === 0 ? ALONE_GROUPS : [ALONE_GROUPS.flat()]);

/** Batch items that must share a run, because one step reaches both. */
const TOGETHER: string[][] = [
  ['destination.suspended', 'destination.reactivated'],
  ['deposit.flagged.partner_flagged', 'deposit.partner_window_lapsed'],
];

/**
 * Which items each of the PLAN_RUNS runs of a cycle carries, for this seed: the alone groups take two runs the
 * seed picks; the batch items (kept with their partners) are shuffled by the seed and dealt round-robin over the
 * other runs. Every item lands in exactly one run of every cycle, whatever the seed.
 */
function planCycle(seed: number, cycle: number): string[][] {
  const draw = <T>(arb: fc.Arbitrary<T>, salt: number): T =>
    fc.sample(arb, { seed: (seed * 31_337 + cycle * 7_907 + salt) | 0, numRuns: 1 })[0];
  const slots = draw(fc.shuffledSubarray([...Array(PLAN_RUNS).keys()], { minLength: PLAN_RUNS, maxLength: PLAN_RUNS }), 1);
  const runs: string[][] = Array.from({ length: PLAN_RUNS }, () => []);
  const alone = aloneGroups(cycle);
  alone.forEach((group, i) => runs[slots[i]].push(...group));
  const batch_slots = slots.slice(alone.length);
  const grouped = new Set(TOGETHER.flat());
  const units: string[][] = [
    ...TOGETHER,
    ...COVERAGE_ITEMS.filter((i) => i.placement === 'batch' && !grouped.has(i.id)).map((i) => [i.id]),
  ];
  const order = draw(fc.shuffledSubarray([...units.keys()], { minLength: units.length, maxLength: units.length }), 2);
  order.forEach((u, k) => runs[batch_slots[k % batch_slots.length]].push(...units[u]));
  return runs;
}

/** The items run `run` (1-based) is planned to reach. */
export function plannedItems(seed: number, run: number): string[] {
  const cycle = Math.floor((run - 1) / PLAN_RUNS);
  return planCycle(seed, cycle)[(run - 1) % PLAN_RUNS];
}

// ---- the table ----

export interface CoverageRow {
  item: string;
  region: string;
  what: string;
  /** Runs whose observed reach includes the item. */
  runs: number[];
}

export function coverageTable(reached: ReadonlyArray<{ run: number; items: readonly string[] }>): CoverageRow[] {
  return COVERAGE_ITEMS.map((i) => ({
    item: i.id,
    region: i.region,
    what: i.what,
    runs: reached
      .filter((r) => r.items.includes(i.id))
      .map((r) => r.run)
      .sort((a, b) => a - b),
  }));
}

/** The table as text: one line per item, the runs that reached it (or `not reached`). */
export function formatCoverage(rows: readonly CoverageRow[]): string[] {
  const width = Math.max(...rows.map((r) => r.item.length));
  const reached = rows.filter((r) => r.runs.length > 0).length;
  const lines = [`coverage: ${reached} of ${rows.length} spec items reached`];
  for (const r of rows) lines.push(`  ${r.item.padEnd(width)}  ${r.runs.length ? `runs ${compactRuns(r.runs)}` : 'not reached'}`);
  return lines;
}

/** 1,2,3,5 → 1–3, 5 */
export function compactRuns(runs: readonly number[]): string {
  const out: string[] = [];
  for (let i = 0; i < runs.length; i++) {
    let j = i;
    while (j + 1 < runs.length && runs[j + 1] === runs[j] + 1) j++;
    out.push(j > i ? `${runs[i]}–${runs[j]}` : String(runs[i]));
    i = j;
  }
  return out.join(', ');
}
