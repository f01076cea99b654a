// RFQs and quotes over the world: validate and price a request, answer within wait_ms or later on the sim
// clock (one best quote per RFQ, priced when the solvers answer), expire on the TTL, read, and accept a
// firm quote into a trade. Every check runs before anything changes.
import type { MachineSnapshot } from '../../engine/lifecycle.ts';
import { defineStore, type Organization, type World } from '../../world.ts';
import { IdIndex } from '../../engine/id-index.ts';
import { ApiError } from '../../http/errors.ts';
import { oneOfAmount } from '../../http/amounts.ts';
import { send, start, statusOf } from '../../engine/lifecycle.ts';
import type { Violation } from '../../resource.ts';
import { requireAccount, requireOperable, type Account } from '../accounts/index.ts';
import { resolveAssetRef, type Asset } from '../assets/index.ts';
import { creditHolder, creditStatus, requireCredit, type Credit } from '../credits/index.ts';
import { destinationStatus, getDestinationRecord, requireUsableDestination } from '../destinations/index.ts';
import { drawSolverLatencyMs, drawSpreadBps, price, serializeFees, type Fees, type Priced, type Side } from '../pricing/index.ts';
import { startTrade, type StartTradeInput } from '../trades/index.ts';
import { quoteMachine, rfqMachine, type QuoteEvent, type QuoteStatus, type RfqEvent, type RfqStatus } from './machine.ts';
import type { AcceptBody, CreateRfqBody } from './schemas.ts';
import type { ForgetScope } from '../../resource-records.ts';

export type Mode = 'indicative' | 'firm';

export interface Rfq {
  rfq_id: string;
  org_id: string;
  account_id: string | null;
  mode: Mode;
  side: Side;
  from: Asset;
  to: Asset;
  /** exact_in: the input; exact_out: the net output asked for. */
  amount_atoms: bigint;
  integrator_fee_bps: string | undefined;
  destination_id: string | null;
  credit_id: string | null;
  spread_bps: number;
  /** When the solvers answer, after creation (drawn per RFQ). */
  latency_ms: number;
  ttl_ms: number;
  wait_ms: number;
  created_at_ms: number;
  /** Why the solvers' answer produced no quote (prices or liquidity moved since the request); null otherwise. */
  unquoted_reason: string | null;
  seq: number;
  snapshot: MachineSnapshot<typeof rfqMachine>;
}

/**
 * A stored RFQ: its fields as given, and its machine snapshot. Every RFQ ends `expired` (its TTL task)
 * holding only its times (its own created_at_ms and created_at_ms + ttl_ms) and its best quote's id, so
 * an expired RFQ keeps that id instead of a snapshot and a context (about 100 bytes per trade); an equal
 * snapshot is made on read (packed-snapshot.test.ts compares it with the machine's own).
 */
class RfqRecord implements Rfq {
  readonly rfq_id: string;
  readonly org_id: string;
  readonly account_id: string | null;
  readonly mode: Mode;
  readonly side: Side;
  readonly from: Asset;
  readonly to: Asset;
  readonly amount_atoms: bigint;
  readonly integrator_fee_bps: string | undefined;
  readonly destination_id: string | null;
  readonly credit_id: string | null;
  readonly spread_bps: number;
  readonly latency_ms: number;
  readonly ttl_ms: number;
  readonly wait_ms: number;
  readonly created_at_ms: number;
  unquoted_reason: string | null = null;
  readonly seq: number;
  /** The machine snapshot, or once expired its best quote's id (null: none); see the class comment. */
  #state: MachineSnapshot<typeof rfqMachine> | string | null;

  constructor(fields: Omit<Rfq, 'snapshot' | 'unquoted_reason'>, snapshot: MachineSnapshot<typeof rfqMachine>) {
    this.rfq_id = fields.rfq_id;
    this.org_id = fields.org_id;
    this.account_id = fields.account_id;
    this.mode = fields.mode;
    this.side = fields.side;
    this.from = fields.from;
    this.to = fields.to;
    this.amount_atoms = fields.amount_atoms;
    this.integrator_fee_bps = fields.integrator_fee_bps;
    this.destination_id = fields.destination_id;
    this.credit_id = fields.credit_id;
    this.spread_bps = fields.spread_bps;
    this.latency_ms = fields.latency_ms;
    this.ttl_ms = fields.ttl_ms;
    this.wait_ms = fields.wait_ms;
    this.created_at_ms = fields.created_at_ms;
    this.seq = fields.seq;
    this.#state = snapshot;
  }

  get snapshot(): MachineSnapshot<typeof rfqMachine> {
    const state = this.#state;
    if (state !== null && typeof state === 'object') return state;
    const context = { created_at_ms: this.created_at_ms, expires_at_ms: this.created_at_ms + this.ttl_ms, best_quote_id: state };
    return { value: 'expired', context, status: 'done' };
  }

  set snapshot(next: MachineSnapshot<typeof rfqMachine>) {
    const c = next.context;
    const plain =
      next.value === 'expired' && next.status === 'done' && next.machine_snapshot === undefined &&
      c.created_at_ms === this.created_at_ms && c.expires_at_ms === this.created_at_ms + this.ttl_ms;
    this.#state = plain ? c.best_quote_id : next;
  }
}

/**
 * A quote reads what its RFQ asked for through the RFQ instead of a copy of each field (about 90 bytes
 * per quote): those RFQ fields are never written after creation, so the values are the same.
 */
export class Quote {
  constructor(
    readonly quote_id: string,
    readonly rfq: Rfq,
    /** The pricing the quote stands on, incl. the USD prices used (the fill's slippage check compares with them). */
    readonly priced: Priced,
    readonly produced_at_ms: number,
    readonly expires_at_ms: number,
    readonly seq: number,
    snapshot: MachineSnapshot<typeof quoteMachine>,
  ) {
    this.#state = snapshot;
  }

  /** The machine snapshot, or for a consumed quote only the id of the trade that consumed it (see `snapshot`). */
  #state: MachineSnapshot<typeof quoteMachine> | string;

  /**
   * A consumed quote's snapshot holds nothing but its expiry (the quote's own) and its trade: the trade
   * id is kept instead of a snapshot and a context (about 100 bytes per trade), and an equal snapshot is
   * made on read (rfqs.test.ts compares it with the machine's own). Snapshots are never written in place.
   */
  get snapshot(): MachineSnapshot<typeof quoteMachine> {
    const state = this.#state;
    if (typeof state !== 'string') return state;
    return { value: 'consumed', context: { expires_at_ms: this.expires_at_ms, trade_id: state }, status: 'done' };
  }

  set snapshot(next: MachineSnapshot<typeof quoteMachine>) {
    const c = next.context;
    const plain =
      next.value === 'consumed' && next.status === 'done' && next.machine_snapshot === undefined &&
      c.expires_at_ms === this.expires_at_ms && typeof c.trade_id === 'string';
    this.#state = plain ? c.trade_id! : next;
  }

  get rfq_id(): string {
    return this.rfq.rfq_id;
  }
  get org_id(): string {
    return this.rfq.org_id;
  }
  get account_id(): string | null {
    return this.rfq.account_id;
  }
  get mode(): Mode {
    return this.rfq.mode;
  }
  get side(): Side {
    return this.rfq.side;
  }
  get from_asset_key(): string {
    return this.rfq.from.asset_key;
  }
  get to_asset_key(): string {
    return this.rfq.to.asset_key;
  }
  /** What the RFQ asked for (input for exact_in, net output for exact_out). */
  get requested_atoms(): bigint {
    return this.rfq.amount_atoms;
  }
  get integrator_fee_bps(): string | undefined {
    return this.rfq.integrator_fee_bps;
  }
  get spread_bps(): number {
    return this.rfq.spread_bps;
  }
  get destination_id(): string | null {
    return this.rfq.destination_id;
  }
  get credit_id(): string | null {
    return this.rfq.credit_id;
  }
}

/**
 * A trade's input read through its firm quote: only the accept's own fields are stored; the rest are
 * the quote's (and its pricing's), never written after creation, so not copied (about 120 bytes per trade).
 */
class AcceptedQuote implements StartTradeInput {
  constructor(
    readonly org: Organization,
    readonly quote: Quote,
    readonly slippage_bps: string,
    readonly client_order_id: string | null,
  ) {}

  get quote_id(): string {
    return this.quote.quote_id;
  }
  get rfq_id(): string {
    return this.quote.rfq.rfq_id;
  }
  get account_id(): string {
    return this.quote.rfq.account_id!;
  }
  get credit_id(): string {
    return this.quote.rfq.credit_id!;
  }
  get destination_id(): string {
    return this.quote.rfq.destination_id!;
  }
  get from_asset_key(): string {
    return this.quote.rfq.from.asset_key;
  }
  get to_asset_key(): string {
    return this.quote.rfq.to.asset_key;
  }
  get side(): Side {
    return this.quote.rfq.side;
  }
  get amount_in_atoms(): bigint {
    return this.quote.priced.amount_in_atoms;
  }
  get expected_out_atoms(): bigint {
    return this.quote.priced.expected_out_atoms;
  }
  get fees(): Fees {
    return this.quote.priced.fees;
  }
  get route_type(): string {
    return this.quote.priced.route_type;
  }
  get quoted_from_price_usd_scaled(): bigint {
    return this.quote.priced.from_price_usd_scaled;
  }
  get quoted_to_price_usd_scaled(): bigint {
    return this.quote.priced.to_price_usd_scaled;
  }
  get integrator_fee_bps(): string | undefined {
    return this.quote.rfq.integrator_fee_bps;
  }
  get spread_bps(): number {
    return this.quote.rfq.spread_bps;
  }
}

export const rfqStore = defineStore('rfqs', () => ({
  rfqs: new IdIndex<Rfq>('rfq', (r) => r.rfq_id),
  quotes: new IdIndex<Quote>('quote', (q) => q.quote_id),
}));

export function rfqStatus(rfq: Rfq): RfqStatus {
  return statusOf(rfq.snapshot) as RfqStatus;
}

export function quoteStatus(quote: Quote): QuoteStatus {
  return statusOf(quote.snapshot) as QuoteStatus;
}

const expiresAt = (rfq: Rfq): number => rfq.created_at_ms + rfq.ttl_ms;

function sendRfq(world: World, rfq: Rfq, event: RfqEvent): boolean {
  const step = send(world, rfqMachine, rfq.rfq_id, rfq.snapshot, event);
  if (!step) return false;
  rfq.snapshot = step.snapshot;
  return true;
}

function sendQuote(world: World, quote: Quote, event: QuoteEvent): boolean {
  const step = send(world, quoteMachine, quote.quote_id, quote.snapshot, event);
  if (!step) return false;
  quote.snapshot = step.snapshot;
  return true;
}

// ---- request validation ----------------------------------------------------------------------------

function checkBounds(world: World, body: CreateRfqBody): { ttl_ms: number; wait_ms: number } {
  const ttl_ms = body.ttl_ms ?? 1000;
  const wait_ms = body.wait_ms ?? 250;
  const { min, max } = world.profile.rfq_ttl_ms;
  if (ttl_ms < min || ttl_ms > max) throw new ApiError('invalid_parameter', `ttl_ms must be from ${min} to ${max}`, { param: 'ttl_ms' });
  const wait_max = world.profile.rfq_wait_ms_max;
  if (wait_ms < 0 || wait_ms > wait_max) throw new ApiError('invalid_parameter', `wait_ms must be from 0 to ${wait_max}`, { param: 'wait_ms' });
  return { ttl_ms, wait_ms };
}

/** Each side's amount fields and the other side's (field names made once: this runs on every RFQ). */
const AMOUNT_FIELDS = {
  exact_in: { atoms: 'amount_in_atoms', ui: 'amount_in_ui', others: ['amount_out_atoms', 'amount_out_ui'] },
  exact_out: { atoms: 'amount_out_atoms', ui: 'amount_out_ui', others: ['amount_in_atoms', 'amount_in_ui'] },
} as const;

/** The amount of the request's side (the other side's fields are refused), in that side's asset atoms. */
function requestedAmount(body: CreateRfqBody, from: Asset, to: Asset): bigint {
  const fields = AMOUNT_FIELDS[body.side];
  for (const f of fields.others) {
    if (body[f] !== undefined) throw new ApiError('invalid_parameter', `${f} is not a parameter of side=${body.side}; give ${fields.atoms} or ${fields.ui}`, { param: f });
  }
  const amount = oneOfAmount(body, fields.atoms, fields.ui, body.side === 'exact_in' ? from.decimals : to.decimals, true)!;
  if (amount === 0n) {
    const param = body[fields.atoms] !== undefined ? fields.atoms : fields.ui;
    throw new ApiError('invalid_parameter', `${param} must be greater than zero`, { param });
  }
  return amount;
}

function requireField(value: string | undefined, param: string): string {
  if (value === undefined) throw new ApiError('parameter_missing', `${param} is required when mode=firm`, { param });
  return value;
}

/** The credit the trade would draw from, as it must be right now: the account's, of the input asset, open and free. */
function requireSpendableCredit(world: World, org_id: string, account_id: string, credit_id: string, from_asset_key: string): Credit {
  const credit = requireCredit(world, org_id, credit_id, { account_id });
  if (credit.asset_key !== from_asset_key) {
    throw new ApiError('invalid_parameter', `credit ${credit_id} holds ${credit.asset_key}, not ${from_asset_key}`, { param: 'credit_id' });
  }
  if (creditStatus(credit) === 'consumed') throw new ApiError('credit_already_consumed', `credit ${credit_id} is no longer open`, { param: 'credit_id' });
  const holder = creditHolder(credit);
  if (holder !== null) {
    throw new ApiError('credit_in_use', `credit ${credit_id} is in use by ${holder}; it can be used again once that finishes`, {
      param: 'credit_id',
      details: { credit_id },
    });
  }
  return credit;
}

interface Parties {
  account: Account | null;
  destination_id: string | null;
  credit: Credit | null;
}

/** Firm: account operable, destination usable for the output, credit spendable. */
function firmParties(world: World, org_id: string, body: CreateRfqBody, from: Asset, to: Asset): Parties {
  const account_id = requireField(body.account_id, 'account_id');
  const destination_id = requireField(body.destination_id, 'destination_id');
  const credit_id = requireField(body.credit_id, 'credit_id');
  const account = requireAccount(world, org_id, account_id);
  requireOperable(account, 'rfq');
  requireUsableDestination(world, org_id, account_id, destination_id, to.asset_key);
  return { account, destination_id, credit: requireSpendableCredit(world, org_id, account_id, credit_id, from.asset_key) };
}

/**
 * Indicative: nothing is required, but what is named must exist and fit: the account in the org, the
 * destination and credit on that account with the right assets (suspension, locks and balance are a
 * firm RFQ's concern).
 */
function indicativeParties(world: World, org_id: string, body: CreateRfqBody, from: Asset, to: Asset): Parties {
  if (body.account_id === undefined) {
    for (const param of ['destination_id', 'credit_id'] as const) {
      if (body[param] !== undefined) throw new ApiError('parameter_missing', `account_id is required with ${param}`, { param: 'account_id' });
    }
    return { account: null, destination_id: null, credit: null };
  }
  const account = requireAccount(world, org_id, body.account_id);
  if (body.destination_id !== undefined) {
    const d = getDestinationRecord(world, body.destination_id);
    if (!d || d.org_id !== org_id || d.account_id !== account.account_id || destinationStatus(d) === 'deleted') {
      throw new ApiError('destination_not_found', `no destination ${body.destination_id}`, { param: 'destination_id' });
    }
    if (d.asset_key !== to.asset_key) {
      throw new ApiError('invalid_parameter', `destination ${d.destination_id} is for ${d.asset_key}, not ${to.asset_key}`, { param: 'destination_id' });
    }
  }
  let credit: Credit | null = null;
  if (body.credit_id !== undefined) {
    credit = requireCredit(world, org_id, body.credit_id, { account_id: account.account_id });
    if (credit.asset_key !== from.asset_key) {
      throw new ApiError('invalid_parameter', `credit ${credit.credit_id} holds ${credit.asset_key}, not ${from.asset_key}`, { param: 'credit_id' });
    }
  }
  return { account, destination_id: body.destination_id ?? null, credit };
}

function requireBalance(credit: Credit | null, mode: Mode, amount_in_atoms: bigint): void {
  if (mode !== 'firm' || credit === null || amount_in_atoms <= credit.atoms) return;
  throw new ApiError('insufficient_balance', `the trade needs ${amount_in_atoms} atoms; credit ${credit.credit_id} holds ${credit.atoms}`, {
    param: 'credit_id',
    details: { credit_id: credit.credit_id, required_atoms: amount_in_atoms.toString(), available_atoms: credit.atoms.toString() },
  });
}

// ---- create ----------------------------------------------------------------------------------------

/** Creates an RFQ once every check passes. Returns the RFQ; it is `ready` when the solvers answered within wait_ms. */
export function createRfq(world: World, org: Organization, body: CreateRfqBody): Rfq {
  const org_id = org.organization_id;
  const { ttl_ms, wait_ms } = checkBounds(world, body);
  const from = resolveAssetRef(world, org_id, { asset_key: body.from_asset_key, symbol: body.from_symbol }, { prefix: 'from_', required: true });
  const to = resolveAssetRef(world, org_id, { asset_key: body.to_asset_key, symbol: body.to_symbol }, { prefix: 'to_', required: true });
  const amount_atoms = requestedAmount(body, from, to);
  const parties = body.mode === 'firm' ? firmParties(world, org_id, body, from, to) : indicativeParties(world, org_id, body, from, to);
  const store = rfqStore(world);
  // Draws from child streams named by the RFQ's ordinal: a refused request moves no stream.
  const substream = `rfq-${store.rfqs.size}`;
  const spread_bps = drawSpreadBps(world, substream);
  const priced = price(world, { org, from, to, side: body.side, amount_atoms, integrator_fee_bps: body.integrator_fee_bps, spread_bps });
  requireBalance(parties.credit, body.mode, priced.amount_in_atoms);

  const latency_ms = drawSolverLatencyMs(world, substream);
  const rfq_id = world.newId('rfq');
  const created_at_ms = world.sim.now_ms();
  const initial = start(world, rfqMachine, rfq_id, { created_at_ms, expires_at_ms: created_at_ms + ttl_ms });
  const rfq: Rfq = new RfqRecord(
    {
      rfq_id,
      org_id,
      account_id: parties.account?.account_id ?? null,
      mode: body.mode,
      side: body.side,
      from,
      to,
      amount_atoms,
      integrator_fee_bps: body.integrator_fee_bps,
      destination_id: parties.destination_id,
      credit_id: parties.credit?.credit_id ?? null,
      spread_bps,
      latency_ms,
      ttl_ms,
      wait_ms,
      created_at_ms,
      seq: world.nextSeq(),
    },
    initial.snapshot,
  );
  store.rfqs.set(rfq_id, rfq);
  world.sim.scheduler.schedule(expiresAt(rfq), 'rfq.expire', () => void sendRfq(world, rfq, { type: 'EXPIRE', at_ms: world.sim.now_ms() }));
  if (latency_ms < ttl_ms) {
    // The clock does not move during a request: an answer within wait_ms is produced now, stamped at created + latency.
    if (latency_ms <= Math.min(wait_ms, ttl_ms)) produceQuote(world, rfq, priced);
    else world.sim.scheduler.schedule(created_at_ms + latency_ms, 'rfq.solved', () => solveLater(world, rfq));
  }
  return rfq;
}

/** The solvers answer after the request returned: re-price at today's prices; no quote when that fails now. */
function solveLater(world: World, rfq: Rfq): void {
  if (rfqStatus(rfq) !== 'pending') return;
  const org = world.orgs.get(rfq.org_id)!;
  try {
    const priced = price(world, {
      org, from: rfq.from, to: rfq.to, side: rfq.side, amount_atoms: rfq.amount_atoms, integrator_fee_bps: rfq.integrator_fee_bps, spread_bps: rfq.spread_bps,
    });
    if (rfq.credit_id !== null) requireBalance(requireCredit(world, rfq.org_id, rfq.credit_id), rfq.mode, priced.amount_in_atoms);
    produceQuote(world, rfq, priced);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    rfq.unquoted_reason = `${e.code}: ${e.message}`;
  }
}

/** The RFQ's one best quote, expiring inside the RFQ's TTL (profile quote_ttl_fraction), never before it exists. */
function produceQuote(world: World, rfq: Rfq, priced: Priced): Quote {
  const produced_at_ms = rfq.created_at_ms + rfq.latency_ms;
  const fraction_ms = Math.floor(rfq.ttl_ms * world.profile.quote_ttl_fraction);
  const expires_at_ms = rfq.created_at_ms + Math.min(rfq.ttl_ms, Math.max(rfq.latency_ms + 1, fraction_ms));
  const quote_id = world.newId('quote');
  const initial = start(world, quoteMachine, quote_id, { expires_at_ms });
  const quote = new Quote(quote_id, rfq, priced, produced_at_ms, expires_at_ms, world.nextSeq(), initial.snapshot);
  rfqStore(world).quotes.set(quote_id, quote);
  sendRfq(world, rfq, { type: 'SOLVED', quote_id, at_ms: produced_at_ms });
  world.sim.scheduler.schedule(expires_at_ms, 'quote.expire', () => void sendQuote(world, quote, { type: 'EXPIRE', at_ms: world.sim.now_ms() }));
  return quote;
}

// ---- read ------------------------------------------------------------------------------------------

export function requireRfq(world: World, org_id: string, rfq_id: string): Rfq {
  const rfq = rfqStore(world).rfqs.get(rfq_id);
  if (!rfq || rfq.org_id !== org_id) throw new ApiError('rfq_not_found', `no rfq ${rfq_id}`, { param: 'rfq_id' });
  return rfq;
}

/** The RFQ as the wire shows it; an RFQ past its TTL answers rfq_expired (the spec shows no expired status). */
export function readRfq(world: World, org_id: string, rfq_id: string): Rfq {
  const rfq = requireRfq(world, org_id, rfq_id);
  if (rfqStatus(rfq) === 'expired' || world.sim.now_ms() >= expiresAt(rfq)) {
    throw new ApiError('rfq_expired', `rfq ${rfq_id} expired at ${expiresAt(rfq)}; request a new one`, {
      param: 'rfq_id',
      details: { rfq_id, expired_at_ms: expiresAt(rfq) },
    });
  }
  return rfq;
}

export function serializeRfq(world: World, rfq: Rfq): Record<string, unknown> {
  if (rfqStatus(rfq) === 'ready') return { rfq_id: rfq.rfq_id, status: 'ready', best_quote_id: rfq.snapshot.context.best_quote_id };
  // Poll when the solvers should answer; past that (no quote came) when the RFQ expires.
  const answer_at_ms = rfq.latency_ms < rfq.ttl_ms && rfq.unquoted_reason === null ? rfq.created_at_ms + rfq.latency_ms : expiresAt(rfq);
  return { rfq_id: rfq.rfq_id, status: 'pending', poll_after_ms: Math.max(1, answer_at_ms - world.sim.now_ms()) };
}

/** POST /rfqs answers as if it had waited wait_ms: poll_after_ms counts from the end of that wait. */
export function serializeCreated(world: World, rfq: Rfq): { status: 200 | 202; rfq: Record<string, unknown> } {
  if (rfqStatus(rfq) === 'ready') return { status: 200, rfq: serializeRfq(world, rfq) };
  const answer_at_ms = rfq.latency_ms < rfq.ttl_ms ? rfq.latency_ms : rfq.ttl_ms;
  return { status: 202, rfq: { rfq_id: rfq.rfq_id, status: 'pending', poll_after_ms: Math.max(1, answer_at_ms - Math.min(rfq.wait_ms, rfq.ttl_ms)) } };
}

export function requireQuote(world: World, org_id: string, quote_id: string): Quote {
  const quote = rfqStore(world).quotes.get(quote_id);
  if (!quote || quote.org_id !== org_id) throw new ApiError('quote_not_found', `no quote ${quote_id}`, { param: 'quote_id' });
  return quote;
}

const isExpired = (world: World, quote: Quote): boolean => quoteStatus(quote) === 'expired' || (quoteStatus(quote) === 'open' && world.sim.now_ms() >= quote.expires_at_ms);

function quoteExpired(quote: Quote): ApiError {
  return new ApiError('quote_expired', `quote ${quote.quote_id} expired at ${quote.expires_at_ms}; request a new RFQ`, {
    param: 'quote_id',
    details: { quote_id: quote.quote_id, expired_at_ms: quote.expires_at_ms },
  });
}

/** A quote stays readable after it expires unless the profile says otherwise (spec: not shown). */
export function readQuote(world: World, org_id: string, quote_id: string): Quote {
  const quote = requireQuote(world, org_id, quote_id);
  if (world.profile.quote_read_after_expiry === 'quote_expired' && isExpired(world, quote)) throw quoteExpired(quote);
  return quote;
}

export function serializeQuote(q: Quote): Record<string, unknown> {
  return {
    quote_id: q.quote_id,
    rfq_id: q.rfq_id,
    mode: q.mode,
    expires_at_ms: q.expires_at_ms,
    route_type: q.priced.route_type,
    settlement_domains: [...q.priced.settlement_domains],
    from_asset_key: q.from_asset_key,
    to_asset_key: q.to_asset_key,
    side: q.side,
    amount_in_atoms: q.priced.amount_in_atoms.toString(),
    expected_out_atoms: q.priced.expected_out_atoms.toString(),
    fees: serializeFees(q.priced.fees),
    route_requirements: structuredClone(q.priced.route_requirements),
  };
}

// ---- accept ----------------------------------------------------------------------------------------

/**
 * Accepts a firm quote into a trade. Checks, in order and before any change: the quote (404, firm,
 * not consumed, not expired), the account (operable), the destination (still usable), the credit (open
 * and free). The handler is synchronous from the first check to ACCEPT, so of two concurrent accepts
 * exactly one finds the quote open.
 */
export function acceptQuote(world: World, org: Organization, quote_id: string, body: AcceptBody): string {
  const quote = requireQuote(world, org.organization_id, quote_id);
  if (quote.mode !== 'firm') {
    throw new ApiError('quote_not_firm', `quote ${quote_id} is indicative and cannot be traded; request a firm RFQ`, { param: 'quote_id' });
  }
  if (quoteStatus(quote) === 'consumed') {
    throw new ApiError('quote_consumed', `quote ${quote_id} was already accepted`, {
      param: 'quote_id',
      details: { quote_id, trade_id: quote.snapshot.context.trade_id },
    });
  }
  if (isExpired(world, quote)) throw quoteExpired(quote);
  const account_id = quote.account_id!;
  const account = requireAccount(world, org.organization_id, account_id);
  requireOperable(account, 'rfq');
  requireUsableDestination(world, org.organization_id, account_id, quote.destination_id!, quote.to_asset_key);
  requireSpendableCredit(world, org.organization_id, account_id, quote.credit_id!, quote.from_asset_key);

  const { trade_id } = startTrade(world, new AcceptedQuote(org, quote, body.slippage_bps, body.client_order_id ?? null));
  // startTrade has locked the credit; the quote cannot refuse ACCEPT here (open and before expiry, checked above).
  if (!sendQuote(world, quote, { type: 'ACCEPT', trade_id, at_ms: world.sim.now_ms() })) throw new Error(`quote ${quote_id} refused ACCEPT after its checks`);
  return trade_id;
}

// ---- invariants ------------------------------------------------------------------------------------

export function rfqInvariants(world: World): Violation[] {
  const out: Violation[] = [];
  const { rfqs, quotes } = rfqStore(world);
  for (const rfq of rfqs.values()) {
    const best = rfq.snapshot.context.best_quote_id;
    if (rfqStatus(rfq) === 'ready' && (best === null || quotes.get(best)?.rfq_id !== rfq.rfq_id)) {
      out.push({ invariant: 'rfq_ready_has_quote', entity_id: rfq.rfq_id, message: `ready rfq has no quote of its own (${best})` });
    }
  }
  for (const q of quotes.values()) {
    const rfq = rfqs.get(q.rfq_id);
    if (!rfq) {
      out.push({ invariant: 'quote_has_rfq', entity_id: q.quote_id, message: `quote names unknown rfq ${q.rfq_id}` });
      continue;
    }
    if (q.expires_at_ms > expiresAt(rfq) || q.expires_at_ms <= q.produced_at_ms) {
      out.push({ invariant: 'quote_expiry_within_rfq_ttl', entity_id: q.quote_id, message: `expires ${q.expires_at_ms}, produced ${q.produced_at_ms}, rfq expires ${expiresAt(rfq)}` });
    }
    const f = q.priced.fees;
    if (f.platform_atoms + f.integrator_atoms !== f.total_atoms || q.priced.gross_out_atoms - f.total_atoms !== q.priced.expected_out_atoms) {
      out.push({ invariant: 'quote_fees_add_up', entity_id: q.quote_id, message: 'platform + integrator ≠ total, or gross − total ≠ expected_out' });
    }
    if (q.side === 'exact_out' ? q.priced.expected_out_atoms < q.requested_atoms : q.priced.amount_in_atoms !== q.requested_atoms) {
      out.push({ invariant: 'quote_meets_request', entity_id: q.quote_id, message: `${q.side} quote does not meet the requested ${q.requested_atoms}` });
    }
    if (quoteStatus(q) === 'consumed' && (q.mode !== 'firm' || q.snapshot.context.trade_id === null)) {
      out.push({ invariant: 'consumed_quote_is_firm_trade', entity_id: q.quote_id, message: 'a consumed quote must be firm and name its trade' });
    }
  }
  return out;
}

/** A deleted organization: its RFQs and their quotes go. */
export function forgetOrganizationRfqs(world: World, org: Organization, scope: ForgetScope): void {
  const store = rfqStore(world);
  store.rfqs.retain((r) => {
    if (r.org_id !== org.organization_id) return true;
    scope.gone.add(r.rfq_id);
    return false;
  });
  store.quotes.retain((q) => {
    if (q.rfq.org_id !== org.organization_id) return true;
    scope.gone.add(q.quote_id);
    return false;
  });
}
