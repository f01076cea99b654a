// Drives a trade or zap from execution to settlement on the sim clock: market-maker fill, settlement
// initiation, leg finality, failures at the stage where each code can happen, reorgs of a settled leg,
// and the credit effects (source consumed, settlement and change credits, pending amounts).
// The entity's own machine decides what each step means; this module only schedules and applies. A step is
// a task of data (the swap's kind and id, and the code or leg it carries), run by the handler registered here.
import type { World } from '../../world.ts';
import { defineTask, taskLabels } from '../../engine/index.ts';
import { addPending, clearPending, consumeCredit, createCredit, newCreditId, releaseCredit, requireCredit } from '../credits/index.ts';
import { assetByKey } from '../assets/index.ts';
import type { WalletChain } from '../accounts/index.ts';
import { finalAt, INCLUDED_AT, newSettlement, ORPHANED, type Leg, type Settlement } from './settlement.ts';
import { failureCodesAt, stageOf, type FailureStage } from '../../failure-codes.ts';

type SwapKind = 'trade' | 'zap';

/**
 * Each kind's failure codes by the stage at which a fault rule applies them (the rule's `fail_codes`), from the
 * failure-code registry: at the fill, and at one of the settlement stages. At the fill a zap's codes that
 * trades do not share (its floor, its expiry) are the zap's to apply (SwapOps.checkFill).
 */
const TRADE_FILL_CODES: readonly string[] = failureCodesAt('trade', 'fill');
const FILL_FAIL_CODES: Record<SwapKind, readonly string[]> = {
  trade: TRADE_FILL_CODES,
  zap: failureCodesAt('zap', 'fill').filter((c) => TRADE_FILL_CODES.includes(c)),
};
const SETTLEMENT_STAGES = ['settlement_initiation', 'settlement_finality', 'settlement_reorg'] as const satisfies FailureStage[];
const SETTLEMENT_FAIL_CODES: Record<SwapKind, readonly string[]> = {
  trade: failureCodesAt('trade', ...SETTLEMENT_STAGES),
  zap: failureCodesAt('zap', ...SETTLEMENT_STAGES),
};

export type SwapEvent =
  | { type: 'FILL' }
  | { type: 'SETTLE_INITIATED' }
  | { type: 'SETTLED'; credit_id: string }
  | { type: 'FAIL'; code: string }
  | { type: 'ORPHAN'; leg: Leg }
  | { type: 'RECONFIRM'; leg: Leg };

export interface Swap {
  kind: SwapKind;
  id: string;
  org_id: string;
  account_id: string;
  from_asset_key: string;
  to_asset_key: string;
  /** The source credit, locked with holder = id while the swap runs. */
  credit_id: string;
  amount_in_atoms: bigint;
  /** Net output: what the settlement credit carries. */
  amount_out_atoms: bigint;
  settlement: Settlement | null;
  settled_at_ms: number | null;
  /** When the next scheduled step falls due (poll_after_ms follows it). */
  next_due_ms: number | null;
  /** Set after an internal failure path has run (so a later stale step is a no-op). */
  done: boolean;
}

export interface SwapOps {
  /** The swap of this kind with this id, if it is still stored (a deleted organization's are not). */
  find(world: World, id: string): Swap | undefined;
  /** Sends an event to the entity's machine and applies its effects; false when refused (stale step). */
  send(world: World, swap: Swap, event: SwapEvent): boolean;
  /** At fill time: a failure code when the fill cannot happen on the quoted terms, else null. */
  checkFill(world: World, swap: Swap): string | null;
  /**
   * Ids a fault rule's `match.ids` may name (trade/zap id, quote id, credit id…). Asked only when a rule
   * targets the swap's kind, rather than kept on every swap (most worlds run without swap faults).
   */
  faultIds(world: World, swap: Swap): string[];
}

const chainOf = (asset_key: string): WalletChain => assetByKey(asset_key)!.chain as WalletChain;

/** The rules for the swap's kind that fire now; with none for that kind nothing is drawn or recorded, so the subject is not built. */
function fire(world: World, swap: Swap, ops: SwapOps, accepts: string[], fail_codes?: readonly string[]) {
  const { faults } = world.sim;
  if (!faults.has(swap.kind)) return [];
  const subject = { ids: ops.faultIds(world, swap), account_id: swap.account_id, asset_key: swap.from_asset_key, accepts, fail_codes };
  return faults.fire(swap.kind, subject, world.sim.now_ms());
}

/** Sum of the `delay_ms` faults that fire for this step. */
function delayFor(world: World, swap: Swap, ops: SwapOps): number {
  let total = 0;
  for (const rule of fire(world, swap, ops, ['delay_ms'])) {
    if ('delay_ms' in rule.effect) total += rule.effect.delay_ms;
  }
  return total;
}

function failCode(world: World, swap: Swap, ops: SwapOps, codes: readonly string[]): string | null {
  const fired = fire(world, swap, ops, ['fail'], codes);
  const first = fired.find((r) => 'fail' in r.effect);
  return first && 'fail' in first.effect ? first.effect.fail : null;
}

/** The scheduler's task labels (`trade.fill`, `zap.settled`, …), one per swap kind and step. */
const TASK_STEPS = ['fill', 'settle_initiated', 'settled', 'settlement_timeout', 'settlement_orphaned', 'settlement_reconfirmed'] as const;
const TASK_LABELS = taskLabels<SwapKind, TaskStep>(['trade', 'zap'], TASK_STEPS);

type TaskStep = (typeof TASK_STEPS)[number];

/** A scheduled step of a swap: what its task carries (a failure code or a leg for the steps that need one). */
interface SwapTask {
  kind: SwapKind;
  id: string;
  step: TaskStep | 'reorg_failure';
  code?: string;
  leg?: Leg;
}

/** Each kind's operations, registered by the resource that owns its entities (trades, zaps) at load. */
const opsOf: Partial<Record<SwapKind, SwapOps>> = {};

export function registerSwapOps(kind: SwapKind, ops: SwapOps): void {
  opsOf[kind] = ops;
}

defineTask(
  Object.values(TASK_LABELS).flatMap((labels) => Object.values(labels)),
  (world, task: SwapTask) => {
    const ops = opsOf[task.kind]!;
    const swap = ops.find(world, task.id);
    if (swap === undefined) return;
    switch (task.step) {
      case 'fill':
        return fill(world, swap, ops);
      case 'settle_initiated':
        return initiateSettlement(world, swap, ops);
      case 'settled':
        return settle(world, swap, ops);
      case 'settlement_timeout':
        return failSwap(world, swap, ops, task.code!);
      case 'reorg_failure':
        return reorgFailure(world, swap, ops, task.code!);
      case 'settlement_orphaned':
        return orphan(world, swap, ops, task.leg!);
      case 'settlement_reconfirmed':
        swap.settlement![ORPHANED[task.leg!]] = false;
        ops.send(world, swap, { type: 'RECONFIRM', leg: task.leg! });
        return;
    }
  },
);

const label = (task: SwapTask): string => TASK_LABELS[task.kind][task.step === 'reorg_failure' ? 'settlement_orphaned' : task.step];

function at(world: World, swap: Swap, due_ms: number, task: SwapTask): void {
  swap.next_due_ms = due_ms;
  world.sim.scheduler.schedule(due_ms, label(task), task);
}

// A swap's pending output is kept under its id.
const pendingKey = (swap: Swap): string => swap.id;

/** Fails the swap: the source credit is released (stays open), pending output cleared. */
function failSwap(world: World, swap: Swap, ops: SwapOps, code: string): void {
  if (swap.done || !ops.send(world, swap, { type: 'FAIL', code })) return;
  swap.done = true;
  swap.next_due_ms = null;
  releaseCredit(world, swap.credit_id, swap.id);
  clearPending(world, pendingKey(swap));
}

/** Starts the run from `executing`: the market maker commits after its fill delay (plus any delay faults). */
export function beginExecution(world: World, swap: Swap, ops: SwapOps): void {
  const p = world.profile.execution.fill_ms;
  const fill_ms = p.min + Math.floor(world.sim.rng.fork(`fills/${swap.id}`).next() * (p.max - p.min + 1));
  at(world, swap, world.sim.now_ms() + fill_ms + delayFor(world, swap, ops), { kind: swap.kind, id: swap.id, step: 'fill' });
}

function fill(world: World, swap: Swap, ops: SwapOps): void {
  if (swap.done) return;
  const code = failCode(world, swap, ops, FILL_FAIL_CODES[swap.kind]) ?? ops.checkFill(world, swap);
  if (code) return failSwap(world, swap, ops, code);
  if (!ops.send(world, swap, { type: 'FILL' })) return;
  // Funds are credited as pending from the fill until the settlement credit exists.
  addPending(world, { account_id: swap.account_id, asset_key: swap.to_asset_key, key: pendingKey(swap), atoms: swap.amount_out_atoms });
  const due = world.sim.now_ms() + world.profile.execution.settle_initiate_ms + delayFor(world, swap, ops);
  at(world, swap, due, { kind: swap.kind, id: swap.id, step: 'settle_initiated' });
}

function initiateSettlement(world: World, swap: Swap, ops: SwapOps): void {
  if (swap.done) return;
  // A code of the initiation stage (settlement_failed) lands here, from `filled`; one of the finality or
  // reorg stage (settlement_timeout, settlement_orphaned) once the legs are on chain, from `pending_settle`.
  const code = failCode(world, swap, ops, SETTLEMENT_FAIL_CODES[swap.kind]);
  const stage = code === null ? null : stageOf(code, SETTLEMENT_STAGES);
  if (code !== null && stage === 'settlement_initiation') return failSwap(world, swap, ops, code);
  const s = newSettlement(swap.id, chainOf(swap.from_asset_key), chainOf(swap.to_asset_key), world.sim.now_ms());
  swap.settlement = s;
  if (!ops.send(world, swap, { type: 'SETTLE_INITIATED' })) return;
  const final_ms = Math.max(finalAt(world, s, 'out'), finalAt(world, s, 'in'));
  if (code !== null && stage === 'settlement_finality') {
    at(world, swap, final_ms + world.profile.settlement_timeout_ms, { kind: swap.kind, id: swap.id, step: 'settlement_timeout', code });
  } else if (code !== null && stage === 'settlement_reorg') {
    at(world, swap, finalAt(world, s, 'out'), { kind: swap.kind, id: swap.id, step: 'reorg_failure', code });
  } else {
    at(world, swap, final_ms + delayFor(world, swap, ops), { kind: swap.kind, id: swap.id, step: 'settled' });
  }
}

/** The out leg confirms, a reorg drops it, and the resubmission never confirms. */
function reorgFailure(world: World, swap: Swap, ops: SwapOps, code: string): void {
  if (swap.done) return;
  swap.settlement!.out_orphaned = true;
  ops.send(world, swap, { type: 'ORPHAN', leg: 'out' });
  failSwap(world, swap, ops, code);
}

function settle(world: World, swap: Swap, ops: SwapOps): void {
  if (swap.done) return;
  const source = requireCredit(world, swap.org_id, swap.credit_id);
  const settlement_credit_id = newCreditId(world);
  // The machine publishes `<kind>.settled` first; `credit.created` for the new credits follows it.
  if (!ops.send(world, swap, { type: 'SETTLED', credit_id: settlement_credit_id })) return;
  swap.done = true;
  swap.next_due_ms = null;
  swap.settled_at_ms = world.sim.now_ms();
  consumeCredit(world, swap.credit_id, swap.id);
  clearPending(world, pendingKey(swap));
  createCredit(world, {
    org_id: swap.org_id,
    account_id: swap.account_id,
    asset_key: swap.to_asset_key,
    atoms: swap.amount_out_atoms,
    source_type: 'trade_settlement',
    source_id: swap.id,
    credit_id: settlement_credit_id,
  });
  const change = source.atoms - swap.amount_in_atoms;
  if (change > 0n) {
    createCredit(world, {
      org_id: swap.org_id,
      account_id: swap.account_id,
      asset_key: swap.from_asset_key,
      atoms: change,
      source_type: 'change',
      source_id: swap.id,
    });
  }
  scheduleReorgs(world, swap, ops);
}

/**
 * `{reorg: 'out'|'in'}` faults: the settled leg is dropped, resubmitted, and reconfirmed one finality later.
 * One leg is orphaned at a time: a second reorg waits until the first leg has reconfirmed.
 */
function scheduleReorgs(world: World, swap: Swap, ops: SwapOps): void {
  for (const rule of fire(world, swap, ops, ['reorg'])) {
    if (!('reorg' in rule.effect)) continue;
    const which: Leg = rule.effect.reorg;
    const task: SwapTask = { kind: swap.kind, id: swap.id, step: 'settlement_orphaned', leg: which };
    world.sim.scheduler.after(world.profile.reorg_after_ms, label(task), task);
  }
}

function orphan(world: World, swap: Swap, ops: SwapOps, which: Leg): void {
  const s = swap.settlement!;
  const other: Leg = which === 'out' ? 'in' : 'out';
  if (s[ORPHANED[other]]) {
    const task: SwapTask = { kind: swap.kind, id: swap.id, step: 'settlement_orphaned', leg: which };
    world.sim.scheduler.schedule(finalAt(world, s, other) + 1, label(task), task);
    return;
  }
  if (!ops.send(world, swap, { type: 'ORPHAN', leg: which })) return;
  s[ORPHANED[which]] = true;
  s[INCLUDED_AT[which]] = world.sim.now_ms();
  const task: SwapTask = { kind: swap.kind, id: swap.id, step: 'settlement_reconfirmed', leg: which };
  world.sim.scheduler.schedule(finalAt(world, s, which), label(task), task);
}

/** poll_after_ms: until the next scheduled step, within the profile's bounds (route-aware through chain timing). */
export function pollAfterMs(world: World, swap: Swap): number {
  const { min, max } = world.profile.poll_after_ms;
  const wait = swap.next_due_ms === null ? min : swap.next_due_ms - world.sim.now_ms();
  return Math.max(min, Math.min(max, wait));
}
