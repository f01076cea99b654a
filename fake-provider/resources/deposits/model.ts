// Deposits landing on deposit addresses and their lifecycle on the sim clock: validation of the control
// call, fault draws at landing, one CONFIRM per block, source screening, the partner window and partner
// flags, and the effects (pending balance, deposit.* events, the credit) applied after each transition.
import type { MachineSnapshot } from '../../engine/lifecycle.ts';
import { defineStore, type Organization, type World } from '../../world.ts';
import { IdIndex } from '../../engine/id-index.ts';
import { ApiError } from '../../http/errors.ts';
import { publish, publishDerived } from '../../engine/publish.ts';
import { advance, start, statusOf } from '../../engine/lifecycle.ts';
import { matches, type FaultSubject } from '../../../sim/index.ts';
import { requireAsset } from '../assets/index.ts';
import { accountStatus, accountStore, type WalletChain } from '../accounts/index.ts';
import { screen } from '../screening/index.ts';
import { addPending, clearPending, createCredit, newCreditId } from '../credits/index.ts';
import { findDepositAddress, isMonitored, type DepositAddress } from './addresses.ts';
import { canonicalTxHash, generateSourceAddress, generateTxHash, isChainAddress } from './chain-formats.ts';
import { depositMachine, type DepositEffect, type DepositEvent, type DepositStatus, type FlagReason } from './machine.ts';
import type { ForgetScope } from '../../resource-records.ts';
import { retainInPlace } from '../../engine/retain.ts';

export interface DepositFaults {
  /** `{fail: 'deposit_insufficient_confirmations'}`: the transaction is dropped before its final block. */
  drop: boolean;
  flag: FlagReason | null;
  /** Extra time in the mempool before the first confirmation; finality moves by the same amount. */
  delay_ms: number;
}

export interface Deposit {
  readonly deposit_id: string;
  readonly org_id: string;
  readonly account_id: string;
  readonly deposit_address_id: string;
  readonly chain: WalletChain;
  asset_key: string;
  atoms: bigint;
  /** `atoms` in decimal, made on read (the events that carry it are rebuilt on read too). */
  readonly atoms_text: string;
  tx_hash: string;
  source_address: string;
  readonly partner_screening: boolean;
  screening_deadline_ms: number | null;
  faults: DepositFaults;
  /** A later deposit to a single-use (zap) address; the zap resource decides what it means. */
  repeat_on_single_use: boolean;
  landed_at_ms: number;
  /** Blocks each confirmation step counts: 1 (profile `per_block`) or all of them at finality (`at_finality`). */
  confirm_step: number;
  resolved_at_ms: number | null;
  credit_id: string | null;
  seq: number;
  snapshot: MachineSnapshot<typeof depositMachine>;
}

/**
 * A stored deposit. What its deposit address already holds (org, account, address id, chain) is read
 * through it, and partner screening from the deadline it implies: one reference instead of five fields,
 * on an object every settled trade keeps (the address outlives its deposits in its own store anyway).
 */
class DepositRecord implements Deposit {
  credit_id: string | null = null;
  resolved_at_ms: number | null = null;

  constructor(
    readonly deposit_id: string,
    private readonly address: DepositAddress,
    public asset_key: string,
    public atoms: bigint,
    public tx_hash: string,
    public source_address: string,
    public screening_deadline_ms: number | null,
    public faults: DepositFaults,
    public repeat_on_single_use: boolean,
    public landed_at_ms: number,
    readonly confirm_step: number,
    public seq: number,
    public snapshot: MachineSnapshot<typeof depositMachine>,
  ) {}

  get org_id(): string {
    return this.address.org_id;
  }

  get atoms_text(): string {
    return this.atoms.toString();
  }

  get account_id(): string {
    return this.address.account_id;
  }

  get deposit_address_id(): string {
    return this.address.deposit_address_id;
  }

  get chain(): WalletChain {
    return this.address.chain;
  }

  get partner_screening(): boolean {
    return this.screening_deadline_ms !== null;
  }
}

export type DepositListener = (world: World, deposit: Deposit) => void;

/**
 * Canonical tx hash → deposit, for the rare reader (a control call naming its own tx_hash, invariants):
 * built from the list on the first lookup, kept up to date from then on. Until then a deposit costs no
 * Map entry (~46 bytes each), and most runs never look one up.
 */
class TxHashIndex {
  #byHash: Map<string, Deposit> | undefined;

  constructor(private readonly list: readonly Deposit[]) {}

  get(tx_hash: string): Deposit | undefined {
    if (this.#byHash === undefined) {
      // In landing order: a later deposit under the same hash wins, as it did in a Map kept all along.
      this.#byHash = new Map();
      for (const d of this.list) this.#byHash.set(d.tx_hash, d);
    }
    return this.#byHash.get(tx_hash);
  }

  has(tx_hash: string): boolean {
    return this.get(tx_hash) !== undefined;
  }

  /** Called for every deposit as it lands (after it joins the list). */
  set(tx_hash: string, d: Deposit): void {
    this.#byHash?.set(tx_hash, d);
  }

  /** Deposits left the list (an organization deleted): the map is made again on the next read. */
  reset(): void {
    this.#byHash = undefined;
  }
}

export const depositStore = defineStore('deposits', (world) => {
  const list: Deposit[] = [];
  return {
    byId: new IdIndex<Deposit>('dep', (d) => d.deposit_id),
    list,
    /** Canonical tx hash → deposit: a transaction lands once. */
    byTxHash: new TxHashIndex(list),
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

export const pendingKey = (d: Deposit): string => `deposit:${d.deposit_id}`;

function flaggedData(d: Deposit): Record<string, unknown> {
  const c = d.snapshot.context;
  const data: Record<string, unknown> = {
    deposit_address_id: d.deposit_address_id,
    asset_key: d.asset_key,
    detected_atoms: d.atoms_text,
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
  deposit_address_id: d.deposit_address_id,
  asset_key: d.asset_key,
  detected_atoms: d.atoms_text,
});
const verifiedData = (d: Deposit): Record<string, unknown> => ({
  deposit_address_id: d.deposit_address_id,
  credit_id: d.credit_id,
  asset_key: d.asset_key,
  credited_atoms: d.atoms_text,
  source_address: d.source_address,
});

function resolve(world: World, d: Deposit): void {
  clearPending(world, pendingKey(d));
  d.resolved_at_ms = world.sim.now_ms();
  for (const listener of depositStore(world).listeners) listener(world, d);
}

function applyEffects(world: World, d: Deposit, effects: DepositEffect[]): void {
  for (const effect of effects) {
    if (effect.type === 'detected') {
      addPending(world, { account_id: d.account_id, asset_key: d.asset_key, key: pendingKey(d), atoms: d.atoms });
      publishDerived(world, d.org_id, d.account_id, 'deposit.pending', { source: d, build: pendingData });
      if (d.partner_screening) {
        publish(world, d.org_id, d.account_id, 'deposit.partner_screening', {
          deposit_address_id: d.deposit_address_id,
          tx_hash: d.tx_hash,
          source_address: d.source_address,
          asset_key: d.asset_key,
          detected_atoms: d.atoms_text,
          screening_deadline_ms: d.screening_deadline_ms,
        });
      }
    } else if (effect.type === 'verified') {
      // deposit.verified names the credit, and credit.created must follow it: allocate the id first.
      const credit_id = newCreditId(world);
      d.credit_id = credit_id;
      clearPending(world, pendingKey(d));
      publishDerived(world, d.org_id, d.account_id, 'deposit.verified', { source: d, build: verifiedData });
      createCredit(world, {
        credit_id,
        org_id: d.org_id,
        account_id: d.account_id,
        asset_key: d.asset_key,
        atoms: d.atoms,
        source_type: 'deposit',
        source_id: d.tx_hash,
      });
      resolve(world, d);
    } else if (effect.type === 'flagged') {
      clearPending(world, pendingKey(d));
      publish(world, d.org_id, d.account_id, 'deposit.flagged', flaggedData(d));
      resolve(world, d);
    } else {
      // Dropped: the spec names no event for it; the pending amount goes and no credit ever appears.
      resolve(world, d);
    }
  }
}

/** Sends one event to a deposit's machine; false when the machine refuses it (a stale timer). */
export function sendDeposit(world: World, d: Deposit, event: DepositEvent): boolean {
  return advance(world, depositMachine, d, d.deposit_id, event, applyEffects);
}

const NO_FAULTS: DepositFaults = Object.freeze({ drop: false, flag: null, delay_ms: 0 });

/**
 * Draws the deposit fault rules. A `partner_flagged` rule means nothing for an organization without
 * partner screening, so it is left unfired there (its `times` and probability untouched) unless another
 * flag rule also matches the deposit, in which case it may be drawn but is ignored.
 */
function drawFaults(world: World, da: DepositAddress, tx_hash: string, asset_key: string, partner: boolean): DepositFaults {
  // No deposit rule, nothing to draw: every such deposit shares one frozen record (read-only after landing).
  if (!world.sim.faults.has('deposit')) return NO_FAULTS;
  const subject: Omit<FaultSubject, 'accepts'> = { ids: [da.deposit_address_id, tx_hash], account_id: da.account_id, asset_key };
  let accepts = ['fail', 'flag', 'delay_ms'];
  if (!partner) {
    const flagRules = world.sim.faults
      .list()
      .filter((r) => r.target === 'deposit' && r.times !== 0 && 'flag' in r.effect && matches(r, { ...subject, accepts }));
    if (flagRules.every((r) => (r.effect as { flag: string }).flag === 'partner_flagged')) accepts = ['fail', 'delay_ms'];
  }
  const out: DepositFaults = { drop: false, flag: null, delay_ms: 0 };
  for (const rule of world.sim.faults.fire('deposit', { ...subject, accepts }, world.sim.now_ms())) {
    const e = rule.effect;
    if ('fail' in e) out.drop = true;
    else if ('flag' in e && out.flag === null && (partner || e.flag !== 'partner_flagged')) out.flag = e.flag as FlagReason;
    else if ('delay_ms' in e) out.delay_ms += e.delay_ms;
  }
  return out;
}

export interface LandInput {
  deposit_address_id: string;
  atoms: bigint;
  asset_key?: string;
  source_address?: string;
  tx_hash?: string;
}

interface Validated {
  da: DepositAddress;
  org: Organization;
  asset_key: string;
  tx_hash: string | undefined;
}

/** Every refusal happens here, before anything is drawn or stored. */
function validateLanding(world: World, input: LandInput): Validated {
  const da = findDepositAddress(world, input.deposit_address_id);
  if (!da) throw new ApiError('not_found', `no deposit address ${input.deposit_address_id}`, { param: 'deposit_address_id' });
  let asset_key = da.asset_key;
  if (input.asset_key !== undefined) {
    const asset = requireAsset(input.asset_key);
    if (asset.chain !== da.chain) {
      throw new ApiError('invalid_parameter', `${asset.asset_key} is on ${asset.chain}; deposit address ${da.deposit_address_id} is on ${da.chain}`, { param: 'asset_key' });
    }
    asset_key = asset.asset_key;
  }
  if (input.source_address !== undefined && !isChainAddress(da.chain, input.source_address)) {
    throw new ApiError('invalid_parameter', `source_address is not a valid ${da.chain} address`, { param: 'source_address' });
  }
  let tx_hash: string | undefined;
  if (input.tx_hash !== undefined) {
    tx_hash = canonicalTxHash(da.chain, input.tx_hash) ?? undefined;
    if (tx_hash === undefined) throw new ApiError('invalid_parameter', `tx_hash is not a ${da.chain} transaction hash`, { param: 'tx_hash' });
    if (depositStore(world).byTxHash.has(tx_hash)) throw new ApiError('invalid_parameter', `transaction ${tx_hash} has already landed`, { param: 'tx_hash' });
  }
  if (!isMonitored(world, da)) {
    throw new ApiError('deposit_window_closed', `deposit address ${da.deposit_address_id} stopped being monitored at ${da.expires_at_ms}`, {
      param: 'deposit_address_id',
      details: { expires_at_ms: da.expires_at_ms },
    });
  }
  const account = accountStore(world).byId.get(da.account_id)!;
  if (accountStatus(account) === 'exported') {
    throw new ApiError('deposit_window_closed', `account ${da.account_id} is exported; its deposit addresses are no longer monitored`, { param: 'deposit_address_id' });
  }
  return { da, org: world.orgs.get(da.org_id)!, asset_key, tx_hash };
}

/**
 * An on-chain transfer lands on a deposit address (control plane). Deposits run whatever the account's
 * status short of exported: on a deactivated account the funds are already on chain, so they are credited.
 */
export function landDeposit(world: World, input: LandInput): Deposit {
  const { da, org, asset_key, tx_hash: given } = validateLanding(world, input);
  const store = depositStore(world);
  const tx_hash = given ?? generateTxHash(da.chain, store.rng);
  const source_address = input.source_address ?? generateSourceAddress(da.chain, store.rng);
  const now = world.sim.now_ms();
  const deposit_id = world.newId('dep');
  const faults = drawFaults(world, da, tx_hash, asset_key, org.partner_screening);
  const timing = world.profile.chains[da.chain];
  const initial = start<typeof depositMachine, DepositEffect>(world, depositMachine, deposit_id, {
    required_confirmations: timing.finality_confirmations,
    partner_screening: org.partner_screening,
  });
  const earlier = store.byAddress.get(da.deposit_address_id);
  const d = new DepositRecord(
    deposit_id,
    da,
    asset_key,
    input.atoms,
    tx_hash,
    source_address,
    org.partner_screening ? now + world.profile.partner_window_ms : null,
    faults,
    da.single_use && earlier !== undefined && earlier.length > 0,
    now,
    world.profile.deposit_confirmation_steps === 'at_finality' ? timing.finality_confirmations : 1,
    world.nextSeq(),
    initial.snapshot,
  );
  store.byId.set(deposit_id, d);
  store.list.push(d);
  store.byTxHash.set(tx_hash, d);
  if (earlier === undefined) store.byAddress.set(da.deposit_address_id, [d]);
  else earlier.push(d);
  applyEffects(world, d, initial.effects);
  scheduleChecks(world, d, timing.block_ms);
  return d;
}

/** Events that carry no data: one frozen object each, shared by every deposit. */
const DROP: DepositEvent = Object.freeze({ type: 'DROP' });
const SCREENED_CLEAN: DepositEvent = Object.freeze({ type: 'SCREENED_CLEAN' });
const PARTNER_WINDOW_CLOSED: DepositEvent = Object.freeze({ type: 'PARTNER_WINDOW_CLOSED' });
/** A confirmation step carries only its block count: one frozen event for a block at a time. */
const CONFIRM_ONE: DepositEvent = Object.freeze({ type: 'CONFIRM', blocks: 1 });
const confirmEvent = (blocks: number): DepositEvent => (blocks === 1 ? CONFIRM_ONE : { type: 'CONFIRM', blocks });

/** Where a deposit's confirmations stand: the block the next task reaches, its due time, and that task. */
interface ConfirmChain {
  n: number;
  due_ms: number;
  run: () => void;
}

const NOT_YET = (): void => undefined;

/**
 * `d.confirm_step` blocks at a time (one per block, or all of them at the finality block): each step
 * schedules the next, and a resolved deposit stops the chain (per block, the settle report and the
 * timeline count each). One task function per deposit serves every step, its state in a plain record:
 * not a closure per block. The function is assigned to the record rather than declared as a named const
 * (under tsx a named closure also pays a name definition); a class holding the same state measured slower.
 */
function scheduleConfirmations(world: World, d: Deposit, block_ms: number): void {
  const step = d.confirm_step;
  const chain: ConfirmChain = { n: step, due_ms: d.landed_at_ms + d.faults.delay_ms + step * block_ms, run: NOT_YET };
  chain.run = () => confirmStep(world, d, chain, block_ms);
  world.sim.scheduler.schedule(chain.due_ms, 'deposit.confirm', chain.run);
}

function confirmStep(world: World, d: Deposit, chain: ConfirmChain, block_ms: number): void {
  const required = d.snapshot.context.required_confirmations;
  if (d.faults.drop && chain.n === required) {
    sendDeposit(world, d, DROP);
    return;
  }
  if (sendDeposit(world, d, confirmEvent(d.confirm_step)) && chain.n < required) {
    chain.n += d.confirm_step;
    chain.due_ms += d.confirm_step * block_ms;
    world.sim.scheduler.schedule(chain.due_ms, 'deposit.confirm', chain.run);
  }
}

/**
 * The confirmations a deposit shows: the count its machine holds when every block steps it; at finality
 * steps, the blocks whose time has come (by now while pending, by its resolution once flagged or dropped
 * — a dropped transaction never got its last block), so GET /_sim/deposits reads the same either way.
 */
export function depositConfirmations(world: World, d: Deposit): number {
  const c = d.snapshot.context;
  const status = depositStatus(d);
  if (d.confirm_step === 1 || status === 'verified') return c.confirmations;
  const at_ms = status === 'pending' ? world.sim.now_ms() : d.resolved_at_ms!;
  const blocks = Math.floor((at_ms - d.landed_at_ms - d.faults.delay_ms) / world.profile.chains[d.chain].block_ms);
  const most = status === 'dropped' ? c.required_confirmations - 1 : c.required_confirmations;
  return Math.max(c.confirmations, Math.min(most, Math.max(0, blocks)));
}

function scheduleChecks(world: World, d: Deposit, block_ms: number): void {
  const { scheduler } = world.sim;
  scheduleConfirmations(world, d, block_ms);

  scheduler.after(world.profile.deposit_screening_ms, 'deposit.screening', () => {
    const flag = d.faults.flag !== null && d.faults.flag !== 'partner_flagged' ? d.faults.flag : screen(world, d.source_address);
    sendDeposit(world, d, flag ? { type: 'SCREENED_FLAG', flag_reason: flag } : SCREENED_CLEAN);
  });

  if (d.screening_deadline_ms !== null) {
    scheduler.schedule(d.screening_deadline_ms, 'deposit.partner_window', () => {
      sendDeposit(world, d, PARTNER_WINDOW_CLOSED);
    });
    if (d.faults.flag === 'partner_flagged') {
      // An injected partner answers halfway through its window.
      scheduler.after(Math.floor(world.profile.partner_window_ms / 2), 'deposit.partner_flag', () => {
        sendDeposit(world, d, { type: 'PARTNER_FLAG', flag_category: 'swapsim_fault', flag_message: 'flagged by a swapsim fault rule' });
      });
    }
  }
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
  if (!da || da.org_id !== org_id) throw new ApiError('not_found', `no deposit address ${deposit_address_id}`, { param: 'deposit_address_id' });
  const wanted = canonicalTxHash(da.chain, body.tx_hash) ?? body.tx_hash;
  const d = (depositStore(world).byAddress.get(deposit_address_id) ?? []).find((x) => x.tx_hash === wanted && x.partner_screening);
  if (!d) throw new ApiError('not_found', `no deposit under partner screening with tx_hash ${body.tx_hash} on ${deposit_address_id}`, { param: 'tx_hash' });
  const status = depositStatus(d);
  const closed = status !== 'pending' || !d.snapshot.context.partner_window_open || world.sim.now_ms() > d.screening_deadline_ms!;
  if (closed || !sendDeposit(world, d, { type: 'PARTNER_FLAG', flag_category: body.flag_category, flag_message: body.flag_message })) {
    throw new ApiError('deposit_window_closed', status === 'pending' ? 'the partner screening window has closed' : `the deposit is already ${status}`, {
      param: 'tx_hash',
      details: { status, screening_deadline_ms: d.screening_deadline_ms },
    });
  }
  return d;
}

export function listDeposits(world: World, q: { account_id?: string; deposit_address_id?: string }): Deposit[] {
  const store = depositStore(world);
  const items = q.deposit_address_id !== undefined ? (store.byAddress.get(q.deposit_address_id) ?? []) : store.list;
  return items.filter((d) => q.account_id === undefined || d.account_id === q.account_id);
}

export function serializeDeposit(world: World, d: Deposit): Record<string, unknown> {
  const c = d.snapshot.context;
  return {
    deposit_id: d.deposit_id,
    tx_hash: d.tx_hash,
    deposit_address_id: d.deposit_address_id,
    account_id: d.account_id,
    asset_key: d.asset_key,
    atoms: d.atoms_text,
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
  const mine = (d: Deposit): boolean => d.org_id === org.organization_id;
  for (const d of store.list) if (mine(d)) scope.gone.add(d.deposit_id);
  store.byId.retain((d) => !mine(d));
  if (retainInPlace(store.list, (d) => !mine(d)) > 0) store.byTxHash.reset();
  for (const [address_id, deposits] of store.byAddress) if (deposits.some(mine)) store.byAddress.delete(address_id);
}
