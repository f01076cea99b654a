// Trade operations: start a trade from an accepted firm quote (the source credit is locked), run it
// through the shared execution driver, re-check the quoted terms at fill time (slippage, liquidity),
// and serialize trades and their history records exactly as the spec shows them.
import { defineStore, type Organization, type World } from '../../world.ts';
import {
  compactLifecycle,
  entityStore,
  publish,
  publishDerived,
  statusOf,
  type LifecycleState,
  type MachineSnapshot,
} from '../../engine/index.ts';
import { ApiError } from '../../contract/errors.ts';
import type { HistoryRecord, Violation } from '../../resource.ts';
import { assetByKey } from '../assets/index.ts';
import { creditForSource, creditStore, creditSnapshot, lockCredit } from '../credits/index.ts';
import {
  beginExecution,
  registerSwapOps,
  pollAfterMs,
  serializeSettlement,
  settlementSummary,
  type Swap,
  type SwapEvent,
  type SwapOps,
} from '../execution/index.ts';
import { bpsUnits, checkPairAllowed, forwardOut, serializeFees, WHOLE_BPS_UNITS, type Priced } from '../pricing/index.ts';
import type { Asset } from '../assets/index.ts';
import { tradeMachine, type TradeEffect, type TradeState } from './machine.ts';
import type { ForgetScope } from '../../resource-records.ts';

/**
 * What a trade reads of the firm quote it was accepted from (rfqs' Quote has these fields; declared here
 * so trades need not import the resource that starts them): the quote's id, what its RFQ asked for, and
 * its pricing. None of them is written after the quote is made.
 */
interface TradedQuote {
  readonly quote_id: string;
  readonly rfq: {
    readonly rfq_id: string;
    readonly account_id: string | null;
    readonly credit_id: string | null;
    readonly from: Asset;
    readonly to: Asset;
    readonly integrator_fee_bps: string | undefined;
    readonly spread_bps: number;
  };
  readonly priced: Priced;
}

/** What accepting a firm quote gives a trade. */
export interface StartTradeInput {
  org: Organization;
  quote: TradedQuote;
  slippage_bps: string;
  client_order_id: string | null;
}

/**
 * A trade: the accepted quote it points at (the RFQ's terms and the pricing, read through it), the
 * accept's own fields, its lifecycle state (read with `tradeSnapshot`) and its swap,
 * the execution driver's view of it (the credits and amounts it moves, and the driver's progress).
 */
export interface Trade {
  readonly trade_id: string;
  readonly org: Organization;
  readonly quote: TradedQuote;
  readonly slippage_bps: string;
  readonly client_order_id: string | null;
  readonly created_at_ms: number;
  readonly seq: number;
  state: LifecycleState<typeof tradeMachine>;
  readonly swap: Swap;
}

const tradeIdOf = (t: Trade): string => t.trade_id;

export const tradeStore = defineStore('trades', () => entityStore<Trade>('trd', tradeIdOf));

/**
 * Every settled trade's context is the same but for its settlement credit: it keeps that id alone. An
 * orphaned leg or a failure keeps its whole snapshot.
 */
export const tradeLifecycle = compactLifecycle(tradeMachine, {
  state: 'settled',
  status: 'active',
  keeps: 'settlement_credit_id',
  context: (_trade: Trade, settlement_credit_id) => ({
    failure_code: null,
    settlement_credit_id: settlement_credit_id as string | null,
    orphaned_leg: null,
  }),
});

export const tradeSnapshot = (t: Trade): MachineSnapshot<typeof tradeMachine> => tradeLifecycle.snapshot(t);

export function tradeState(t: Trade): TradeState {
  return statusOf(tradeSnapshot(t)) as TradeState;
}

/** The status the API shows: a settled trade with an orphaned leg shows the profile's `orphan_status`. */
export function tradeStatus(world: World, t: Trade): string {
  const s = tradeState(t);
  return s === 'settled_orphaned' ? world.profile.orphan_status : s;
}

const isTerminal = (world: World, t: Trade): boolean => ['settled', 'failed'].includes(tradeStatus(world, t));

function identifiers(trade_id: string, quote_id: string, client_order_id: string | null): Record<string, unknown> {
  const ids: Record<string, unknown> = { trade_id, quote_id };
  if (client_order_id !== null) ids.client_order_id = client_order_id;
  return ids;
}

/** The data of trade.executing, .filled and .pending_settle, rebuilt from the trade on read (`publishDerived`). */
const identifiersOf = (t: Trade): Record<string, unknown> => identifiers(t.trade_id, t.quote.quote_id, t.client_order_id);

/** trade.settled's data, rebuilt from the trade on read (`publishDerived`): its ids and its settlement credit, set once at SETTLED. */
function settledData(t: Trade): Record<string, unknown> {
  const data = identifiers(t.trade_id, t.quote.quote_id, t.client_order_id);
  data.credit_id = tradeSnapshot(t).context.settlement_credit_id;
  return data;
}

function applyEffects(world: World, t: Trade, effects: TradeEffect[]): void {
  const { org_id, account_id } = t.swap;
  for (const e of effects) {
    const settled = e.event_type === 'trade.settled';
    // Events without extra data are rebuilt from the trade on read (their fields never change once published).
    if (e.extra === undefined && !settled) {
      publishDerived(world, org_id, account_id, e.event_type, { source: t, build: identifiersOf });
      continue;
    }
    if (e.extra === undefined) {
      publishDerived(world, org_id, account_id, e.event_type, { source: t, build: settledData });
      continue;
    }
    const data = { ...identifiers(t.trade_id, t.quote.quote_id, t.client_order_id), ...e.extra };
    if (settled) data.credit_id = tradeSnapshot(t).context.settlement_credit_id;
    publish(world, org_id, account_id, e.event_type, data);
  }
}

function sendTrade(world: World, t: Trade, event: SwapEvent): boolean {
  return tradeLifecycle.advance(world, t, t.trade_id, event, applyEffects);
}

/**
 * At fill the market maker honours the firm quote only if the market has not moved against it by more
 * than `slippage_bps` and the pair still has the liquidity: otherwise the trade fails with execution_failed.
 */
function checkFill(world: World, swap: Swap): string | null {
  const t = tradeStore(world).byId.get(swap.id)!;
  const { rfq, priced } = t.quote;
  const from = assetByKey(swap.from_asset_key)!;
  const to = assetByKey(swap.to_asset_key)!;
  try {
    checkPairAllowed(world, t.org, from, to);
    const now = forwardOut(world, {
      org: t.org,
      from,
      to,
      amount_in_atoms: priced.amount_in_atoms,
      integrator_fee_bps: rfq.integrator_fee_bps,
      spread_bps: rfq.spread_bps,
    });
    const floor = (priced.expected_out_atoms * (WHOLE_BPS_UNITS - bpsUnits(t.slippage_bps))) / WHOLE_BPS_UNITS;
    return now.expected_out_atoms < floor ? 'execution_failed' : null;
  } catch (e) {
    if (e instanceof ApiError) return 'execution_failed';
    throw e;
  }
}

const ops: SwapOps = {
  find: (world, id) => tradeStore(world).byId.get(id)?.swap,
  send: (world, swap, event) => sendTrade(world, tradeStore(world).byId.get(swap.id)!, event),
  checkFill,
  faultIds: (world, swap) => {
    const { quote } = tradeStore(world).byId.get(swap.id)!;
    return [swap.id, quote.quote_id, quote.rfq.rfq_id, swap.credit_id];
  },
};
registerSwapOps('trade', ops);

/** Locks the source credit (credit_in_use / credit_already_consumed if it cannot) and starts the trade. */
export function startTrade(world: World, input: StartTradeInput): { trade_id: string } {
  const { org, quote, slippage_bps, client_order_id } = input;
  const { rfq, priced } = quote;
  // A firm quote's RFQ named its account, credit and destination.
  const credit_id = rfq.credit_id!;
  const trade_id = world.newId('trd');
  lockCredit(world, credit_id, trade_id);
  const initial = tradeLifecycle.start(world, trade_id, undefined);
  const swap: Swap = {
    kind: 'trade',
    id: trade_id,
    org_id: org.organization_id,
    account_id: rfq.account_id!,
    from_asset_key: rfq.from.asset_key,
    to_asset_key: rfq.to.asset_key,
    credit_id,
    amount_in_atoms: priced.amount_in_atoms,
    amount_out_atoms: priced.expected_out_atoms,
    settlement: null,
    settled_at_ms: null,
    next_due_ms: null,
    done: false,
  };
  const t: Trade = {
    trade_id,
    org,
    quote,
    slippage_bps,
    client_order_id,
    created_at_ms: world.sim.now_ms(),
    seq: world.nextSeq(),
    state: initial.state,
    swap,
  };
  tradeStore(world).byId.insert(t);
  applyEffects(world, t, initial.effects);
  beginExecution(world, swap, ops);
  return { trade_id };
}

export function requireTrade(world: World, org_id: string, trade_id: string): Trade {
  const t = tradeStore(world).byId.get(trade_id);
  if (!t || t.org.organization_id !== org_id) throw new ApiError('trade_not_found', `no trade ${trade_id}`, { param: 'trade_id' });
  return t;
}

export function serializeTradeRecord(world: World, t: Trade): Record<string, unknown> {
  const out: Record<string, unknown> = {
    trade_id: t.trade_id,
    status: tradeStatus(world, t),
    quote_id: t.quote.quote_id,
    client_order_id: t.client_order_id,
    fees: serializeFees(t.quote.priced.fees),
  };
  const { failure_code } = tradeSnapshot(t).context;
  if (failure_code !== null) out.failure_code = failure_code;
  if (t.swap.settlement) out.settlement = serializeSettlement(world, t.swap.settlement);
  if (!isTerminal(world, t)) out.poll_after_ms = pollAfterMs(world, t.swap);
  return out;
}

export function serializeTrade(world: World, trade_id: string): Record<string, unknown> {
  return serializeTradeRecord(world, tradeStore(world).byId.get(trade_id)!);
}

export function tradeHistory(world: World, account_id: string): HistoryRecord[] {
  return tradeStore(world)
    .list.filter((t) => t.swap.account_id === account_id && isTerminal(world, t))
    .map((t) => {
      const status = tradeStatus(world, t);
      const { swap } = t;
      const body: Record<string, unknown> = {
        type: 'trade',
        status,
        created_at_ms: t.created_at_ms,
        trade_id: t.trade_id,
        client_order_id: t.client_order_id,
        from_asset_key: swap.from_asset_key,
        to_asset_key: swap.to_asset_key,
        amount_in_atoms: swap.amount_in_atoms.toString(),
        amount_out_atoms: swap.amount_out_atoms.toString(),
        fees: serializeFees(t.quote.priced.fees),
      };
      if (swap.settlement) body.settlement = settlementSummary(world, swap.settlement);
      if (swap.settled_at_ms !== null) body.settled_at_ms = swap.settled_at_ms;
      const { failure_code } = tradeSnapshot(t).context;
      if (failure_code !== null) body.failure_code = failure_code;
      return {
        type: 'trade' as const,
        status,
        created_at_ms: t.created_at_ms,
        seq: t.seq,
        asset_keys: [swap.from_asset_key, swap.to_asset_key],
        body,
      };
    });
}

/** Credit conservation per settled trade, fee arithmetic, and the source credit's state per outcome. */
export function tradeInvariants(world: World): Violation[] {
  const out: Violation[] = [];
  const { byId: credits } = creditStore(world);
  const madeBy = (type: string, id: string) => creditForSource(world, type, id);
  for (const t of tradeStore(world).list) {
    const f = t.quote.priced.fees;
    if (f.total_atoms !== f.platform_atoms + f.integrator_atoms)
      out.push({ invariant: 'fees_total', entity_id: t.trade_id, message: 'total_atoms != platform + integrator' });
    const source = credits.get(t.swap.credit_id);
    const state = tradeState(t);
    const sourceSnapshot = source && creditSnapshot(source);
    const consumedByMe = sourceSnapshot?.value === 'consumed' && sourceSnapshot.context.consumed_by === t.trade_id;
    // A failed trade leaves the credit open; a later operation may still consume it.
    if (state === 'failed' && consumedByMe)
      out.push({ invariant: 'failed_leaves_credit_open', entity_id: t.trade_id, message: 'failed trade consumed its credit' });
    if ((state === 'settled' || state === 'settled_orphaned') && source) {
      if (!consumedByMe)
        out.push({ invariant: 'settled_consumes_credit', entity_id: t.trade_id, message: 'settled trade left its source credit open' });
      const settlement = madeBy('trade_settlement', t.trade_id);
      const change = madeBy('change', t.trade_id);
      if (!settlement || settlement.atoms !== t.swap.amount_out_atoms)
        out.push({ invariant: 'settlement_credit', entity_id: t.trade_id, message: 'settlement credit missing or != amount_out' });
      if ((change?.atoms ?? 0n) + t.swap.amount_in_atoms !== source.atoms)
        out.push({ invariant: 'change_plus_in', entity_id: t.trade_id, message: 'change + amount_in != source atoms' });
    }
  }
  return out;
}

/** A deleted organization: its trades go (a trade names only its account). */
export function forgetOrganizationTrades(world: World, _org: Organization, scope: ForgetScope): void {
  const store = tradeStore(world);
  const mine = (t: Trade): boolean => scope.accounts.has(t.swap.account_id);
  for (const t of store.list) if (mine(t)) scope.gone.add(t.trade_id);
  store.byId.retain((t) => !mine(t));
}
