// Behaviour-profile settings: every point where the spec says "not shown" is a named setting here,
// with the default swapsim documents in docs/profile.md (the adversarial profile and files: profiles/). The
// type is the schema's (profiles/schema.ts), declared once.
import type { z } from 'zod';
import type { profileSchema } from './profiles/schema.ts';

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

/** One chain's block time and finality threshold (`profile.chains[chain]`). */
export type ChainTiming = Profile['chains'][string];

export const RATE_LIMIT_ALGORITHMS = ['token_bucket', 'fixed_window'] as const;
export type RateLimitAlgorithm = (typeof RATE_LIMIT_ALGORITHMS)[number];

/**
 * Every setting, as the schema declares it (profiles/schema.ts: the zod schema is the one declaration; each
 * field's documentation is there).
 */
export type Profile = z.output<typeof profileSchema>;

export const WEBHOOK_DELIVERY_ORDERS = ['in_order', 'shuffle_across_accounts', 'best_effort'] as const;
export type WebhookDeliveryOrder = (typeof WEBHOOK_DELIVERY_ORDERS)[number];

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

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
