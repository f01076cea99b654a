// The behaviour-profile schema (zod): the one declaration of every setting, its documentation and `Profile`
// (`z.output` of it; profile.ts holds the default), strict, with range checks, plus the partial form a user
// file uses (any subset of the default, nested objects merged field by field).
import { z } from 'zod';
import { isCidr } from '../network.ts';
import { LIFECYCLE_ERROR_CODES, type LifecycleErrorCode } from '../failure-codes.ts';

export const RATE_LIMIT_ALGORITHMS = ['token_bucket', 'fixed_window'] as const;
export type RateLimitAlgorithm = (typeof RATE_LIMIT_ALGORITHMS)[number];

export const WEBHOOK_DELIVERY_ORDERS = ['in_order', 'shuffle_across_accounts', 'best_effort'] as const;
export type WebhookDeliveryOrder = (typeof WEBHOOK_DELIVERY_ORDERS)[number];

export const WEBHOOK_BODY_STYLES = ['compact', 'spaced', 'escaped', 'mixed'] as const;
export type WebhookBodyStyle = (typeof WEBHOOK_BODY_STYLES)[number];

/** The chains a profile times (`chains`): every one, no other. */
const PROFILE_CHAINS = ['evm:1', 'evm:42161', 'btc', 'solana', 'zec'] as const;

const POS_INT = 'must be a positive integer';
const NONNEG_INT = 'must be a non-negative integer';

const posInt = () => z.number({ error: POS_INT }).int({ error: POS_INT }).positive({ error: POS_INT });
const nonNegInt = () => z.number({ error: NONNEG_INT }).int({ error: NONNEG_INT }).nonnegative({ error: NONNEG_INT });
const intBetween = (min: number, max: number) => {
  const msg = `must be an integer from ${min} to ${max}`;
  return z.number({ error: msg }).int({ error: msg }).min(min, { error: msg }).max(max, { error: msg });
};
const enumOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}` });
const CIDR = 'must be an array of CIDR blocks (e.g. "10.0.0.0/8", "::1/128")';
const cidrList = () => z.array(z.string({ error: CIDR }).refine(isCidr, { error: CIDR }), { error: CIDR }).max(1_000, { error: CIDR });
const bool = () => z.boolean({ error: 'must be true or false' });
const bpsString = () =>
  z
    .string({ error: 'must be a string of whole basis points' })
    .regex(/^(0|[1-9][0-9]{0,4})$/, { error: 'must be a string of whole basis points' });

/** Builds the schema; `partial` makes every field (at every depth) optional, for user files. */
function build(partial: boolean) {
  // Typed as the strict form; the partial form's type is only needed as DeepPartial<Profile> (below).
  const obj = <S extends z.ZodRawShape>(shape: S) =>
    (partial ? z.strictObject(shape).partial() : z.strictObject(shape)) as unknown as z.ZodObject<S, z.core.$strict>;
  // Range objects: the min ≤ max check runs on the merged profile only, where both ends are known.
  const range = (item: () => z.ZodNumber) => obj({ min: item(), max: item() });
  const statuses = Object.fromEntries(LIFECYCLE_ERROR_CODES.map((c) => [c, intBetween(400, 599)])) as Record<
    LifecycleErrorCode,
    z.ZodNumber
  >;
  const chainTiming = obj({
    /** Time between blocks, i.e. between confirmations. */
    block_ms: posInt(),
    /** Confirmations at which a deposit or settlement counts as final. */
    finality_confirmations: posInt(),
  });
  const chains = Object.fromEntries(PROFILE_CHAINS.map((k) => [k, chainTiming])) as Record<string, typeof chainTiming>;
  const typeName = () =>
    z.string({ error: 'must be a snake_case error type' }).regex(/^[a-z][a-z0-9_]*$/, { error: 'must be a snake_case error type' });
  return obj({
    name: z.string({ error: 'must be a non-empty string' }).min(1, { error: 'must be a non-empty string' }),
    /** HTTP status of the lifecycle error codes whose status the spec leaves open. */
    lifecycle_error_status: obj(statuses),
    /** `error.type` for each HTTP status class (the spec names only `invalid_request`). */
    error_type_by_status: obj({
      '4xx': typeName(),
      '401': typeName(),
      '403': typeName(),
      '404': typeName(),
      '409': typeName(),
      '422': typeName(),
      '429': typeName(),
      '5xx': typeName(),
    }),
    /** Whether 429 responses carry `Retry-After` (the spec says they do; real proxies sometimes drop it). */
    rate_limit_retry_after: bool(),
    /**
     * How "N requests per second per API key" is counted (spec: not shown). `token_bucket` (default): a
     * bucket of N tokens refilled at N per second, so an evenly spaced client at exactly N/s is never refused
     * whatever its jitter, and a burst gets at most N at once. `fixed_window` (adversarial, as many proxies
     * do it): N per 1 s window starting at the key's first request after the last window ended; an evenly
     * spaced client at exactly N/s sees 429s whenever jitter puts N+1 requests in one window.
     */
    rate_limit_algorithm: enumOf(RATE_LIMIT_ALGORITHMS),
    /** Per-chain block time and finality threshold. */
    chains: obj(chains),
    /** Sim time from account creation to each chain's `account.wallet_created`. */
    wallet_derivation_ms: nonNegInt(),
    /** Sim time source screening of a deposit takes (runs beside confirmations). */
    deposit_screening_ms: nonNegInt(),
    /**
     * How a deposit's confirmations step its machine (spec: not shown; only the finality threshold matters to
     * the API): `at_finality`, one step at the finality block carrying every block (one timer per deposit);
     * `per_block`, one timer and one transition per block (the timeline shows each). Either way GET
     * /_sim/deposits shows the confirmations the chain has at that sim time, and verification happens then.
     */
    deposit_confirmation_steps: enumOf(['at_finality', 'per_block']),
    /** How long a deposit address is monitored after it is issued. */
    deposit_address_ttl_ms: posInt(),
    /** Partner screening window, from the `deposit.partner_screening` event's created_at_ms. */
    partner_window_ms: nonNegInt(),
    /** Status and body of DELETE destination: 204 empty, or 200 with `{destination, deleted: true}`. */
    delete_destination_status: z.union([z.literal(200), z.literal(204)], { error: 'must be 200 or 204' }),
    /** Whether a deactivated account may be reactivated or exported (spec: not shown). */
    deactivated_allows_export: bool(),
    /** Webhook handler timeout per attempt. */
    webhook_timeout_ms: posInt(),
    /** Delay before each retry, after the first attempt; retries stop once 72 h have passed. */
    webhook_retry_schedule_ms: z
      .array(posInt(), { error: 'must be an array of positive integers' })
      .min(1, { error: 'must list at least one delay' }),
    /** Total retry window for a delivery. */
    webhook_retry_window_ms: posInt(),
    /** Brand part of the webhook header names: `<prefix>-Webhook-Id`, … */
    webhook_header_prefix: z
      .string({ error: 'must be a header-name token' })
      .regex(/^[A-Za-z0-9][A-Za-z0-9-]*$/, { error: 'must be a header-name token (letters, digits, -)' }),
    /** Sim delay a `{webhook: 'reorder'}` fault puts on an attempt, so deliveries due meanwhile overtake it. */
    webhook_reorder_delay_ms: nonNegInt(),
    /**
     * 0: the sim clock waits for each attempt's answer at the instant it is sent, one account's POSTs one after
     * another. N > 0 (without a journal): the POST leaves at once and its answer is applied N ms of sim time
     * later; the clock runs on meanwhile, so one receiver's answers overlap in wall time, a duplicate's two copies
     * included (spec: handler timeout and ordering not shown; `swapsim verify` uses 5 min here, so a slow handler
     * costs its wall time once per burst, not once per event).
     */
    webhook_answer_slot_ms: nonNegInt(),
    /**
     * With an answer slot: 0, one account's POSTs leave at once (racy arrival order). N > 0: each leaves N ms of wall
     * time after the account's previous POST (same webhook) was handed to the socket, without waiting for its answer,
     * so they arrive in dispatch order (spec: within an account best-effort ordered) unless the receiver stalls longer
     * than N (a POST on a fresh connection waits for its accept).
     */
    webhook_answer_slot_stagger_ms: nonNegInt(),
    /** Whether an attempt falling due while its webhook is inactive ends the delivery `failed`, unsent (spec: not shown). */
    webhook_inactive_abandons: bool(),
    /**
     * CIDR blocks a webhook may connect to (spec: not shown). swapsim's own listening port on a local address and
     * any `/_sim` path are refused whatever this says (docs/shared-server.md).
     */
    webhook_allowed_destinations: cidrList(),
    /** CIDR blocks a webhook never connects to, even inside the allowed ones (link-local cloud metadata by default). */
    webhook_denied_destinations: cidrList(),
    /** POSTs in flight at once to one webhook; more wait in its queue (a slow receiver slows only its own organization). */
    webhook_max_in_flight: intBetween(1, 1_000),
    /** POSTs in flight at once over all webhooks of the world. */
    webhook_max_in_flight_total: intBetween(1, 10_000),
    /** Attempts waiting for one webhook, at most; an attempt past it fails at once (http_status 0) and is retried. */
    webhook_max_queued: intBetween(0, 1_000_000),
    /** Order of GET /accounts/{account_id}/activity (spec: not shown); the event feed is always oldest first. */
    activity_order: enumOf(['asc', 'desc']),
    /** Market maker timing for trades and zaps: commit (fill) delay range, then the wait before settlement is initiated. */
    execution: obj({ fill_ms: range(nonNegInt), settle_initiate_ms: nonNegInt() }),
    /** How long a settlement may take past its legs' finality before `settlement_timeout` fails it (the fault's stage). */
    settlement_timeout_ms: posInt(),
    /** After a `{reorg}` fault: delay from settlement to the orphaning of the leg. The leg reconfirms one finality later. */
    reorg_after_ms: nonNegInt(),
    /** Status a settled trade or zap shows while a leg is orphaned (spec: not shown): keep `settled`, or show `pending_settle`. */
    orphan_status: enumOf(['settled', 'pending_settle']),
    /** Bounds on `poll_after_ms`, which otherwise follows the next scheduled step of the entity. */
    poll_after_ms: range(nonNegInt),
    /** Idempotency-Key retention. */
    idempotency_retention_ms: posInt(),
    /** Failed authentications (a bearer key no organization holds) per client address per window, on wall time. */
    auth_failures_per_ip: obj({ max: posInt(), window_ms: posInt() }),
    /** Wall time a request body may take to arrive after its headers; past it 408 request_timeout (http/limits.ts). */
    request_body_timeout_ms: posInt(),
    /** Organizations the server holds at once; past it POST /_sim/organizations is 403 quota_exceeded. */
    max_organizations: posInt(),
    /** Accounts one organization may create; past it POST /accounts is 403 quota_exceeded. */
    org_max_accounts: posInt(),
    /** Memory the conduct recorder keeps for one organization's keys (estimated bytes); past it their oldest records go. */
    conduct_max_bytes_per_org: posInt(),
    /** Memory one organization's idempotency records may take (estimated bytes of key and stored answer); past it its oldest go. */
    idempotency_max_bytes_per_org: posInt(),
    /** Idempotency records one organization keeps at most (its oldest go first): the memory bound under fresh keys. */
    idempotency_max_records: intBetween(1, 10_000_000),
    /** Events are kept this long (sim time) for GET /events, activity and replay, then swept (spec: at least 30 days). */
    event_retention_ms: posInt(),
    /** A webhook delivery and its attempt log are kept this long after the delivery ends, then swept (spec: not shown); never past its event. */
    webhook_delivery_retention_ms: posInt(),
    /** Fee defaults for new organizations. */
    default_platform_fee_bps: bpsString(),
    default_integrator_fee_bps: bpsString(),
    /** GET /resolve: accept `kind=native` with `chain` (spec: other kinds not shown); false → invalid_enum. */
    resolve_native_kind: bool(),
    /** PUT /symbols: most mappings one request may carry (spec: not shown); more → invalid_parameter. */
    symbols_batch_max: posInt(),
    /**
     * The USD price walk, one step per sim minute: a uniform move of at most `step_bps_max`
     * (`stable_step_bps_max` for stablecoins) plus a pull of `reversion_ppm` per million towards the
     * last price set, which keeps long settles within a few percent of it.
     */
    price_walk: obj({ step_bps_max: nonNegInt(), stable_step_bps_max: nonNegInt(), reversion_ppm: intBetween(0, 1_000_000) }),
    /** How far before the world's start candles reach (the walk is backfilled that far, on demand). */
    market_history_ms: nonNegInt(),
    /** GET /markets/candles: most candles one request may span (spec: not shown); more → invalid_parameter. */
    candles_max_per_request: posInt(),
    /** Sim time from POST /cancels to the cancel's broadcast (pending → sent; spec: not shown). */
    cancel_broadcast_ms: nonNegInt(),
    /** Bounds on a cancel's poll_after_ms (the time to its next expected step, clamped; spec: not shown). */
    cancel_poll_after_ms: range(nonNegInt),
    /** Market-maker spread drawn per RFQ from the `spreads` stream, whole basis points of the output, inclusive bounds. */
    spread_bps: range(() => intBetween(0, 10_000)),
    /** Solver latency drawn per RFQ from the `solvers` stream: a quote is ready this long after the RFQ is created. */
    solver_latency_ms: range(nonNegInt),
    /** Quote expiry as a fraction of the RFQ TTL after the RFQ's creation (spec: within the TTL); never before the quote exists. */
    quote_ttl_fraction: z
      .number({ error: 'must be a number in (0, 1]' })
      .gt(0, { error: 'must be a number in (0, 1]' })
      .lte(1, { error: 'must be a number in (0, 1]' }),
    /** POST /rfqs `ttl_ms` and `wait_ms` bounds (spec: defaults 1000 and 250, bounds not shown); outside → invalid_parameter. */
    rfq_ttl_ms: range(posInt),
    rfq_wait_ms_max: nonNegInt(),
    /** Default liquidity of every pair, a USD decimal (the control plane can set another per pair). */
    pair_liquidity_usd: z
      .string({ error: 'must be a USD decimal string' })
      .regex(/^(0|[1-9][0-9]*)(\.[0-9]+)?$/, { error: 'must be a USD decimal string' }),
    /** Notional outside 1..100000 USD: the spec allows `insufficient_liquidity` or a validation error. */
    size_out_of_bounds_error: enumOf(['insufficient_liquidity', 'invalid_parameter']),
    /** HYBRID_SOLANA_TO_INTENTS: `min_intermediate_out` is the notional in Solana USDC less this haircut. */
    hybrid_intermediate_haircut_bps: intBetween(0, 10_000),
    /** Most platform + integrator fee a quote may carry, whole bps (spec: not shown); more → invalid_parameter. */
    max_total_fee_bps: intBetween(0, 10_000),
    /** GET /quotes/{id} once the quote has expired: the quote as stored, or 4xx quote_expired (spec: not shown). */
    quote_read_after_expiry: enumOf(['quote', 'quote_expired']),
    /** How long an emailed export OTP stays valid (spec: not shown); once used by complete-export it stays valid as export-status session proof. */
    otp_validity_ms: posInt(),
    /** POST /public/initiate-export per account: most OTP emails per sliding window of sim time (spec: thresholds not shown). */
    public_initiate_per_account: obj({ max: posInt(), window_ms: posInt() }),
    /** Public export endpoints together, per client IP: most requests per sliding window of sim time (spec: thresholds not shown). */
    public_per_ip: obj({ max: posInt(), window_ms: posInt() }),
    /** Sim time from an export's start to its first sweep; keys go out once every wallet is derived and no trade, zap or cancel of the account is in flight. */
    export_sweep_ms: nonNegInt(),
    /** Forward compatibility: every JSON object of a /v1 answer carries an extra `x_swapsim_extension` field a client must ignore. */
    extra_response_fields: bool(),
    /** Forward compatibility: some published events are followed by a `swapsim.unknown_event` a client must ignore (drawn per event). */
    unknown_event_types: bool(),
    /** Wrong codes one emailed OTP (recovery claim, export completion) survives; the last one burns it until a fresh OTP is sent (spec: thresholds not shown). */
    otp_max_attempts: posInt(),
    /**
     * Order in which webhook deliveries created in one sim instant are dispatched (spec: global order not guaranteed;
     * within an account best-effort by created_at_ms): `in_order` (creation order), `shuffle_across_accounts`
     * (accounts interleaved at random, each account's own order kept), `best_effort` (that, plus occasional
     * swaps of adjacent deliveries of one account). Drawn from the `webhook-order` stream.
     */
    webhook_delivery_order: enumOf(WEBHOOK_DELIVERY_ORDERS),
    /**
     * Bytes of a webhook delivery body, signed as sent (spec: formatting not shown; "use the raw body as received"):
     * `compact` (JSON.stringify), `spaced` (newlines, indentation, spaces after `:` and `,`), `escaped` (non-ASCII
     * as `\uXXXX`, `/` as `\/`), `mixed` (both). The feed (GET /events) is always compact.
     */
    webhook_body_style: enumOf(WEBHOOK_BODY_STYLES),
  });
}

const RANGES = ['execution.fill_ms', 'poll_after_ms', 'cancel_poll_after_ms', 'spread_bps', 'solver_latency_ms', 'rfq_ttl_ms'] as const;

/** The whole profile, strict: unknown keys, missing keys and out-of-range values are errors. */
export const profileSchema = build(false).superRefine((p, ctx) => {
  for (const path of RANGES) {
    const r = path.split('.').reduce<any>((o, k) => o[k], p) as { min: number; max: number };
    if (r.min > r.max)
      ctx.addIssue({ code: 'custom', path: [...path.split('.'), 'min'], message: `must not exceed ${path}.max (${r.max})` });
  }
  const total_ms = p.webhook_retry_schedule_ms.reduce((a, b) => a + b, 0);
  if (total_ms > p.webhook_retry_window_ms) {
    ctx.addIssue({
      code: 'custom',
      path: ['webhook_retry_schedule_ms'],
      message: `delays add up to ${total_ms} ms, past webhook_retry_window_ms (${p.webhook_retry_window_ms})`,
    });
  }
});

/** Every setting (profile.ts holds the default). */
export type Profile = z.output<typeof profileSchema>;

/** A user file: any subset of the profile, at any depth; unknown keys are still errors. */
export const partialProfileSchema = build(true) as unknown as z.ZodType<DeepPartial<Profile>>;

export type DeepPartial<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

export class ProfileError extends Error {
  constructor(
    message: string,
    readonly issues: string[],
  ) {
    super(message);
    this.name = 'ProfileError';
  }
}

/** One line per issue, `path: message` (e.g. `chains.btc.block_ms: must be a positive integer`). */
export function formatIssues(error: z.ZodError): string[] {
  return error.issues.flatMap((i): string[] => {
    const path = i.path.map(String).join('.') || '(profile)';
    if (i.code === 'unrecognized_keys') return i.keys.map((k) => `${[...i.path.map(String), k].join('.')}: unknown setting`);
    return [`${path}: ${i.message}`];
  });
}
