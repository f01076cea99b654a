// The credits ledger: BigInt credits per account (create once per source, lock, release, consume once),
// pending amounts keyed by their cause (unconfirmed deposits, in-flight settlements) and the balances.
import { defineStore, type World } from '../../world.ts';
import {
  compactLifecycle,
  dropWhere,
  EntityTable,
  publishDerived,
  statusOf,
  type LifecycleState,
  type MachineSnapshot,
} from '../../engine/index.ts';
import { ApiError } from '../../contract/errors.ts';
import { paginate, type Page } from '../../contract/pagination.ts';
import { creditMachine, type CreditEffect, type CreditEvent, type CreditStatus } from './machine.ts';
import type { Organization } from '../../world.ts';
import type { ForgetScope } from '../../resource-records.ts';

type CreditSourceType = 'deposit' | 'trade_settlement' | 'change';

/** A credit (one per deposit, settlement and change: three per trade); its lifecycle state read with `creditSnapshot`. */
export interface Credit {
  readonly credit_id: string;
  readonly org_id: string;
  readonly account_id: string;
  readonly asset_key: string;
  readonly atoms: bigint;
  readonly source_type: CreditSourceType;
  readonly source_id: string;
  /** Distinguishes two credits one source may legitimately produce (e.g. a zap's settlement and change). */
  readonly role: string;
  readonly created_at_ms: number;
  consumed_at_ms: number | null;
  readonly seq: number;
  state: LifecycleState<typeof creditMachine>;
}

export interface PendingAmount {
  key: string;
  account_id: string;
  asset_key: string;
  atoms: bigint;
}

/** One (account, asset) pair of the balances. */
interface BalanceRow {
  readonly account_id: string;
  readonly asset_key: string;
  /** When the pair first got a credit or a pending amount: the balances list order. */
  readonly seq: number;
  /** Running sum of the pair's open credits; the invariant recomputes it from the credits. */
  available_atoms: bigint;
  /** Atoms ever credited (never decremented): the conservation check against open + consumed, per asset. */
  credited_atoms: bigint;
}

/** One account's side of the ledger, made the first time the account gets a credit or a pending amount. */
interface AccountLedger {
  /** asset → its balance row, in the order the assets first appeared. */
  readonly rows: Map<string, BalanceRow>;
  /** The account's credits, in creation order. */
  readonly credits: Credit[];
}

export const rowKey = (account_id: string, asset_key: string): string => `${account_id}|${asset_key}`;
export const sourceKey = (source_type: string, source_id: string, role: string): string => `${source_type}|${source_id}|${role}`;

const creditIdOf = (c: Credit): string => c.credit_id;

export const creditStore = defineStore('credits', () => {
  const byId = new EntityTable<Credit>('cred', creditIdOf);
  return {
    byId,
    /** Every credit in creation order (= seq order): the invariants walk it. */
    list: byId.list,
    /** (source_id, source_type, role) → the credit made from it: the once-per-source guard. */
    bySource: byId.uniqueIndex(['source_id', 'source_type', 'role']),
    pending: new Map<string, PendingAmount>(),
    /** account → its credits and balance rows (asset → row): one lookup finds both. */
    accounts: new Map<string, AccountLedger>(),
  };
});

/** A consumed credit's context is only its consumer (the lock is dropped on the way): it keeps the consumer's id alone. */
const credits = compactLifecycle(creditMachine, {
  state: 'consumed',
  status: 'done',
  keeps: 'consumed_by',
  context: (_credit: Credit, consumed_by) => ({ holder_id: null, consumed_by: consumed_by as string | null }),
});

export const creditSnapshot = (credit: Credit): MachineSnapshot<typeof creditMachine> => credits.snapshot(credit);

export function creditStatus(credit: Credit): CreditStatus {
  return statusOf(creditSnapshot(credit)) as CreditStatus;
}

export function creditHolder(credit: Credit): string | null {
  return creditSnapshot(credit).context.holder_id;
}

function ledgerOf(accounts: Map<string, AccountLedger>, account_id: string): AccountLedger {
  let ledger = accounts.get(account_id);
  if (ledger === undefined) accounts.set(account_id, (ledger = { rows: new Map(), credits: [] }));
  return ledger;
}

/** The (account, asset) balance row, made (with the next seq) on first use. */
function rowOf(world: World, ledger: AccountLedger, account_id: string, asset_key: string): BalanceRow {
  let row = ledger.rows.get(asset_key);
  if (row === undefined)
    ledger.rows.set(asset_key, (row = { account_id, asset_key, seq: world.nextSeq(), available_atoms: 0n, credited_atoms: 0n }));
  return row;
}

/** credit.created's data, rebuilt from the credit on every read (its fields never change): see `publishDerived`. */
function creditCreatedData(credit: Credit): Record<string, unknown> {
  return { credit_id: credit.credit_id, asset_key: credit.asset_key, atoms: credit.atoms.toString(), source_type: credit.source_type };
}

function applyEffects(world: World, credit: Credit, effects: CreditEffect[]): void {
  for (const effect of effects) {
    if (effect.type === 'created') {
      publishDerived(world, credit.org_id, credit.account_id, 'credit.created', { source: credit, build: creditCreatedData });
    } else {
      // Consumption has no event of its own: the trade, zap or cancel that consumed it reports it.
      credit.consumed_at_ms = world.sim.now_ms();
      creditStore(world).accounts.get(credit.account_id)!.rows.get(credit.asset_key)!.available_atoms -= credit.atoms;
    }
  }
}

/** A credit id allocated ahead of `createCredit`, for events that must name the credit before `credit.created` (deposit.verified, trade.settled). */
export function newCreditId(world: World): string {
  return world.newId('cred');
}

export interface CreateCreditInput {
  org_id: string;
  account_id: string;
  asset_key: string;
  atoms: bigint;
  source_type: CreditSourceType;
  source_id: string;
  /** Default: the source_type. Give one when a source produces two credits of the same type. */
  role?: string;
  /** Pre-allocated with `newCreditId`. */
  credit_id?: string;
}

/**
 * Creates an open credit and publishes `credit.created`. A second credit for the same (source_type,
 * source_id, role) is a bug in the caller, so it throws a plain Error (an internal error), never an ApiError.
 */
export function createCredit(world: World, input: CreateCreditInput): Credit {
  const store = creditStore(world);
  const role = input.role ?? input.source_type;
  const twin = store.bySource.find(input.source_id, input.source_type, role);
  if (twin) throw new Error(`credit for ${sourceKey(input.source_type, input.source_id, role)} already exists: ${twin.credit_id}`);
  if (input.atoms <= 0n) throw new Error(`credit atoms must be positive, got ${input.atoms}`);
  const credit_id = input.credit_id ?? newCreditId(world);
  if (store.byId.has(credit_id)) throw new Error(`credit id ${credit_id} already used`);
  const initial = credits.start(world, credit_id, undefined);
  const created_at_ms = world.sim.now_ms();
  const seq = world.nextSeq();
  const ledger = ledgerOf(store.accounts, input.account_id);
  const row = rowOf(world, ledger, input.account_id, input.asset_key);
  const credit: Credit = {
    credit_id,
    org_id: input.org_id,
    account_id: input.account_id,
    asset_key: input.asset_key,
    atoms: input.atoms,
    source_type: input.source_type,
    source_id: input.source_id,
    role,
    created_at_ms,
    consumed_at_ms: null,
    seq,
    state: initial.state,
  };
  store.byId.insert(credit);
  ledger.credits.push(credit);
  row.available_atoms += credit.atoms;
  row.credited_atoms += credit.atoms;
  applyEffects(world, credit, initial.effects);
  return credit;
}

/** The credit made from (source_type, source_id, role), if any; role defaults to the source_type. */
export function creditForSource(world: World, source_type: string, source_id: string, role: string = source_type): Credit | undefined {
  return creditStore(world).bySource.find(source_id, source_type, role);
}

/** The credit if it exists in the org (and in the account, when given); otherwise 404 not_found. */
export function requireCredit(world: World, org_id: string, credit_id: string, opts: { account_id?: string; param?: string } = {}): Credit {
  const credit = creditStore(world).byId.get(credit_id);
  if (!credit || credit.org_id !== org_id || (opts.account_id !== undefined && credit.account_id !== opts.account_id)) {
    throw new ApiError('not_found', `no credit ${credit_id}${opts.account_id ? ` on account ${opts.account_id}` : ''}`, {
      param: opts.param ?? 'credit_id',
    });
  }
  return credit;
}

function known(world: World, credit_id: string): Credit {
  const credit = creditStore(world).byId.get(credit_id);
  if (!credit) throw new ApiError('not_found', `no credit ${credit_id}`, { param: 'credit_id' });
  return credit;
}

function refuseUnusable(credit: Credit, holder_id: string): void {
  if (creditStatus(credit) === 'consumed') {
    throw new ApiError('credit_already_consumed', `credit ${credit.credit_id} is no longer open`, { param: 'credit_id' });
  }
  const holder = creditHolder(credit);
  if (holder !== null && holder !== holder_id) {
    throw new ApiError('credit_in_use', `credit ${credit.credit_id} is in use by ${holder}; it can be used again once that finishes`, {
      param: 'credit_id',
      details: { credit_id: credit.credit_id },
    });
  }
}

function sendCredit(world: World, credit: Credit, event: CreditEvent): boolean {
  return credits.advance(world, credit, credit.credit_id, event, applyEffects);
}

/** Reserves an open credit for one holder. Idempotent for the same holder; `credit_in_use` for another, `credit_already_consumed` once consumed. */
export function lockCredit(world: World, credit_id: string, holder_id: string): Credit {
  const credit = known(world, credit_id);
  refuseUnusable(credit, holder_id);
  if (creditHolder(credit) === holder_id) return credit;
  sendCredit(world, credit, { type: 'LOCK', holder_id });
  return credit;
}

/** Frees a credit the holder locked. Returns false (and changes nothing) when the holder does not hold it: failure paths may release twice. */
export function releaseCredit(world: World, credit_id: string, holder_id: string): boolean {
  return sendCredit(world, known(world, credit_id), { type: 'RELEASE', holder_id });
}

/** open → consumed, exactly once. The holder must hold the lock, or the credit must be free (lock and consume in one step). */
export function consumeCredit(world: World, credit_id: string, holder_id: string): Credit {
  const credit = known(world, credit_id);
  refuseUnusable(credit, holder_id);
  sendCredit(world, credit, { type: 'CONSUME', holder_id });
  return credit;
}

/** Adds (or replaces) a pending amount under `key`: the id of the unconfirmed deposit or in-flight swap it belongs to. */
export function addPending(world: World, input: { account_id: string; asset_key: string; key: string; atoms: bigint }): void {
  if (input.atoms < 0n) throw new Error(`pending atoms must not be negative, got ${input.atoms}`);
  const store = creditStore(world);
  store.pending.set(input.key, { key: input.key, account_id: input.account_id, asset_key: input.asset_key, atoms: input.atoms });
  rowOf(world, ledgerOf(store.accounts, input.account_id), input.account_id, input.asset_key);
}

/** Removes a pending amount; false when there was none under that key. */
export function clearPending(world: World, key: string): boolean {
  return creditStore(world).pending.delete(key);
}

export interface Balance {
  account_id: string;
  asset_key: string;
  available_atoms: bigint;
  pending_atoms: bigint;
  seq: number;
}

/** One row per asset with an open credit or a pending amount, in the order the asset first appeared. */
export function balancesOf(world: World, account_id: string): Balance[] {
  const store = creditStore(world);
  const pending = new Map<string, bigint>();
  for (const p of store.pending.values()) {
    if (p.account_id === account_id) pending.set(p.asset_key, (pending.get(p.asset_key) ?? 0n) + p.atoms);
  }
  const rows: Balance[] = [];
  for (const [asset_key, { seq, available_atoms }] of store.accounts.get(account_id)?.rows ?? []) {
    const pending_atoms = pending.get(asset_key) ?? 0n;
    if (available_atoms > 0n || pending_atoms > 0n) rows.push({ account_id, asset_key, available_atoms, pending_atoms, seq });
  }
  return rows.sort((a, b) => a.seq - b.seq);
}

export function listBalances(world: World, account_id: string, q: { asset_key?: string; limit?: number; cursor?: string }): Page<Balance> {
  const rows = balancesOf(world, account_id).filter((b) => q.asset_key === undefined || b.asset_key === q.asset_key);
  return paginate(rows, (b) => b.seq, { limit: q.limit, cursor: q.cursor });
}

export function creditsOf(world: World, account_id: string): Credit[] {
  return creditStore(world).accounts.get(account_id)?.credits ?? [];
}

export function listCredits(
  world: World,
  account_id: string,
  q: { asset_key?: string; status?: CreditStatus; limit?: number; cursor?: string },
): Page<Credit> {
  const status = q.status ?? 'open';
  const items = creditsOf(world, account_id).filter(
    (c) => creditStatus(c) === status && (q.asset_key === undefined || c.asset_key === q.asset_key),
  );
  return paginate(items, (c) => c.seq, { limit: q.limit, cursor: q.cursor });
}

export function serializeCredit(c: Credit): Record<string, unknown> {
  return {
    credit_id: c.credit_id,
    account_id: c.account_id,
    asset_key: c.asset_key,
    atoms: c.atoms.toString(),
    status: creditStatus(c),
    source_type: c.source_type,
    source_id: c.source_id,
    created_at_ms: c.created_at_ms,
  };
}

export function serializeBalance(b: Balance): Record<string, unknown> {
  return { asset_key: b.asset_key, available_atoms: b.available_atoms.toString(), pending_atoms: b.pending_atoms.toString() };
}

/** A deleted organization: its credits, pending amounts and balance rows go (the source index follows the table). */
export function forgetOrganizationCredits(world: World, org: Organization, scope: ForgetScope): void {
  const store = creditStore(world);
  const mine = (c: Credit): boolean => c.org_id === org.organization_id || scope.accounts.has(c.account_id);
  for (const c of store.list) if (mine(c)) scope.gone.add(c.credit_id);
  store.byId.retain((c) => !mine(c));
  dropWhere(store.pending, (p) => scope.accounts.has(p.account_id));
  for (const id of scope.accounts) store.accounts.delete(id);
}
