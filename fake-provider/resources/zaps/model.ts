// Zap operations over the world: create (credit-funded: lock the credit and execute; deposit-funded: issue a
// single-use deposit address and wait), the deposit's outcome, expiry and the fill-time floor check. Reads,
// lists and history are read.ts, invariants invariants.ts; execution runs in the shared driver (resources/execution).
import { defineTask, dropWhere, entityStore, lifecycle, publish, statusOf, type MachineSnapshot } from '../../engine/index.ts';
import { defineStore, type Organization, type World } from '../../world.ts';
import { ApiError } from '../../contract/errors.ts';
import { oneOfAmount } from '../../contract/amounts.ts';
import { requireAccount, requireOperable } from '../accounts/index.ts';
import { resolveAssetRef, type Asset } from '../assets/index.ts';
import { creditHolder, creditStatus, lockCredit, releaseCredit, requireCredit, type Credit } from '../credits/index.ts';
import { createZapDepositAddress, depositStatus, type DepositAddress, type Deposit } from '../deposits/index.ts';
import { requireUsableDestination } from '../destinations/index.ts';
import { recoveryForFailedZap } from '../recoveries/index.ts';
import { beginExecution, registerSwapOps, type Swap, type SwapOps } from '../execution/index.ts';
import { drawSpreadBps, price, type Fees, type Priced } from '../pricing/index.ts';
import { zapMachine, type ZapEffect, type ZapEvent, type ZapFailureCode, type ZapState, type ZapStatus } from './machine.ts';
import type { CreateZapBody } from './schemas.ts';
import type { ForgetScope } from '../../resource-records.ts';
import { failureCodesAt } from '../../failure-codes.ts';

const zapLifecycle = lifecycle(zapMachine);

/**
 * The zap's fault codes by the stage where each can happen, from the failure-code registry: as its deposit
 * resolves, and at the fill those the driver does not apply for every swap (the floor, the expiry).
 */
const DEPOSIT_STAGE_FAIL_CODES = failureCodesAt('zap', 'deposit');
const FILL_STAGE_FAIL_CODES = failureCodesAt('zap', 'fill').filter(
  (c) => !(failureCodesAt('trade', 'fill') as readonly string[]).includes(c),
);

export interface Zap {
  zap_id: string;
  org_id: string;
  account_id: string;
  client_zap_id: string | null;
  expires_at_ms: number | null;
  from: Asset;
  to: Asset;
  requested_amount_in_atoms: bigint;
  /** The verified deposit's amount (deposit-funded zaps only, once verified). */
  observed_amount_in_atoms: bigint | null;
  /** 0 = no floor. */
  min_amount_out_atoms: bigint;
  destination_id: string;
  integrator_fee_bps: string | undefined;
  /** The market maker's spread, drawn once at creation. */
  spread_bps: number;
  /** Fee rates as priced at creation: what a record shows when the zap never got an amount to price. */
  fee_rates: Pick<Fees, 'platform_bps' | 'integrator_bps' | 'total_bps'>;
  /** Fees on the amount executed, at the latest price (creation or verification, then the fill). */
  fees: Fees | null;
  /** Deposit-funded zaps only. */
  deposit_address: DepositAddress | null;
  /**
   * The credit the zap draws on: the one given, or the one the verified deposit made. For a mismatched
   * deposit it names that deposit's credit, which the zap never locks.
   */
  credit_id: string | null;
  /** Set as the zap fails leaving an open credit, when the org has recovery enabled (spec: Zap → recovery). */
  recovery: { recovery_id: string; credit_id: string } | null;
  /** Exists from the moment execution begins. */
  swap: Swap | null;
  expiry_task_id: number | null;
  created_at_ms: number;
  seq: number;
  snapshot: MachineSnapshot<typeof zapMachine>;
}

const zapIdOf = (x: Zap): string => x.zap_id;

export const zapStore = defineStore('zaps', () => ({
  ...entityStore<Zap>('zap', zapIdOf),
  /** Single-use deposit address → the zap waiting on it. */
  byDepositAddress: new Map<string, Zap>(),
}));

export function zapState(z: Zap): ZapState {
  return statusOf(z.snapshot) as ZapState;
}

/** The status the API shows: a settled zap with an orphaned leg shows the profile's `orphan_status`. */
export function zapStatus(world: World, z: Zap): ZapStatus {
  const s = zapState(z);
  return (s === 'settled_orphaned' ? world.profile.orphan_status : s) as ZapStatus;
}

export const isTerminal = (world: World, z: Zap): boolean => ['settled', 'failed'].includes(zapStatus(world, z));
const BEFORE_FILL: ReadonlySet<ZapState> = new Set(['created', 'awaiting_deposit', 'executing']);

function orgOf(world: World, z: Zap): Organization {
  return world.orgs.get(z.org_id)!;
}

function identifiers(z: Zap): Record<string, unknown> {
  const ids: Record<string, unknown> = { zap_id: z.zap_id };
  if (z.client_zap_id !== null) ids.client_zap_id = z.client_zap_id;
  return ids;
}

function applyEffects(world: World, z: Zap, effects: ZapEffect[]): void {
  const ctx = z.snapshot.context;
  for (const e of effects) {
    const data = identifiers(z);
    if (e.event_type === 'zap.settled') data.credit_id = ctx.settlement_credit_id;
    if (e.event_type === 'zap.failed') {
      data.failure_code = ctx.failure_code;
      // The recovery exists before zap.failed goes out, so the event can carry its ids.
      z.recovery = recoveryForFailedZap(world, { org_id: z.org_id, account_id: z.account_id, credit_id: z.credit_id });
      if (z.recovery) Object.assign(data, z.recovery);
    }
    publish(world, z.org_id, z.account_id, e.event_type, data);
  }
}

function sendZap(world: World, z: Zap, event: ZapEvent): boolean {
  const step = zapLifecycle.send<ZapEffect>(world, z.zap_id, z.snapshot, event);
  if (!step) return false;
  z.snapshot = step.snapshot;
  // Expiry only applies before the fill; past it the timer must not hold the clock (`/_sim/clock/settle`).
  if (z.expiry_task_id !== null && !BEFORE_FILL.has(zapState(z))) {
    world.sim.scheduler.cancel(z.expiry_task_id);
    z.expiry_task_id = null;
  }
  applyEffects(world, z, step.effects);
  return true;
}

function faultIds(z: Zap): string[] {
  return [z.zap_id, z.credit_id, z.deposit_address?.deposit_address_id].filter((id): id is string => typeof id === 'string');
}

/**
 * The first zap `fail` rule for this stage that fires now, or null. A zap without expires_at_ms has no
 * API-level expiry (spec: POST /zaps), so a `zap_expired` rule does not match it and is not used up on it.
 */
function faultCode(world: World, z: Zap, codes: readonly string[]): ZapFailureCode | null {
  const fail_codes = z.expires_at_ms === null ? codes.filter((c) => c !== 'zap_expired') : codes;
  const subject = { ids: faultIds(z), account_id: z.account_id, asset_key: z.from.asset_key, accepts: ['fail'], fail_codes };
  const first = world.sim.faults.fire('zap', subject, world.sim.now_ms()).find((r) => 'fail' in r.effect);
  return first && 'fail' in first.effect ? (first.effect.fail as ZapFailureCode) : null;
}

function priceAt(world: World, z: Zap, amount_in_atoms: bigint, spread_bps: number): Priced {
  return price(world, {
    org: orgOf(world, z),
    from: z.from,
    to: z.to,
    side: 'exact_in',
    amount_atoms: amount_in_atoms,
    integrator_fee_bps: z.integrator_fee_bps,
    spread_bps,
  });
}

/**
 * At fill the zap executes at market: the executed amount is re-priced at current prices. A lost pair or
 * size outside the bounds fails it with execution_failed; net output below the floor, min_amount_out_not_met.
 */
function checkFill(world: World, swap: Swap): string | null {
  const z = zapStore(world).byId.get(swap.id)!;
  const injected = faultCode(world, z, FILL_STAGE_FAIL_CODES);
  if (injected) return injected;
  let now: Priced;
  try {
    now = priceAt(world, z, swap.amount_in_atoms, z.spread_bps);
  } catch (e) {
    if (e instanceof ApiError) return 'execution_failed';
    throw e;
  }
  if (now.expected_out_atoms < z.min_amount_out_atoms) return 'min_amount_out_not_met';
  swap.amount_out_atoms = now.expected_out_atoms;
  z.fees = now.fees;
  return null;
}

const ops: SwapOps = {
  find: (world, id) => zapStore(world).byId.get(id)?.swap ?? undefined,
  send: (world, swap, event) => sendZap(world, zapStore(world).byId.get(swap.id)!, event),
  checkFill,
  // The zap's credit and address are set before its swap exists and never change after: the same ids
  // the swap used to copy at creation.
  faultIds: (world, swap) => faultIds(zapStore(world).byId.get(swap.id)!),
};
registerSwapOps('zap', ops);

function newSwap(z: Zap, credit_id: string, amount_in_atoms: bigint, amount_out_atoms: bigint): Swap {
  return {
    kind: 'zap',
    id: z.zap_id,
    org_id: z.org_id,
    account_id: z.account_id,
    from_asset_key: z.from.asset_key,
    to_asset_key: z.to.asset_key,
    credit_id,
    amount_in_atoms,
    amount_out_atoms,
    settlement: null,
    settled_at_ms: null,
    next_due_ms: null,
    done: false,
  };
}

defineTask('zap.expire', (world, { zap_id }: { zap_id: string }) => {
  const z = zapStore(world).byId.get(zap_id);
  if (z) expire(world, z);
});

/** `expires_at_ms` reached: fails the zap if execution has not filled yet (the machine refuses otherwise). */
function expire(world: World, z: Zap): void {
  z.expiry_task_id = null;
  if (!sendZap(world, z, { type: 'EXPIRE' })) return;
  if (z.swap) {
    z.swap.done = true;
    z.swap.next_due_ms = null;
    releaseCredit(world, z.swap.credit_id, z.zap_id);
  }
}

/** The credit checks of a credit-funded zap, before anything changes. */
function requireSpendableCredit(
  world: World,
  org_id: string,
  account_id: string,
  credit_id: string,
  from: Asset,
  amount_in_atoms: bigint,
): Credit {
  const credit = requireCredit(world, org_id, credit_id, { account_id });
  if (credit.asset_key !== from.asset_key) {
    throw new ApiError('invalid_parameter', `credit ${credit_id} holds ${credit.asset_key}, not the source asset ${from.asset_key}`, {
      param: 'credit_id',
    });
  }
  if (creditStatus(credit) === 'consumed')
    throw new ApiError('credit_already_consumed', `credit ${credit_id} is no longer open`, { param: 'credit_id' });
  const holder = creditHolder(credit);
  if (holder !== null) {
    throw new ApiError('credit_in_use', `credit ${credit_id} is in use by ${holder}; it can be used again once that finishes`, {
      param: 'credit_id',
      details: { credit_id },
    });
  }
  if (credit.atoms < amount_in_atoms) {
    throw new ApiError('insufficient_balance', `credit ${credit_id} holds ${credit.atoms} atoms; the zap needs ${amount_in_atoms}`, {
      param: 'credit_id',
      details: { credit_id, available_atoms: credit.atoms.toString(), requested_amount_in_atoms: amount_in_atoms.toString() },
    });
  }
  return credit;
}

/**
 * POST /zaps. Every check precedes any change: account (404 account_not_found, 409 account_not_operable),
 * assets, amounts, expiry, destination (404 destination_not_found, 400, 403 destination_suspended), the
 * pair and size (403 forbidden_asset, 400 unsupported_pair, insufficient_liquidity), then the credit
 * (404 not_found, 400, 409 credit_already_consumed / credit_in_use, insufficient_balance) or, without one,
 * the chain wallet for the deposit address (404 not_available).
 */
export function createZap(world: World, org: Organization, body: CreateZapBody): Zap {
  const org_id = org.organization_id;
  const account = requireAccount(world, org_id, body.account_id);
  requireOperable(account, 'zap');
  const from = resolveAssetRef(
    world,
    org_id,
    { asset_key: body.from_asset_key, symbol: body.from_symbol },
    { prefix: 'from_', required: true },
  );
  const to = resolveAssetRef(world, org_id, { asset_key: body.to_asset_key, symbol: body.to_symbol }, { prefix: 'to_', required: true });
  const amount_in = oneOfAmount(body, 'amount_in_atoms', 'amount_in_ui', from.decimals, true)!;
  const min_out = oneOfAmount(body, 'min_amount_out_atoms', 'min_amount_out_ui', to.decimals, true)!;
  if (amount_in === 0n) {
    const param = body.amount_in_atoms !== undefined ? 'amount_in_atoms' : 'amount_in_ui';
    throw new ApiError('invalid_parameter', `${param} must be greater than zero`, { param });
  }
  const now = world.sim.now_ms();
  if (body.expires_at_ms !== undefined && body.expires_at_ms <= now) {
    throw new ApiError('invalid_parameter', `expires_at_ms must lie in the future (now is ${now})`, {
      param: 'expires_at_ms',
      details: { now_ms: now },
    });
  }
  requireUsableDestination(world, org_id, account.account_id, body.destination_id, to.asset_key);
  // Priced at the widest spread: a request that passes here passes at whatever spread is drawn below.
  const preview = price(world, {
    org,
    from,
    to,
    side: 'exact_in',
    amount_atoms: amount_in,
    integrator_fee_bps: body.integrator_fee_bps,
    spread_bps: world.profile.spread_bps.max,
  });
  const credit =
    body.credit_id !== undefined ? requireSpendableCredit(world, org_id, account.account_id, body.credit_id, from, amount_in) : null;
  const deposit_address = credit ? null : createZapDepositAddress(world, account, from);

  // Nothing refuses from here on.
  const store = zapStore(world);
  const zap_id = world.newId('zap');
  const z: Zap = {
    zap_id,
    org_id,
    account_id: account.account_id,
    client_zap_id: body.client_zap_id ?? null,
    expires_at_ms: body.expires_at_ms ?? null,
    from,
    to,
    requested_amount_in_atoms: amount_in,
    observed_amount_in_atoms: null,
    min_amount_out_atoms: min_out,
    destination_id: body.destination_id,
    integrator_fee_bps: body.integrator_fee_bps,
    spread_bps: drawSpreadBps(world),
    fee_rates: { platform_bps: preview.fees.platform_bps, integrator_bps: preview.fees.integrator_bps, total_bps: preview.fees.total_bps },
    fees: null,
    deposit_address,
    credit_id: credit?.credit_id ?? null,
    recovery: null,
    swap: null,
    expiry_task_id: null,
    created_at_ms: now,
    seq: world.nextSeq(),
    snapshot: zapLifecycle.start<ZapEffect>(world, zap_id, undefined).snapshot,
  };
  store.byId.insert(z);
  if (z.expires_at_ms !== null) z.expiry_task_id = world.sim.scheduler.schedule(z.expires_at_ms, 'zap.expire', { zap_id });
  if (credit) {
    const priced = priceAt(world, z, amount_in, z.spread_bps);
    lockCredit(world, credit.credit_id, z.zap_id);
    z.fees = priced.fees;
    z.swap = newSwap(z, credit.credit_id, amount_in, priced.expected_out_atoms);
    sendZap(world, z, { type: 'BEGIN' });
    beginExecution(world, z.swap, ops);
  } else {
    store.byDepositAddress.set(deposit_address!.deposit_address_id, z);
    sendZap(world, z, { type: 'AWAIT_DEPOSIT' });
  }
  return z;
}

/**
 * The deposits resource reports every resolved deposit. Only the first deposit to land on a zap's address
 * funds it; later ones (`repeat_on_single_use`) and deposits after the zap ended stay ordinary credits.
 */
export function onZapDeposit(world: World, d: Deposit): void {
  if (d.repeat_on_single_use) return;
  const z = zapStore(world).byDepositAddress.get(d.address.deposit_address_id);
  if (!z || zapState(z) !== 'awaiting_deposit') return;
  const status = depositStatus(d);
  if (status === 'flagged') return void sendZap(world, z, { type: 'FLAGGED' });
  if (status === 'dropped') return void sendZap(world, z, { type: 'DROPPED' });
  if (status !== 'verified' || d.credit_id === null) return;
  z.credit_id = d.credit_id;
  // Another asset of the same chain: the deposit keeps its own credit; the zap does not touch it.
  if (d.asset_key !== z.from.asset_key) return void sendZap(world, z, { type: 'MISMATCH' });
  z.observed_amount_in_atoms = d.atoms;
  const injected = faultCode(world, z, DEPOSIT_STAGE_FAIL_CODES);
  if (injected) return void sendZap(world, z, { type: 'FAIL', code: injected });
  let priced: Priced;
  try {
    priced = priceAt(world, z, d.atoms, z.spread_bps);
  } catch (e) {
    // The observed amount is not executable (size bounds, a lost pair): an existing failure code.
    if (e instanceof ApiError) return void sendZap(world, z, { type: 'FAIL', code: 'execution_failed' });
    throw e;
  }
  lockCredit(world, d.credit_id, z.zap_id);
  z.fees = priced.fees;
  // The whole deposit is executed, so the credit is used up and no change credit follows.
  z.swap = newSwap(z, d.credit_id, d.atoms, priced.expected_out_atoms);
  sendZap(world, z, { type: 'DEPOSIT_VERIFIED' });
  beginExecution(world, z.swap, ops);
}

/** A deleted organization: its zaps go. */
export function forgetOrganizationZaps(world: World, org: Organization, scope: ForgetScope): void {
  const store = zapStore(world);
  const mine = (z: Zap): boolean => z.org_id === org.organization_id;
  for (const z of store.list) if (mine(z)) scope.gone.add(z.zap_id);
  store.byId.retain((z) => !mine(z));
  dropWhere(store.byDepositAddress, mine);
}
