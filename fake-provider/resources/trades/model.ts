// Trade operations: start a trade from an accepted firm quote (the source credit is locked), run it
// through the shared execution driver, re-check the quoted terms at fill time (slippage, liquidity),
// and serialize trades and their history records exactly as the spec shows them.
import type { MachineSnapshot } from '../../engine/lifecycle.ts';
import { defineStore, type Organization, type World } from '../../world.ts';
import { IdIndex } from '../../engine/id-index.ts';
import { ApiError } from '../../http/errors.ts';
import { publish, publishDerived } from '../../engine/publish.ts';
import { advance, start, statusOf } from '../../engine/lifecycle.ts';
import type { HistoryRecord, Violation } from '../../resource.ts';
import { assetByKey } from '../assets/index.ts';
import { creditForSource, creditStore, lockCredit } from '../credits/index.ts';
import { beginExecution, pollAfterMs, serializeSettlement, settlementSummary, type Swap, type SwapEvent, type SwapOps } from '../execution/index.ts';
import { bpsUnits, checkPairAllowed, forwardOut, serializeFees, WHOLE_BPS_UNITS, type Fees } from '../pricing/index.ts';
import { tradeMachine, type TradeEffect, type TradeState } from './machine.ts';
import type { ForgetScope } from '../../resource-records.ts';
import { retainInPlace } from '../../engine/retain.ts';

export interface StartTradeInput {
  org: Organization;
  quote_id: string;
  rfq_id: string;
  account_id: string;
  credit_id: string;
  destination_id: string;
  from_asset_key: string;
  to_asset_key: string;
  side: 'exact_in' | 'exact_out';
  amount_in_atoms: bigint;
  expected_out_atoms: bigint;
  fees: Fees;
  route_type: string;
  slippage_bps: string;
  client_order_id: string | null;
  quoted_from_price_usd_scaled: bigint;
  quoted_to_price_usd_scaled: bigint;
  integrator_fee_bps?: string;
  spread_bps: number;
}

export interface Trade {
  trade_id: string;
  input: StartTradeInput;
  created_at_ms: number;
  seq: number;
  snapshot: MachineSnapshot<typeof tradeMachine>;
  readonly swap: Swap;
  /** trade_id, quote_id and client_order_id when given: the data of the trade's events (frozen, shared by them). */
  ids: Readonly<Record<string, unknown>>;
}

export const tradeStore = defineStore('trades', () => ({ byId: new IdIndex<Trade>('trd', (t) => t.trade_id), list: [] as Trade[] }));

export function tradeState(t: Trade): TradeState {
  return statusOf(t.snapshot) as TradeState;
}

/** The status the API shows: a settled trade with an orphaned leg shows the profile's `orphan_status`. */
export function tradeStatus(world: World, t: Trade): string {
  const s = tradeState(t);
  return s === 'settled_orphaned' ? world.profile.orphan_status : s;
}

const isTerminal = (world: World, t: Trade): boolean => ['settled', 'failed'].includes(tradeStatus(world, t));

function identifiers(trade_id: string, input: StartTradeInput): Record<string, unknown> {
  const ids: Record<string, unknown> = { trade_id, quote_id: input.quote_id };
  if (input.client_order_id !== null) ids.client_order_id = input.client_order_id;
  return ids;
}

/** trade.settled's data, rebuilt from the trade on read (`publishDerived`): its ids and its settlement credit, set once at SETTLED. */
function settledData(t: Trade): Record<string, unknown> {
  const data = identifiers(t.trade_id, t.input);
  data.credit_id = t.snapshot.context.settlement_credit_id;
  return data;
}

function applyEffects(world: World, t: Trade, effects: TradeEffect[]): void {
  for (const e of effects) {
    const settled = e.event_type === 'trade.settled';
    // executing, filled and pending_settle carry the identifiers alone: those events share the trade's
    // frozen object (publish stores frozen flat data as given) instead of a copy each.
    if (e.extra === undefined && !settled) {
      publish(world, t.input.org.organization_id, t.input.account_id, e.event_type, t.ids);
      continue;
    }
    if (e.extra === undefined) {
      publishDerived(world, t.input.org.organization_id, t.input.account_id, e.event_type, { source: t, build: settledData });
      continue;
    }
    // A fresh object, not a spread of the frozen one (whose copies V8 may give a hidden class each).
    const data = { ...identifiers(t.trade_id, t.input), ...e.extra };
    if (settled) data.credit_id = t.snapshot.context.settlement_credit_id;
    publish(world, t.input.org.organization_id, t.input.account_id, e.event_type, data);
  }
}

function sendTrade(world: World, t: Trade, event: SwapEvent): boolean {
  return advance(world, tradeMachine, t, t.trade_id, event, applyEffects);
}

/**
 * At fill the market maker honours the firm quote only if the market has not moved against it by more
 * than `slippage_bps` and the pair still has the liquidity: otherwise the trade fails with execution_failed.
 */
function checkFill(world: World, swap: Swap): string | null {
  const t = tradeStore(world).byId.get(swap.id)!;
  const i = t.input;
  const from = assetByKey(i.from_asset_key)!;
  const to = assetByKey(i.to_asset_key)!;
  try {
    checkPairAllowed(world, i.org, from, to);
    const now = forwardOut(world, { org: i.org, from, to, amount_in_atoms: i.amount_in_atoms, integrator_fee_bps: i.integrator_fee_bps, spread_bps: i.spread_bps });
    const floor = (i.expected_out_atoms * (WHOLE_BPS_UNITS - bpsUnits(i.slippage_bps))) / WHOLE_BPS_UNITS;
    return now.expected_out_atoms < floor ? 'execution_failed' : null;
  } catch (e) {
    if (e instanceof ApiError) return 'execution_failed';
    throw e;
  }
}

const ops: SwapOps = {
  send: (world, swap, event) => sendTrade(world, tradeStore(world).byId.get(swap.id)!, event),
  checkFill,
  faultIds: (world, swap) => {
    const { input } = tradeStore(world).byId.get(swap.id)!;
    return [swap.id, input.quote_id, input.rfq_id, input.credit_id];
  },
};

/**
 * A trade is its own swap (the execution driver's view of it): the swap's fixed fields read through the
 * trade's input, never written after creation, and only the driver's own state is stored. One object
 * instead of a trade, a swap and the swap's copies of the input (about 100 bytes per trade).
 */
class TradeRecord implements Trade, Swap {
  readonly trade_id: string;
  readonly input: StartTradeInput;
  readonly created_at_ms: number;
  readonly seq: number;
  /** The machine snapshot, or for a plainly settled trade only its settlement credit's id (see `snapshot`). */
  #state: MachineSnapshot<typeof tradeMachine> | string;
  readonly ids: Readonly<Record<string, unknown>>;
  settlement: Swap['settlement'] = null;
  settled_at_ms: number | null = null;
  next_due_ms: number | null = null;
  done = false;

  constructor(trade_id: string, input: StartTradeInput, created_at_ms: number, seq: number, snapshot: MachineSnapshot<typeof tradeMachine>) {
    this.trade_id = trade_id;
    this.input = input;
    this.created_at_ms = created_at_ms;
    this.seq = seq;
    this.#state = snapshot;
    this.ids = Object.freeze(identifiers(trade_id, input));
  }

  /**
   * A settled trade's snapshot differs from every other settled trade's only by its settlement credit:
   * that id is kept instead of a snapshot and a context (about 100 bytes per settled trade), and an
   * equal snapshot is made on read. Snapshots are never written in place, so a new equal one per read
   * is not observable (trades.test.ts compares it with the machine's own).
   */
  get snapshot(): MachineSnapshot<typeof tradeMachine> {
    const state = this.#state;
    if (typeof state !== 'string') return state;
    return { value: 'settled', context: { failure_code: null, settlement_credit_id: state, orphaned_leg: null }, status: 'active' };
  }

  set snapshot(next: MachineSnapshot<typeof tradeMachine>) {
    const c = next.context;
    const plain =
      next.value === 'settled' && next.status === 'active' && next.machine_snapshot === undefined &&
      c.failure_code === null && c.orphaned_leg === null && typeof c.settlement_credit_id === 'string';
    this.#state = plain ? c.settlement_credit_id! : next;
  }

  get swap(): Swap {
    return this;
  }
  get kind(): 'trade' {
    return 'trade';
  }
  get id(): string {
    return this.trade_id;
  }
  get org_id(): string {
    return this.input.org.organization_id;
  }
  get account_id(): string {
    return this.input.account_id;
  }
  get from_asset_key(): string {
    return this.input.from_asset_key;
  }
  get to_asset_key(): string {
    return this.input.to_asset_key;
  }
  get credit_id(): string {
    return this.input.credit_id;
  }
  get amount_in_atoms(): bigint {
    return this.input.amount_in_atoms;
  }
  get amount_out_atoms(): bigint {
    return this.input.expected_out_atoms;
  }
}

/** Locks the source credit (credit_in_use / credit_already_consumed if it cannot) and starts the trade. */
export function startTrade(world: World, input: StartTradeInput): { trade_id: string } {
  const trade_id = world.newId('trd');
  lockCredit(world, input.credit_id, trade_id);
  const initial = start<typeof tradeMachine, TradeEffect>(world, tradeMachine, trade_id, undefined);
  const t = new TradeRecord(trade_id, input, world.sim.now_ms(), world.nextSeq(), initial.snapshot);
  const store = tradeStore(world);
  store.byId.set(trade_id, t);
  store.list.push(t);
  applyEffects(world, t, initial.effects);
  beginExecution(world, t.swap, ops);
  return { trade_id };
}

export function requireTrade(world: World, org_id: string, trade_id: string): Trade {
  const t = tradeStore(world).byId.get(trade_id);
  if (!t || t.input.org.organization_id !== org_id) throw new ApiError('trade_not_found', `no trade ${trade_id}`, { param: 'trade_id' });
  return t;
}

export function serializeTradeRecord(world: World, t: Trade): Record<string, unknown> {
  const out: Record<string, unknown> = {
    trade_id: t.trade_id,
    status: tradeStatus(world, t),
    quote_id: t.input.quote_id,
    client_order_id: t.input.client_order_id,
    fees: serializeFees(t.input.fees),
  };
  if (t.snapshot.context.failure_code !== null) out.failure_code = t.snapshot.context.failure_code;
  if (t.swap.settlement) out.settlement = serializeSettlement(world, t.swap.settlement);
  if (!isTerminal(world, t)) out.poll_after_ms = pollAfterMs(world, t.swap);
  return out;
}

export function serializeTrade(world: World, trade_id: string): Record<string, unknown> {
  return serializeTradeRecord(world, tradeStore(world).byId.get(trade_id)!);
}

export function tradeHistory(world: World, account_id: string): HistoryRecord[] {
  return tradeStore(world)
    .list.filter((t) => t.input.account_id === account_id && isTerminal(world, t))
    .map((t) => {
      const status = tradeStatus(world, t);
      const body: Record<string, unknown> = {
        type: 'trade',
        status,
        created_at_ms: t.created_at_ms,
        trade_id: t.trade_id,
        client_order_id: t.input.client_order_id,
        from_asset_key: t.input.from_asset_key,
        to_asset_key: t.input.to_asset_key,
        amount_in_atoms: t.input.amount_in_atoms.toString(),
        amount_out_atoms: t.input.expected_out_atoms.toString(),
        fees: serializeFees(t.input.fees),
      };
      if (t.swap.settlement) body.settlement = settlementSummary(world, t.swap.settlement);
      if (t.swap.settled_at_ms !== null) body.settled_at_ms = t.swap.settled_at_ms;
      if (t.snapshot.context.failure_code !== null) body.failure_code = t.snapshot.context.failure_code;
      return { type: 'trade' as const, status, created_at_ms: t.created_at_ms, seq: t.seq, asset_keys: [t.input.from_asset_key, t.input.to_asset_key], body };
    });
}

/** Credit conservation per settled trade, fee arithmetic, and the source credit's state per outcome. */
export function tradeInvariants(world: World): Violation[] {
  const out: Violation[] = [];
  const { byId: credits } = creditStore(world);
  const madeBy = (type: string, id: string) => creditForSource(world, type, id);
  for (const t of tradeStore(world).list) {
    const f = t.input.fees;
    if (f.total_atoms !== f.platform_atoms + f.integrator_atoms) out.push({ invariant: 'fees_total', entity_id: t.trade_id, message: 'total_atoms != platform + integrator' });
    const source = credits.get(t.input.credit_id);
    const state = tradeState(t);
    const consumed = source?.snapshot.value === 'consumed';
    const consumedByMe = consumed && source?.snapshot.context.consumed_by === t.trade_id;
    // A failed trade leaves the credit open; a later operation may still consume it.
    if (state === 'failed' && consumedByMe) out.push({ invariant: 'failed_leaves_credit_open', entity_id: t.trade_id, message: 'failed trade consumed its credit' });
    if ((state === 'settled' || state === 'settled_orphaned') && source) {
      if (!consumedByMe) out.push({ invariant: 'settled_consumes_credit', entity_id: t.trade_id, message: 'settled trade left its source credit open' });
      const settlement = madeBy('trade_settlement', t.trade_id);
      const change = madeBy('change', t.trade_id);
      if (!settlement || settlement.atoms !== t.input.expected_out_atoms) out.push({ invariant: 'settlement_credit', entity_id: t.trade_id, message: 'settlement credit missing or != amount_out' });
      if ((change?.atoms ?? 0n) + t.input.amount_in_atoms !== source.atoms) out.push({ invariant: 'change_plus_in', entity_id: t.trade_id, message: 'change + amount_in != source atoms' });
    }
  }
  return out;
}

/** A deleted organization: its trades go (a trade names only its account). */
export function forgetOrganizationTrades(world: World, _org: Organization, scope: ForgetScope): void {
  const store = tradeStore(world);
  const mine = (t: Trade): boolean => scope.accounts.has(t.input.account_id);
  for (const t of store.list) if (mine(t)) scope.gone.add(t.trade_id);
  store.byId.retain((t) => !mine(t));
  retainInPlace(store.list, (t) => !mine(t));
}
