// RFQs and quotes over the world: price a checked request (requests.ts), answer within wait_ms or later
// on the sim clock (one best quote per RFQ, priced when the solvers answer), expire on the TTL, and read
// them as the wire shows them. Accepting a firm quote into a trade is accept.ts.
import { defineStore, type Organization, type World } from '../../world.ts';
import { compactLifecycle, defineTask, EntityTable, statusOf, type LifecycleState, type MachineSnapshot } from '../../engine/index.ts';
import { ApiError } from '../../contract/errors.ts';
import { resolveAssetRef, type Asset } from '../assets/index.ts';
import { requireCredit } from '../credits/index.ts';
import { drawSolverLatencyMs, drawSpreadBps, price, serializeFees, type Priced, type Side } from '../pricing/index.ts';
import { quoteMachine, rfqMachine, type QuoteEvent, type QuoteStatus, type RfqEvent, type RfqStatus } from './machine.ts';
import { checkBounds, firmParties, indicativeParties, requestedAmount, requireBalance, type Mode } from './requests.ts';
import type { CreateRfqBody } from './schemas.ts';
import type { ForgetScope } from '../../resource-records.ts';

/** An RFQ as asked for; its lifecycle state read with `rfqSnapshot`. */
export interface Rfq {
  readonly rfq_id: string;
  readonly org_id: string;
  readonly account_id: string | null;
  readonly mode: Mode;
  readonly side: Side;
  readonly from: Asset;
  readonly to: Asset;
  /** exact_in: the input; exact_out: the net output asked for. */
  readonly amount_atoms: bigint;
  readonly integrator_fee_bps: string | undefined;
  readonly destination_id: string | null;
  readonly credit_id: string | null;
  readonly spread_bps: number;
  /** When the solvers answer, after creation (drawn per RFQ). */
  readonly latency_ms: number;
  readonly ttl_ms: number;
  readonly wait_ms: number;
  readonly created_at_ms: number;
  /** Why the solvers' answer produced no quote (prices or liquidity moved since the request); null otherwise. */
  unquoted_reason: string | null;
  readonly seq: number;
  state: LifecycleState<typeof rfqMachine>;
}

/** A quote: what its RFQ asked for is read through `rfq`, what it offers is `priced`; it is produced when the solvers answer (`producedAt`). */
export interface Quote {
  readonly quote_id: string;
  readonly rfq: Rfq;
  /** The pricing the quote stands on, incl. the USD prices used (the fill's slippage check compares with them). */
  readonly priced: Priced;
  readonly expires_at_ms: number;
  readonly seq: number;
  state: LifecycleState<typeof quoteMachine>;
}

const rfqIdOf = (r: Rfq): string => r.rfq_id;
const quoteIdOf = (q: Quote): string => q.quote_id;

export const rfqStore = defineStore('rfqs', () => ({
  rfqs: new EntityTable<Rfq>('rfq', rfqIdOf, { keepsList: false }),
  quotes: new EntityTable<Quote>('quote', quoteIdOf, { keepsList: false }),
}));

/** Every RFQ ends `expired` (its TTL task) holding its own times and its best quote's id: it keeps the id alone. */
const rfqs = compactLifecycle(rfqMachine, {
  state: 'expired',
  status: 'done',
  keeps: 'best_quote_id',
  context: (rfq: Rfq, best_quote_id) => ({
    created_at_ms: rfq.created_at_ms,
    expires_at_ms: rfq.created_at_ms + rfq.ttl_ms,
    best_quote_id: best_quote_id as string | null,
  }),
});

/** A consumed quote holds its own expiry and its trade: it keeps the trade's id alone. */
const quotes = compactLifecycle(quoteMachine, {
  state: 'consumed',
  status: 'done',
  keeps: 'trade_id',
  context: (quote: Quote, trade_id) => ({ expires_at_ms: quote.expires_at_ms, trade_id: trade_id as string | null }),
});

export const rfqSnapshot = (rfq: Rfq): MachineSnapshot<typeof rfqMachine> => rfqs.snapshot(rfq);
export const quoteSnapshot = (quote: Quote): MachineSnapshot<typeof quoteMachine> => quotes.snapshot(quote);

export function rfqStatus(rfq: Rfq): RfqStatus {
  return statusOf(rfqSnapshot(rfq)) as RfqStatus;
}

export function quoteStatus(quote: Quote): QuoteStatus {
  return statusOf(quoteSnapshot(quote)) as QuoteStatus;
}

export const expiresAt = (rfq: Rfq): number => rfq.created_at_ms + rfq.ttl_ms;

/** When the RFQ's solvers answer, and so when its quote is produced (stamped so even when produced during the request). */
const answeredAt = (rfq: Rfq): number => rfq.created_at_ms + rfq.latency_ms;
export const producedAt = (quote: Quote): number => answeredAt(quote.rfq);

/** Neither machine emits anything: a step only moves the snapshot. */
const NOTHING_TO_APPLY = (): void => {};

function sendRfq(world: World, rfq: Rfq, event: RfqEvent): boolean {
  return rfqs.advance(world, rfq, rfq.rfq_id, event, NOTHING_TO_APPLY);
}

export function sendQuote(world: World, quote: Quote, event: QuoteEvent): boolean {
  return quotes.advance(world, quote, quote.quote_id, event, NOTHING_TO_APPLY);
}

// ---- create ----------------------------------------------------------------------------------------

/** Creates an RFQ once every check passes. Returns the RFQ; it is `ready` when the solvers answered within wait_ms. */
export function createRfq(world: World, org: Organization, body: CreateRfqBody): Rfq {
  const org_id = org.organization_id;
  const { ttl_ms, wait_ms } = checkBounds(world, body);
  const from = resolveAssetRef(
    world,
    org_id,
    { asset_key: body.from_asset_key, symbol: body.from_symbol },
    { prefix: 'from_', required: true },
  );
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
  const initial = rfqs.start(world, rfq_id, { created_at_ms, expires_at_ms: created_at_ms + ttl_ms });
  const rfq: Rfq = {
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
    unquoted_reason: null,
    seq: world.nextSeq(),
    state: initial.state,
  };
  store.rfqs.insert(rfq);
  world.sim.scheduler.schedule(expiresAt(rfq), 'rfq.expire', { rfq_id });
  if (latency_ms < ttl_ms) {
    // The clock does not move during a request: an answer within wait_ms is produced now, stamped at created + latency.
    if (latency_ms <= Math.min(wait_ms, ttl_ms)) produceQuote(world, rfq, priced);
    else world.sim.scheduler.schedule(created_at_ms + latency_ms, 'rfq.solved', { rfq_id });
  }
  return rfq;
}

defineTask('rfq.expire', (world, { rfq_id }: { rfq_id: string }) => {
  const rfq = rfqStore(world).rfqs.get(rfq_id);
  if (rfq) sendRfq(world, rfq, { type: 'EXPIRE', at_ms: world.sim.now_ms() });
});

defineTask('rfq.solved', (world, { rfq_id }: { rfq_id: string }) => {
  const rfq = rfqStore(world).rfqs.get(rfq_id);
  if (rfq) solveLater(world, rfq);
});

defineTask('quote.expire', (world, { quote_id }: { quote_id: string }) => {
  const quote = rfqStore(world).quotes.get(quote_id);
  if (quote) sendQuote(world, quote, { type: 'EXPIRE', at_ms: world.sim.now_ms() });
});

/** The solvers answer after the request returned: re-price at today's prices; no quote when that fails now. */
function solveLater(world: World, rfq: Rfq): void {
  if (rfqStatus(rfq) !== 'pending') return;
  const org = world.orgs.get(rfq.org_id)!;
  try {
    const priced = price(world, {
      org,
      from: rfq.from,
      to: rfq.to,
      side: rfq.side,
      amount_atoms: rfq.amount_atoms,
      integrator_fee_bps: rfq.integrator_fee_bps,
      spread_bps: rfq.spread_bps,
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
  const produced_at_ms = answeredAt(rfq);
  const fraction_ms = Math.floor(rfq.ttl_ms * world.profile.quote_ttl_fraction);
  const expires_at_ms = rfq.created_at_ms + Math.min(rfq.ttl_ms, Math.max(rfq.latency_ms + 1, fraction_ms));
  const quote_id = world.newId('quote');
  const initial = quotes.start(world, quote_id, { expires_at_ms });
  const quote: Quote = { quote_id, rfq, priced, expires_at_ms, seq: world.nextSeq(), state: initial.state };
  rfqStore(world).quotes.insert(quote);
  sendRfq(world, rfq, { type: 'SOLVED', quote_id, at_ms: produced_at_ms });
  world.sim.scheduler.schedule(expires_at_ms, 'quote.expire', { quote_id });
  return quote;
}

// ---- read ------------------------------------------------------------------------------------------

function requireRfq(world: World, org_id: string, rfq_id: string): Rfq {
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
  if (rfqStatus(rfq) === 'ready') return { rfq_id: rfq.rfq_id, status: 'ready', best_quote_id: rfqSnapshot(rfq).context.best_quote_id };
  // Poll when the solvers should answer; past that (no quote came) when the RFQ expires.
  const answer_at_ms = rfq.latency_ms < rfq.ttl_ms && rfq.unquoted_reason === null ? rfq.created_at_ms + rfq.latency_ms : expiresAt(rfq);
  return { rfq_id: rfq.rfq_id, status: 'pending', poll_after_ms: Math.max(1, answer_at_ms - world.sim.now_ms()) };
}

/** POST /rfqs answers as if it had waited wait_ms: poll_after_ms counts from the end of that wait. */
export function serializeCreated(world: World, rfq: Rfq): { status: 200 | 202; rfq: Record<string, unknown> } {
  if (rfqStatus(rfq) === 'ready') return { status: 200, rfq: serializeRfq(world, rfq) };
  const answer_at_ms = Math.min(rfq.latency_ms, rfq.ttl_ms);
  return {
    status: 202,
    rfq: { rfq_id: rfq.rfq_id, status: 'pending', poll_after_ms: Math.max(1, answer_at_ms - Math.min(rfq.wait_ms, rfq.ttl_ms)) },
  };
}

export function requireQuote(world: World, org_id: string, quote_id: string): Quote {
  const quote = rfqStore(world).quotes.get(quote_id);
  if (!quote || quote.rfq.org_id !== org_id) throw new ApiError('quote_not_found', `no quote ${quote_id}`, { param: 'quote_id' });
  return quote;
}

export const isExpired = (world: World, quote: Quote): boolean =>
  quoteStatus(quote) === 'expired' || (quoteStatus(quote) === 'open' && world.sim.now_ms() >= quote.expires_at_ms);

export function quoteExpired(quote: Quote): ApiError {
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
  const { rfq, priced } = q;
  return {
    quote_id: q.quote_id,
    rfq_id: rfq.rfq_id,
    mode: rfq.mode,
    expires_at_ms: q.expires_at_ms,
    route_type: priced.route_type,
    settlement_domains: [...priced.settlement_domains],
    from_asset_key: rfq.from.asset_key,
    to_asset_key: rfq.to.asset_key,
    side: rfq.side,
    amount_in_atoms: priced.amount_in_atoms.toString(),
    expected_out_atoms: priced.expected_out_atoms.toString(),
    fees: serializeFees(priced.fees),
    route_requirements: structuredClone(priced.route_requirements),
  };
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
