// Deposits and their lifecycle's effects: the stored deposit, the pending balance, the deposit.* events
// and the credit applied after each transition, the partner's flag, and reads. Landing (validation and
// fault draws) is landing.ts; the timers that step a deposit (confirmations, screening) are checks.ts.
import { defineStore, type Organization, type World } from '../../world.ts';
import { EntityTable, lifecycle, publish, publishDerived, statusOf, type MachineSnapshot } from '../../engine/index.ts';
import { ApiError } from '../../contract/errors.ts';
import { addPending, clearPending, createCredit, newCreditId } from '../credits/index.ts';
import { findDepositAddress, type DepositAddress } from './addresses.ts';
import { canonicalTxHash } from './chain-formats.ts';
import { depositMachine, type DepositEffect, type DepositEvent, type DepositStatus, type FlagReason } from './machine.ts';
import type { ForgetScope } from '../../resource-records.ts';

export interface DepositFaults {
  /** `{fail: 'deposit_insufficient_confirmations'}`: the transaction is dropped before its final block. */
  drop: boolean;
  flag: FlagReason | null;
  /** Extra time in the mempool before the first confirmation; finality moves by the same amount. */
  delay_ms: number;
}

/** A deposit: what its deposit address holds (org, account, chain) is read through `address`. */
export interface Deposit {
  readonly deposit_id: string;
  readonly address: DepositAddress;
  readonly asset_key: string;
  readonly atoms: bigint;
  readonly tx_hash: string;
  readonly source_address: string;
  /** Set when the organization screens deposits with a partner (profile partner_window_ms after landing). */
  readonly screening_deadline_ms: number | null;
  readonly faults: DepositFaults;
  /** A later deposit to a single-use (zap) address; the zap resource decides what it means. */
  readonly repeat_on_single_use: boolean;
  readonly landed_at_ms: number;
  /** Blocks each confirmation step counts: 1 (profile `per_block`) or all of them at finality (`at_finality`). */
  readonly confirm_step: number;
  credit_id: string | null;
  resolved_at_ms: number | null;
  readonly seq: number;
  snapshot: MachineSnapshot<typeof depositMachine>;
}

/** Under partner screening: the organization screens with a partner, so the deposit has a deadline. */
export const partnerScreened = (d: Deposit): boolean => d.screening_deadline_ms !== null;

export type DepositListener = (world: World, deposit: Deposit) => void;

const depositIdOf = (d: Deposit): string => d.deposit_id;
const txHashOf = (d: Deposit): string => d.tx_hash;

export const depositStore = defineStore('deposits', (world) => {
  const byId = new EntityTable<Deposit>('dep', depositIdOf);
  return {
    byId,
    list: byId.list,
    /** Canonical tx hash → deposit: a transaction lands once. Read rarely (a control call naming its own tx_hash, invariants). */
    byTxHash: byId.lookupIndex(txHashOf),
    byAddress: new Map<string, Deposit[]>(),
    /** Default tx hashes and sender addresses. */
    rng: world.sim.rng.fork('deposits'),
    /** Told when a deposit reaches verified, flagged or dropped (the zap resource installs one). */
    listeners: [] as DepositListener[],
  };
});

/** Registers a listener for resolved deposits; call from a resource's `install(world)`. */
export function onDepositResolved(world: World, listener: DepositListener): void {
  depositStore(world).listeners.push(listener);
}

export function depositStatus(d: Deposit): DepositStatus {
  return statusOf(d.snapshot) as DepositStatus;
}

/** A deposit's pending amount is kept under its id (ids are unique across kinds: the prefix names it). */
export const pendingKey = (d: Deposit): string => d.deposit_id;

function flaggedData(d: Deposit): Record<string, unknown> {
  const c = d.snapshot.context;
  const data: Record<string, unknown> = {
    deposit_address_id: d.address.deposit_address_id,
    asset_key: d.asset_key,
    detected_atoms: d.atoms.toString(),
    source_address: d.source_address,
    flag_reason: c.flag_reason,
    flagged_by: c.flagged_by,
    tx_hash: d.tx_hash,
  };
  if (c.flagged_by === 'partner') {
    data.partner_flag_category = c.partner_flag_category;
    data.partner_flag_message = c.partner_flag_message;
  }
  return data;
}

// The data of a deposit's two common events, rebuilt from the deposit on every read (`publishDerived`):
// every field they read is fixed at landing, and credit_id once verified, before deposit.verified.
const pendingData = (d: Deposit): Record<string, unknown> => ({
  deposit_address_id: d.address.deposit_address_id,
  asset_key: d.asset_key,
  detected_atoms: d.atoms.toString(),
});
const verifiedData = (d: Deposit): Record<string, unknown> => ({
  deposit_address_id: d.address.deposit_address_id,
  credit_id: d.credit_id,
  asset_key: d.asset_key,
  credited_atoms: d.atoms.toString(),
  source_address: d.source_address,
});

function resolve(world: World, d: Deposit): void {
  clearPending(world, pendingKey(d));
  d.resolved_at_ms = world.sim.now_ms();
  for (const listener of depositStore(world).listeners) listener(world, d);
}

/** Applies a step's effects; landing.ts applies the first step's (`detected`). */
export function applyEffects(world: World, d: Deposit, effects: DepositEffect[]): void {
  for (const effect of effects) {
    if (effect.type === 'detected') {
      addPending(world, { account_id: d.address.account_id, asset_key: d.asset_key, key: pendingKey(d), atoms: d.atoms });
      publishDerived(world, d.address.org_id, d.address.account_id, 'deposit.pending', { source: d, build: pendingData });
      if (partnerScreened(d)) {
        publish(world, d.address.org_id, d.address.account_id, 'deposit.partner_screening', {
          deposit_address_id: d.address.deposit_address_id,
          tx_hash: d.tx_hash,
          source_address: d.source_address,
          asset_key: d.asset_key,
          detected_atoms: d.atoms.toString(),
          screening_deadline_ms: d.screening_deadline_ms,
        });
      }
    } else if (effect.type === 'verified') {
      // deposit.verified names the credit, and credit.created must follow it: allocate the id first.
      const credit_id = newCreditId(world);
      d.credit_id = credit_id;
      clearPending(world, pendingKey(d));
      publishDerived(world, d.address.org_id, d.address.account_id, 'deposit.verified', { source: d, build: verifiedData });
      createCredit(world, {
        credit_id,
        org_id: d.address.org_id,
        account_id: d.address.account_id,
        asset_key: d.asset_key,
        atoms: d.atoms,
        source_type: 'deposit',
        source_id: d.tx_hash,
      });
      resolve(world, d);
    } else if (effect.type === 'flagged') {
      clearPending(world, pendingKey(d));
      publish(world, d.address.org_id, d.address.account_id, 'deposit.flagged', flaggedData(d));
      resolve(world, d);
    } else {
      // Dropped: the spec names no event for it; the pending amount goes and no credit ever appears.
      resolve(world, d);
    }
  }
}

export const depositLifecycle = lifecycle(depositMachine);

/** Sends one event to a deposit's machine; false when the machine refuses it (a stale timer). */
export function sendDeposit(world: World, d: Deposit, event: DepositEvent): boolean {
  return depositLifecycle.advance(world, d, d.deposit_id, event, applyEffects);
}

/**
 * The confirmations a deposit shows: the count its machine holds when every block steps it; at finality
 * steps, the blocks whose time has come (by now while pending, by its resolution once flagged or dropped
 * — a dropped transaction never got its last block), so GET /_sim/deposits reads the same either way.
 */
function depositConfirmations(world: World, d: Deposit): number {
  const c = d.snapshot.context;
  const status = depositStatus(d);
  if (d.confirm_step === 1 || status === 'verified') return c.confirmations;
  const at_ms = status === 'pending' ? world.sim.now_ms() : d.resolved_at_ms!;
  const blocks = Math.floor((at_ms - d.landed_at_ms - d.faults.delay_ms) / world.profile.chains[d.address.chain].block_ms);
  const most = status === 'dropped' ? c.required_confirmations - 1 : c.required_confirmations;
  return Math.max(c.confirmations, Math.min(most, Math.max(0, blocks)));
}

/**
 * POST /deposits/{deposit_address_id}/flag: the partner objects to a deposit inside its screening window.
 * 404 when the org has no partner-screened deposit with that address and tx_hash; 409 once it is resolved
 * or the window has closed.
 */
export function partnerFlag(
  world: World,
  org_id: string,
  deposit_address_id: string,
  body: { tx_hash: string; flag_category: string; flag_message: string },
): Deposit {
  const da = findDepositAddress(world, deposit_address_id);
  if (!da || da.org_id !== org_id)
    throw new ApiError('not_found', `no deposit address ${deposit_address_id}`, { param: 'deposit_address_id' });
  const wanted = canonicalTxHash(da.chain, body.tx_hash) ?? body.tx_hash;
  const d = (depositStore(world).byAddress.get(deposit_address_id) ?? []).find((x) => x.tx_hash === wanted && partnerScreened(x));
  if (!d)
    throw new ApiError('not_found', `no deposit under partner screening with tx_hash ${body.tx_hash} on ${deposit_address_id}`, {
      param: 'tx_hash',
    });
  const status = depositStatus(d);
  const closed = status !== 'pending' || !d.snapshot.context.partner_window_open || world.sim.now_ms() > d.screening_deadline_ms!;
  if (closed || !sendDeposit(world, d, { type: 'PARTNER_FLAG', flag_category: body.flag_category, flag_message: body.flag_message })) {
    throw new ApiError(
      'deposit_window_closed',
      status === 'pending' ? 'the partner screening window has closed' : `the deposit is already ${status}`,
      {
        param: 'tx_hash',
        details: { status, screening_deadline_ms: d.screening_deadline_ms },
      },
    );
  }
  return d;
}

export function listDeposits(world: World, q: { account_id?: string; deposit_address_id?: string }): Deposit[] {
  const store = depositStore(world);
  const items = q.deposit_address_id !== undefined ? (store.byAddress.get(q.deposit_address_id) ?? []) : store.list;
  return items.filter((d) => q.account_id === undefined || d.address.account_id === q.account_id);
}

export function serializeDeposit(world: World, d: Deposit): Record<string, unknown> {
  const c = d.snapshot.context;
  return {
    deposit_id: d.deposit_id,
    tx_hash: d.tx_hash,
    deposit_address_id: d.address.deposit_address_id,
    account_id: d.address.account_id,
    asset_key: d.asset_key,
    atoms: d.atoms.toString(),
    source_address: d.source_address,
    status: depositStatus(d),
    confirmations: depositConfirmations(world, d),
    required_confirmations: c.required_confirmations,
    screened: c.screened,
    screening_deadline_ms: d.screening_deadline_ms,
    credit_id: d.credit_id,
    flag_reason: c.flag_reason,
    flagged_by: c.flagged_by,
    repeat_on_single_use: d.repeat_on_single_use,
    landed_at_ms: d.landed_at_ms,
    resolved_at_ms: d.resolved_at_ms,
  };
}

/** A deleted organization: its deposits go (their tx hashes may land again, for another organization). */
export function forgetOrganizationDepositList(world: World, org: Organization, scope: ForgetScope): void {
  const store = depositStore(world);
  const mine = (d: Deposit): boolean => d.address.org_id === org.organization_id;
  for (const d of store.list) if (mine(d)) scope.gone.add(d.deposit_id);
  store.byId.retain((d) => !mine(d));
  for (const [address_id, deposits] of store.byAddress) if (deposits.some(mine)) store.byAddress.delete(address_id);
}
