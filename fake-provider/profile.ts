// Behaviour-profile settings: every point where the spec says "not shown" is a named setting here,
// with the default swapsim documents in docs/profile.md (the adversarial profile and files: profiles/).

export const LIFECYCLE_ERROR_CODES = [
  'rfq_expired',
  'quote_expired',
  'quote_not_firm',
  'insufficient_balance',
  'insufficient_liquidity',
  'credit_in_use',
  'account_not_operable',
  'execution_failed',
  'settlement_failed',
  'settlement_timeout',
  'settlement_orphaned',
  'deposit_insufficient_confirmations',
  'deposit_flagged',
  'min_amount_out_not_met',
  'zap_expired',
  'from_asset_mismatch',
  'broadcast_failed',
  'confirmation_timeout',
] as const;
export type LifecycleErrorCode = (typeof LIFECYCLE_ERROR_CODES)[number];

export interface ChainTiming {
  /** Time between blocks, i.e. between confirmations. */
  block_ms: number;
  /** Confirmations at which a deposit or settlement counts as final. */
  finality_confirmations: number;
}

export const RATE_LIMIT_ALGORITHMS = ['token_bucket', 'fixed_window'] as const;
export type RateLimitAlgorithm = (typeof RATE_LIMIT_ALGORITHMS)[number];

export interface Profile {
  name: string;
  /** HTTP status of the lifecycle error codes whose status the spec leaves open. */
  lifecycle_error_status: Record<LifecycleErrorCode, number>;
  /** `error.type` for each HTTP status class (the spec names only `invalid_request`). */
  error_type_by_status: Record<'4xx' | '401' | '403' | '404' | '409' | '422' | '429' | '5xx', string>;
  /** Whether 429 responses carry `Retry-After` (the spec says they do; real proxies sometimes drop it). */
  rate_limit_retry_after: boolean;
  /**
   * How "N requests per second per API key" is counted (spec: not shown). `token_bucket` (default): a
   * bucket of N tokens refilled at N per second, so an evenly spaced client at exactly N/s is never refused
   * whatever its jitter, and a burst gets at most N at once. `fixed_window` (adversarial, as many proxies
   * do it): N per 1 s window starting at the key's first request after the last window ended; an evenly
   * spaced client at exactly N/s sees 429s whenever jitter puts N+1 requests in one window.
   */
  rate_limit_algorithm: RateLimitAlgorithm;
  /** Per-chain block time and finality threshold. */
  chains: Record<string, ChainTiming>;
  /** Sim time from account creation to each chain's `account.wallet_created`. */
  wallet_derivation_ms: number;
  /** Sim time source screening of a deposit takes (runs beside confirmations). */
  deposit_screening_ms: number;
  /**
   * How a deposit's confirmations step its machine (spec: not shown; only the finality threshold matters to
   * the API): `at_finality`, one step at the finality block carrying every block (one timer per deposit);
   * `per_block`, one timer and one transition per block (the timeline shows each). Either way GET
   * /_sim/deposits shows the confirmations the chain has at that sim time, and verification happens then.
   */
  deposit_confirmation_steps: 'at_finality' | 'per_block';
  /** How long a deposit address is monitored after it is issued. */
  deposit_address_ttl_ms: number;
  /** Partner screening window, from the `deposit.partner_screening` event's created_at_ms. */
  partner_window_ms: number;
  /** Status and body of DELETE destination: 204 empty, or 200 with `{destination, deleted: true}`. */
  delete_destination_status: 200 | 204;
  /** Whether a deactivated account may be reactivated or exported (spec: not shown). */
  deactivated_allows_export: boolean;
  /** Webhook handler timeout per attempt. */
  webhook_timeout_ms: number;
  /** Delay before each retry, after the first attempt; retries stop once 72 h have passed. */
  webhook_retry_schedule_ms: number[];
  /** Total retry window for a delivery. */
  webhook_retry_window_ms: number;
  /** Brand part of the webhook header names: `<prefix>-Webhook-Id`, … */
  webhook_header_prefix: string;
  /** Sim delay a `{webhook: 'reorder'}` fault puts on an attempt, so deliveries due meanwhile overtake it. */
  webhook_reorder_delay_ms: number;
  /**
   * 0: the sim clock waits for each attempt's answer at the instant it is sent, one account's POSTs one after
   * another. N > 0 (without a journal): the POST leaves at once and its answer is applied N ms of sim time
   * later; the clock runs on meanwhile, so one receiver's answers overlap in wall time, a duplicate's two copies
   * included (spec: handler timeout and ordering not shown; `swapsim verify` uses 5 min here, so a slow handler
   * costs its wall time once per burst, not once per event).
   */
  webhook_answer_slot_ms: number;
  /** Whether an attempt falling due while its webhook is inactive ends the delivery `failed`, unsent (spec: not shown). */
  webhook_inactive_abandons: boolean;
  /**
   * CIDR blocks a webhook may connect to (spec: not shown). swapsim's own listening port on a local address and
   * any `/_sim` path are refused whatever this says (docs/shared-server.md).
   */
  webhook_allowed_destinations: string[];
  /** CIDR blocks a webhook never connects to, even inside the allowed ones (link-local cloud metadata by default). */
  webhook_denied_destinations: string[];
  /** POSTs in flight at once to one webhook; more wait in its queue (a slow receiver slows only its own organization). */
  webhook_max_in_flight: number;
  /** POSTs in flight at once over all webhooks of the world. */
  webhook_max_in_flight_total: number;
  /** Attempts waiting for one webhook, at most; an attempt past it fails at once (http_status 0) and is retried. */
  webhook_max_queued: number;
  /** Order of GET /accounts/{account_id}/activity (spec: not shown); the event feed is always oldest first. */
  activity_order: 'asc' | 'desc';
  /** Market maker timing for trades and zaps: commit (fill) delay range, then the wait before settlement is initiated. */
  execution: { fill_ms: { min: number; max: number }; settle_initiate_ms: number };
  /** How long a settlement may take past its legs' finality before `settlement_timeout` fails it (the fault's stage). */
  settlement_timeout_ms: number;
  /** After a `{reorg}` fault: delay from settlement to the orphaning of the leg. The leg reconfirms one finality later. */
  reorg_after_ms: number;
  /** Status a settled trade or zap shows while a leg is orphaned (spec: not shown): keep `settled`, or show `pending_settle`. */
  orphan_status: 'settled' | 'pending_settle';
  /** Bounds on `poll_after_ms`, which otherwise follows the next scheduled step of the entity. */
  poll_after_ms: { min: number; max: number };
  /** Idempotency-Key retention. */
  idempotency_retention_ms: number;
  /** Idempotency records one organization keeps at most (its oldest go first): the memory bound under fresh keys. */
  idempotency_max_records: number;
  /** Events are kept this long (sim time) for GET /events, activity and replay, then swept (spec: at least 30 days). */
  event_retention_ms: number;
  /** A webhook delivery and its attempt log are kept this long after the delivery ends, then swept (spec: not shown); never past its event. */
  webhook_delivery_retention_ms: number;
  /** Failed authentications (a bearer key no organization holds) per client address per window, on sim time. */
  auth_failures_per_ip: { max: number; window_ms: number };
  /** Fee defaults for new organizations. */
  default_platform_fee_bps: string;
  default_integrator_fee_bps: string;
  /** GET /resolve: accept `kind=native` with `chain` (spec: other kinds not shown); false → invalid_enum. */
  resolve_native_kind: boolean;
  /** PUT /symbols: most mappings one request may carry (spec: not shown); more → invalid_parameter. */
  symbols_batch_max: number;
  /**
   * The USD price walk, one step per sim minute: a uniform move of at most `step_bps_max`
   * (`stable_step_bps_max` for stablecoins) plus a pull of `reversion_ppm` per million towards the
   * last price set, which keeps long settles within a few percent of it.
   */
  price_walk: { step_bps_max: number; stable_step_bps_max: number; reversion_ppm: number };
  /** How far before the world's start candles reach (the walk is backfilled that far, on demand). */
  market_history_ms: number;
  /** GET /markets/candles: most candles one request may span (spec: not shown); more → invalid_parameter. */
  candles_max_per_request: number;
  /** Sim time from POST /cancels to the cancel's broadcast (pending → sent; spec: not shown). */
  cancel_broadcast_ms: number;
  /** Bounds on a cancel's poll_after_ms (the time to its next expected step, clamped; spec: not shown). */
  cancel_poll_after_ms: { min: number; max: number };
  /** Market-maker spread drawn per RFQ from the `spreads` stream, whole basis points of the output, inclusive bounds. */
  spread_bps: { min: number; max: number };
  /** Solver latency drawn per RFQ from the `solvers` stream: a quote is ready this long after the RFQ is created. */
  solver_latency_ms: { min: number; max: number };
  /** Quote expiry as a fraction of the RFQ TTL after the RFQ's creation (spec: within the TTL); never before the quote exists. */
  quote_ttl_fraction: number;
  /** POST /rfqs `ttl_ms` and `wait_ms` bounds (spec: defaults 1000 and 250, bounds not shown); outside → invalid_parameter. */
  rfq_ttl_ms: { min: number; max: number };
  rfq_wait_ms_max: number;
  /** Default liquidity of every pair, a USD decimal (the control plane can set another per pair). */
  pair_liquidity_usd: string;
  /** Notional outside 1..100000 USD: the spec allows `insufficient_liquidity` or a validation error. */
  size_out_of_bounds_error: 'insufficient_liquidity' | 'invalid_parameter';
  /** HYBRID_SOLANA_TO_INTENTS: `min_intermediate_out` is the notional in Solana USDC less this haircut. */
  hybrid_intermediate_haircut_bps: number;
  /** Most platform + integrator fee a quote may carry, whole bps (spec: not shown); more → invalid_parameter. */
  max_total_fee_bps: number;
  /** GET /quotes/{id} once the quote has expired: the quote as stored, or 4xx quote_expired (spec: not shown). */
  quote_read_after_expiry: 'quote' | 'quote_expired';
  /** How long an emailed export OTP stays valid (spec: not shown); once used by complete-export it stays valid as export-status session proof. */
  otp_validity_ms: number;
  /** POST /public/initiate-export per account: most OTP emails per sliding window of sim time (spec: thresholds not shown). */
  public_initiate_per_account: { max: number; window_ms: number };
  /** Public export endpoints together, per client IP: most requests per sliding window of sim time (spec: thresholds not shown). */
  public_per_ip: { max: number; window_ms: number };
  /** Sim time from an export's start to its first sweep; keys go out once every wallet is derived and no trade, zap or cancel of the account is in flight. */
  export_sweep_ms: number;
  /** Forward compatibility: every JSON object of a /v1 answer carries an extra `x_swapsim_extension` field a client must ignore. */
  extra_response_fields: boolean;
  /** Forward compatibility: some published events are followed by a `swapsim.unknown_event` a client must ignore (drawn per event). */
  unknown_event_types: boolean;
  /** Wrong codes one emailed OTP (recovery claim, export completion) survives; the last one burns it until a fresh OTP is sent (spec: thresholds not shown). */
  otp_max_attempts: number;
  /**
   * Order in which webhook deliveries created in one sim instant are dispatched (spec: global order not guaranteed;
   * within an account best-effort by created_at_ms): `in_order` (creation order), `shuffle_across_accounts`
   * (accounts interleaved at random, each account's own order kept), `best_effort` (that, plus occasional
   * swaps of adjacent deliveries of one account). Drawn from the `webhook-order` stream.
   */
  webhook_delivery_order: WebhookDeliveryOrder;
}

export const WEBHOOK_DELIVERY_ORDERS = ['in_order', 'shuffle_across_accounts', 'best_effort'] as const;
export type WebhookDeliveryOrder = (typeof WEBHOOK_DELIVERY_ORDERS)[number];

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const DEFAULT_PROFILE: Profile = {
  name: 'default',
  lifecycle_error_status: {
    rfq_expired: 410,
    quote_expired: 410,
    quote_not_firm: 422,
    insufficient_balance: 422,
    insufficient_liquidity: 422,
    credit_in_use: 409,
    account_not_operable: 409,
    execution_failed: 422,
    settlement_failed: 422,
    settlement_timeout: 422,
    settlement_orphaned: 422,
    deposit_insufficient_confirmations: 422,
    deposit_flagged: 422,
    min_amount_out_not_met: 422,
    zap_expired: 422,
    from_asset_mismatch: 422,
    broadcast_failed: 502,
    confirmation_timeout: 504,
  },
  error_type_by_status: {
    '4xx': 'invalid_request',
    '401': 'authentication_error',
    '403': 'permission_error',
    '404': 'invalid_request',
    '409': 'conflict',
    '422': 'invalid_request',
    '429': 'rate_limit_error',
    '5xx': 'api_error',
  },
  rate_limit_retry_after: true,
  rate_limit_algorithm: 'token_bucket',
  chains: {
    'evm:1': { block_ms: 12_000, finality_confirmations: 12 },
    'evm:42161': { block_ms: 250, finality_confirmations: 20 },
    btc: { block_ms: 10 * MINUTE, finality_confirmations: 3 },
    solana: { block_ms: 400, finality_confirmations: 32 },
    zec: { block_ms: 75_000, finality_confirmations: 10 },
  },
  wallet_derivation_ms: 2_000,
  deposit_screening_ms: 3_000,
  deposit_confirmation_steps: 'at_finality',
  deposit_address_ttl_ms: 7 * 24 * HOUR,
  partner_window_ms: 10_000,
  delete_destination_status: 204,
  deactivated_allows_export: true,
  webhook_timeout_ms: 10_000,
  webhook_retry_schedule_ms: [30_000, 2 * MINUTE, 10 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR, 24 * HOUR],
  webhook_retry_window_ms: 72 * HOUR,
  webhook_header_prefix: 'Svc',
  webhook_reorder_delay_ms: 5_000,
  webhook_answer_slot_ms: 0,
  webhook_inactive_abandons: true,
  webhook_allowed_destinations: ['0.0.0.0/0', '::/0'],
  webhook_denied_destinations: ['169.254.0.0/16', 'fe80::/10'],
  webhook_max_in_flight: 8,
  webhook_max_in_flight_total: 256,
  webhook_max_queued: 2_000,
  activity_order: 'asc',
  execution: { fill_ms: { min: 200, max: 1_500 }, settle_initiate_ms: 500 },
  settlement_timeout_ms: 10 * MINUTE,
  reorg_after_ms: 30_000,
  orphan_status: 'settled',
  poll_after_ms: { min: 250, max: 60_000 },
  idempotency_retention_ms: 24 * HOUR,
  auth_failures_per_ip: { max: 100, window_ms: MINUTE },
  idempotency_max_records: 20_000,
  event_retention_ms: 30 * DAY,
  webhook_delivery_retention_ms: 30 * DAY,
  default_platform_fee_bps: '10',
  default_integrator_fee_bps: '0',
  resolve_native_kind: true,
  symbols_batch_max: 1000,
  price_walk: { step_bps_max: 50, stable_step_bps_max: 2, reversion_ppm: 10_000 },
  market_history_ms: 30 * 24 * HOUR,
  candles_max_per_request: 1000,
  cancel_broadcast_ms: 2_000,
  cancel_poll_after_ms: { min: 500, max: 60_000 },
  spread_bps: { min: 5, max: 30 },
  solver_latency_ms: { min: 40, max: 900 },
  quote_ttl_fraction: 1,
  rfq_ttl_ms: { min: 100, max: 60_000 },
  rfq_wait_ms_max: 10_000,
  pair_liquidity_usd: '100000',
  size_out_of_bounds_error: 'insufficient_liquidity',
  hybrid_intermediate_haircut_bps: 100,
  max_total_fee_bps: 5000,
  quote_read_after_expiry: 'quote',
  otp_validity_ms: 10 * MINUTE,
  public_initiate_per_account: { max: 5, window_ms: HOUR },
  public_per_ip: { max: 60, window_ms: MINUTE },
  export_sweep_ms: 1_000,
  extra_response_fields: false,
  unknown_event_types: false,
  otp_max_attempts: 5,
  webhook_delivery_order: 'in_order',
};
