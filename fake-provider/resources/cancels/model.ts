// Cancels over the world: create (every check before any state change), the broadcast and finality steps
// on the sim clock with the `cancel` fault rules drawn at broadcast time, reads, and history records.
import { defineTask, entityStore, lifecycle, publish, statusOf, type MachineSnapshot } from '../../engine/index.ts';
import { defineStore, type World } from '../../world.ts';
import { ApiError } from '../../contract/errors.ts';
import type { HistoryRecord } from '../../resource.ts';
import { requireAccount, requireOperable } from '../accounts/index.ts';
import { assetByKey } from '../assets/index.ts';
import { consumeCredit, creditHolder, creditStatus, lockCredit, releaseCredit, requireCredit, type Credit } from '../credits/index.ts';
import { generateTxHash } from '../deposits/index.ts';
import { requireUsableDestination } from '../destinations/index.ts';
import { cancelMachine, type CancelEffect, type CancelEvent, type CancelFailureCode, type CancelStatus } from './machine.ts';
import type { Organization } from '../../world.ts';
import type { ForgetScope } from '../../resource-records.ts';
import { failureCodesAt, stageOf, type FailureStage } from '../../failure-codes.ts';

const cancelLifecycle = lifecycle(cancelMachine);

export interface Cancel {
  cancel_id: string;
  org_id: string;
  account_id: string;
  credit_id: string;
  asset_key: string;
  /** The whole credit: no partial cancels. */
  amount_atoms: bigint;
  /** Null when the transfer was not started through POST /cancels with a registered destination. */
  destination_id: string | null;
  /** Kept at creation: history shows it even after the destination is deleted. */
  destination_address: string;
  client_cancel_id: string | null;
  /** Set when this cancel is a recovery's payout: `recovery` fault rules apply to it, not `cancel` ones. */
  recovery_id: string | null;
  created_at_ms: number;
  seq: number;
  snapshot: MachineSnapshot<typeof cancelMachine>;
}

const cancelIdOf = (x: Cancel): string => x.cancel_id;

export const cancelStore = defineStore('cancels', (world) => ({
  ...entityStore<Cancel>('can', cancelIdOf),
  byAccount: new Map<string, Cancel[]>(),
  /** Broadcast transaction hashes. */
  rng: world.sim.rng.fork('cancels'),
  /** Told after a cancel fails and cancel.failed is out (recoveries installs one for its payouts). */
  failureListeners: [] as Array<(world: World, c: Cancel) => void>,
}));

export function cancelStatus(c: Cancel): CancelStatus {
  return statusOf(c.snapshot) as CancelStatus;
}

export const isTerminal = (status: CancelStatus): boolean => status === 'confirmed' || status === 'failed';

function eventData(c: Cancel, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const data: Record<string, unknown> = { cancel_id: c.cancel_id, credit_id: c.credit_id };
  if (c.client_cancel_id !== null) data.client_cancel_id = c.client_cancel_id;
  return { ...data, ...extra };
}

function applyEffects(world: World, c: Cancel, effects: CancelEffect[]): void {
  const ctx = c.snapshot.context;
  for (const effect of effects) {
    if (effect.type === 'created') {
      publish(world, c.org_id, c.account_id, 'cancel.created', eventData(c));
    } else if (effect.type === 'sent') {
      publish(world, c.org_id, c.account_id, 'cancel.sent', eventData(c, { tx_hash: ctx.tx_hash }));
    } else if (effect.type === 'confirmed') {
      // The credit leaves the ledger at finality, not at broadcast: until then it stays open (and locked).
      consumeCredit(world, c.credit_id, c.cancel_id);
      publish(world, c.org_id, c.account_id, 'cancel.confirmed', eventData(c, { tx_hash: ctx.tx_hash }));
    } else {
      releaseCredit(world, c.credit_id, c.cancel_id);
      publish(world, c.org_id, c.account_id, 'cancel.failed', eventData(c, { failure_code: ctx.failure_code }));
      for (const listener of cancelStore(world).failureListeners) listener(world, c);
    }
  }
}

/** Sends one event to a cancel's machine; false when the machine refuses it (a stale timer). */
function sendCancel(world: World, c: Cancel, event: CancelEvent): boolean {
  return cancelLifecycle.advance(world, c, c.cancel_id, event, applyEffects);
}

/** The stages at which a cancel fails, and their codes (from the failure-code registry). */
const CANCEL_STAGES = ['broadcast', 'confirmation'] as const satisfies FailureStage[];
const CANCEL_FAIL_CODES = failureCodesAt('cancel', ...CANCEL_STAGES);

/** The `cancel` (or, for a recovery payout, `recovery`) fault rules drawn once, when the broadcast falls due. */
interface CancelFaults {
  fail: CancelFailureCode | null;
  delay_ms: number;
}

function drawFaults(world: World, c: Cancel): CancelFaults {
  const out: CancelFaults = { fail: null, delay_ms: 0 };
  const ids = c.recovery_id === null ? [c.cancel_id, c.credit_id] : [c.cancel_id, c.credit_id, c.recovery_id];
  const subject = { ids, account_id: c.account_id, asset_key: c.asset_key, accepts: ['fail', 'delay_ms'], fail_codes: CANCEL_FAIL_CODES };
  for (const rule of world.sim.faults.fire(c.recovery_id === null ? 'cancel' : 'recovery', subject, world.sim.now_ms())) {
    const e = rule.effect;
    // The first matching fail rule decides; later ones fire (their `times` count) but change nothing.
    if ('fail' in e && out.fail === null) out.fail = e.fail as CancelFailureCode;
    else if ('delay_ms' in e) out.delay_ms += e.delay_ms;
  }
  return out;
}

function chainOf(c: Cancel) {
  return assetByKey(c.asset_key)!.chain;
}

/** Broadcast (or its failure), then one task at the chain's finality threshold. */
function broadcast(world: World, c: Cancel, faults: CancelFaults): void {
  const now = world.sim.now_ms();
  if (faults.fail !== null && stageOf(faults.fail, CANCEL_STAGES) === 'broadcast') {
    sendCancel(world, c, { type: 'FAIL', code: faults.fail, at_ms: now });
    return;
  }
  const chain = chainOf(c);
  const timing = world.profile.chains[chain];
  const final_due_ms = now + timing.block_ms * timing.finality_confirmations;
  const tx_hash = generateTxHash(chain, cancelStore(world).rng);
  if (!sendCancel(world, c, { type: 'BROADCAST', tx_hash, at_ms: now, final_due_ms })) return;
  world.sim.scheduler.schedule(final_due_ms, 'cancel.finality', { cancel_id: c.cancel_id, faults });
}

/** A cancel's scheduled step: its id, and the faults drawn at its broadcast (null until they are drawn). */
interface CancelTask {
  cancel_id: string;
  faults: CancelFaults | null;
}

// A deleted organization's cancels are forgotten (not found here); their scheduled steps then do nothing.
defineTask('cancel.broadcast', (world, { cancel_id, faults: drawn }: CancelTask) => {
  const c = cancelStore(world).byId.get(cancel_id);
  if (!c) return;
  if (drawn !== null) return broadcast(world, c, drawn);
  const faults = drawFaults(world, c);
  if (faults.delay_ms === 0) return broadcast(world, c, faults);
  const due_ms = world.sim.now_ms() + faults.delay_ms;
  if (!sendCancel(world, c, { type: 'POSTPONE', due_ms })) return;
  world.sim.scheduler.schedule(due_ms, 'cancel.broadcast', { cancel_id, faults } satisfies CancelTask);
});

defineTask('cancel.finality', (world, { cancel_id, faults }: CancelTask) => {
  const c = cancelStore(world).byId.get(cancel_id);
  if (!c) return;
  const at_ms = world.sim.now_ms();
  // A code of the confirmation stage (confirmation_timeout): the transaction never reaches finality; the
  // service gives up when it should have.
  sendCancel(world, c, faults?.fail != null ? { type: 'FAIL', code: faults.fail, at_ms } : { type: 'CONFIRM', at_ms });
});

function scheduleBroadcast(world: World, c: Cancel): void {
  world.sim.scheduler.schedule(c.snapshot.context.broadcast_due_ms, 'cancel.broadcast', {
    cancel_id: c.cancel_id,
    faults: null,
  } satisfies CancelTask);
}

export interface LaunchInput {
  org_id: string;
  account_id: string;
  credit: Credit;
  destination_id: string | null;
  destination_address: string;
  client_cancel_id: string | null;
  /** The recovery this transfer pays out, if any. */
  recovery_id?: string;
}

/**
 * Starts a cancel of a whole credit that the caller has already checked is open and free: locks it under
 * the new cancel_id, publishes cancel.created and schedules the broadcast. For a cancel-style transfer
 * started by another resource (a recovery claim), release any lock of your own first.
 */
export function launchCancel(world: World, input: LaunchInput): Cancel {
  const store = cancelStore(world);
  const cancel_id = world.newId('can');
  lockCredit(world, input.credit.credit_id, cancel_id);
  const initial = cancelLifecycle.start<CancelEffect>(world, cancel_id, {
    broadcast_due_ms: world.sim.now_ms() + world.profile.cancel_broadcast_ms,
  });
  const c: Cancel = {
    cancel_id,
    org_id: input.org_id,
    account_id: input.account_id,
    credit_id: input.credit.credit_id,
    asset_key: input.credit.asset_key,
    amount_atoms: input.credit.atoms,
    destination_id: input.destination_id,
    destination_address: input.destination_address,
    client_cancel_id: input.client_cancel_id,
    recovery_id: input.recovery_id ?? null,
    created_at_ms: world.sim.now_ms(),
    seq: world.nextSeq(),
    snapshot: initial.snapshot,
  };
  store.byId.insert(c);
  const mine = store.byAccount.get(c.account_id);
  if (mine) mine.push(c);
  else store.byAccount.set(c.account_id, [c]);
  applyEffects(world, c, initial.effects);
  scheduleBroadcast(world, c);
  return c;
}

/** The same refusals `lockCredit` makes, without taking the lock: every check precedes any change. */
function requireFreeCredit(credit: Credit): void {
  if (creditStatus(credit) === 'consumed') {
    throw new ApiError('credit_already_consumed', `credit ${credit.credit_id} is no longer open`, { param: 'credit_id' });
  }
  const holder = creditHolder(credit);
  if (holder !== null) {
    throw new ApiError('credit_in_use', `credit ${credit.credit_id} is in use by ${holder}; it can be used again once that finishes`, {
      param: 'credit_id',
      details: { credit_id: credit.credit_id },
    });
  }
}

export interface CreateCancelInput {
  account_id: string;
  credit_id: string;
  destination_id: string;
  client_cancel_id?: string;
}

/**
 * POST /cancels. 404 account_not_found / 409 account_not_operable (export_initiated, exported; a
 * deactivated account may cancel) / 404 not_found (credit) / 409 credit_already_consumed / 409
 * credit_in_use / 404 destination_not_found / 400 invalid_parameter (asset) / 403 destination_suspended.
 */
export function createCancel(world: World, org_id: string, input: CreateCancelInput): Cancel {
  const account = requireAccount(world, org_id, input.account_id);
  requireOperable(account, 'cancel');
  const credit = requireCredit(world, org_id, input.credit_id, { account_id: account.account_id });
  requireFreeCredit(credit);
  const destination = requireUsableDestination(world, org_id, account.account_id, input.destination_id, credit.asset_key);
  return launchCancel(world, {
    org_id,
    account_id: account.account_id,
    credit,
    destination_id: destination.destination_id,
    destination_address: destination.address,
    client_cancel_id: input.client_cancel_id ?? null,
  });
}

/** The cancel if it belongs to the org; otherwise 404 cancel_not_found (ids are globally unique). */
export function requireCancel(world: World, org_id: string, cancel_id: string): Cancel {
  const c = cancelStore(world).byId.get(cancel_id);
  if (!c || c.org_id !== org_id) throw new ApiError('cancel_not_found', `no cancel ${cancel_id}`, { param: 'cancel_id' });
  return c;
}

/** Time until the next expected step (broadcast, then finality), clamped to the profile's bounds. */
function pollAfterMs(world: World, c: Cancel): number {
  const ctx = c.snapshot.context;
  const due_ms = cancelStatus(c) === 'pending' ? ctx.broadcast_due_ms : (ctx.final_due_ms ?? ctx.broadcast_due_ms);
  const { min, max } = world.profile.cancel_poll_after_ms;
  return Math.min(max, Math.max(min, due_ms - world.sim.now_ms()));
}

export function serializeCancel(world: World, c: Cancel): Record<string, unknown> {
  const status = cancelStatus(c);
  const ctx = c.snapshot.context;
  const out: Record<string, unknown> = { cancel_id: c.cancel_id, status, credit_id: c.credit_id, client_cancel_id: c.client_cancel_id };
  if (ctx.tx_hash !== null) out.tx_hash = ctx.tx_hash;
  if (status === 'failed') out.failure_code = ctx.failure_code;
  if (!isTerminal(status)) out.poll_after_ms = pollAfterMs(world, c);
  return out;
}

/** Terminal cancels of one account as history records (spec: History records → cancel). */
export function cancelHistory(world: World, account_id: string): HistoryRecord[] {
  const out: HistoryRecord[] = [];
  for (const c of cancelStore(world).byAccount.get(account_id) ?? []) {
    const status = cancelStatus(c);
    if (!isTerminal(status)) continue;
    const ctx = c.snapshot.context;
    const body: Record<string, unknown> = {
      type: 'cancel',
      status,
      created_at_ms: c.created_at_ms,
      cancel_id: c.cancel_id,
      client_cancel_id: c.client_cancel_id,
      asset_key: c.asset_key,
      amount_atoms: c.amount_atoms.toString(),
      destination_address: c.destination_address,
    };
    if (status === 'confirmed') body.confirmed_at_ms = ctx.confirmed_at_ms;
    else body.failure_code = ctx.failure_code;
    out.push({ type: 'cancel', status, created_at_ms: c.created_at_ms, seq: c.seq, asset_keys: [c.asset_key], body });
  }
  return out;
}

/** A deleted organization: its cancels go. */
export function forgetOrganizationCancels(world: World, org: Organization, scope: ForgetScope): void {
  const store = cancelStore(world);
  const mine = (c: Cancel): boolean => c.org_id === org.organization_id;
  for (const c of store.list) if (mine(c)) scope.gone.add(c.cancel_id);
  store.byId.retain((c) => !mine(c));
  for (const id of scope.accounts) store.byAccount.delete(id);
}
