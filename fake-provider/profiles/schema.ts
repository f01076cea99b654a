// The behaviour-profile schema (zod): every field of `Profile`, strict, with range checks, plus the
// partial form a user file uses (any subset of the default, nested objects merged field by field).
import { z } from 'zod';
import { isCidr } from '../resources/webhooks/destinations.ts';
import { DEFAULT_PROFILE, LIFECYCLE_ERROR_CODES, RATE_LIMIT_ALGORITHMS, WEBHOOK_DELIVERY_ORDERS, type LifecycleErrorCode, type Profile } from '../profile.ts';

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
const bpsString = () => z.string({ error: 'must be a string of whole basis points' }).regex(/^(0|[1-9][0-9]{0,4})$/, { error: 'must be a string of whole basis points' });

/** Builds the schema; `partial` makes every field (at every depth) optional, for user files. */
function build(partial: boolean) {
  // Typed as the strict form; the partial form's type is only needed as DeepPartial<Profile> (below).
  const obj = <S extends z.ZodRawShape>(shape: S) => (partial ? z.strictObject(shape).partial() : z.strictObject(shape)) as unknown as z.ZodObject<S, z.core.$strict>;
  // Range objects: the min ≤ max check runs on the merged profile only, where both ends are known.
  const range = (item: () => z.ZodNumber) => obj({ min: item(), max: item() });
  const statuses = Object.fromEntries(LIFECYCLE_ERROR_CODES.map((c) => [c, intBetween(400, 599)])) as Record<LifecycleErrorCode, z.ZodNumber>;
  const chainTiming = obj({ block_ms: posInt(), finality_confirmations: posInt() });
  const chains = Object.fromEntries(Object.keys(DEFAULT_PROFILE.chains).map((k) => [k, chainTiming])) as Record<string, typeof chainTiming>;
  const typeName = () => z.string({ error: 'must be a snake_case error type' }).regex(/^[a-z][a-z0-9_]*$/, { error: 'must be a snake_case error type' });
  return obj({
    name: z.string({ error: 'must be a non-empty string' }).min(1, { error: 'must be a non-empty string' }),
    lifecycle_error_status: obj(statuses),
    error_type_by_status: obj({ '4xx': typeName(), '401': typeName(), '403': typeName(), '404': typeName(), '409': typeName(), '422': typeName(), '429': typeName(), '5xx': typeName() }),
    rate_limit_retry_after: bool(),
    rate_limit_algorithm: enumOf(RATE_LIMIT_ALGORITHMS),
    chains: obj(chains),
    wallet_derivation_ms: nonNegInt(),
    deposit_screening_ms: nonNegInt(),
    deposit_confirmation_steps: enumOf(['at_finality', 'per_block']),
    deposit_address_ttl_ms: posInt(),
    partner_window_ms: nonNegInt(),
    delete_destination_status: z.union([z.literal(200), z.literal(204)], { error: 'must be 200 or 204' }),
    deactivated_allows_export: bool(),
    webhook_timeout_ms: posInt(),
    webhook_retry_schedule_ms: z.array(posInt(), { error: 'must be an array of positive integers' }).min(1, { error: 'must list at least one delay' }),
    webhook_retry_window_ms: posInt(),
    webhook_header_prefix: z.string({ error: 'must be a header-name token' }).regex(/^[A-Za-z0-9][A-Za-z0-9-]*$/, { error: 'must be a header-name token (letters, digits, -)' }),
    webhook_reorder_delay_ms: nonNegInt(),
    webhook_answer_slot_ms: nonNegInt(),
    webhook_inactive_abandons: bool(),
    webhook_allowed_destinations: cidrList(),
    webhook_denied_destinations: cidrList(),
    webhook_max_in_flight: intBetween(1, 1_000),
    webhook_max_in_flight_total: intBetween(1, 10_000),
    webhook_max_queued: intBetween(0, 1_000_000),
    activity_order: enumOf(['asc', 'desc']),
    execution: obj({ fill_ms: range(nonNegInt), settle_initiate_ms: nonNegInt() }),
    settlement_timeout_ms: posInt(),
    reorg_after_ms: nonNegInt(),
    orphan_status: enumOf(['settled', 'pending_settle']),
    poll_after_ms: range(nonNegInt),
    idempotency_retention_ms: posInt(),
    auth_failures_per_ip: obj({ max: posInt(), window_ms: posInt() }),
    idempotency_max_records: intBetween(1, 10_000_000),
    event_retention_ms: posInt(),
    webhook_delivery_retention_ms: posInt(),
    default_platform_fee_bps: bpsString(),
    default_integrator_fee_bps: bpsString(),
    resolve_native_kind: bool(),
    symbols_batch_max: posInt(),
    price_walk: obj({ step_bps_max: nonNegInt(), stable_step_bps_max: nonNegInt(), reversion_ppm: intBetween(0, 1_000_000) }),
    market_history_ms: nonNegInt(),
    candles_max_per_request: posInt(),
    cancel_broadcast_ms: nonNegInt(),
    cancel_poll_after_ms: range(nonNegInt),
    spread_bps: range(() => intBetween(0, 10_000)),
    solver_latency_ms: range(nonNegInt),
    quote_ttl_fraction: z.number({ error: 'must be a number in (0, 1]' }).gt(0, { error: 'must be a number in (0, 1]' }).lte(1, { error: 'must be a number in (0, 1]' }),
    rfq_ttl_ms: range(posInt),
    rfq_wait_ms_max: nonNegInt(),
    pair_liquidity_usd: z.string({ error: 'must be a USD decimal string' }).regex(/^(0|[1-9][0-9]*)(\.[0-9]+)?$/, { error: 'must be a USD decimal string' }),
    size_out_of_bounds_error: enumOf(['insufficient_liquidity', 'invalid_parameter']),
    hybrid_intermediate_haircut_bps: intBetween(0, 10_000),
    max_total_fee_bps: intBetween(0, 10_000),
    quote_read_after_expiry: enumOf(['quote', 'quote_expired']),
    otp_validity_ms: posInt(),
    public_initiate_per_account: obj({ max: posInt(), window_ms: posInt() }),
    public_per_ip: obj({ max: posInt(), window_ms: posInt() }),
    export_sweep_ms: nonNegInt(),
    extra_response_fields: bool(),
    unknown_event_types: bool(),
    otp_max_attempts: posInt(),
    webhook_delivery_order: enumOf(WEBHOOK_DELIVERY_ORDERS),
  });
}

const RANGES = ['execution.fill_ms', 'poll_after_ms', 'cancel_poll_after_ms', 'spread_bps', 'solver_latency_ms', 'rfq_ttl_ms'] as const;

/** The whole profile, strict: unknown keys, missing keys and out-of-range values are errors. */
export const profileSchema = build(false).superRefine((p, ctx) => {
  for (const path of RANGES) {
    const r = path.split('.').reduce<any>((o, k) => o[k], p) as { min: number; max: number };
    if (r.min > r.max) ctx.addIssue({ code: 'custom', path: [...path.split('.'), 'min'], message: `must not exceed ${path}.max (${r.max})` });
  }
  const total_ms = p.webhook_retry_schedule_ms.reduce((a, b) => a + b, 0);
  if (total_ms > p.webhook_retry_window_ms) {
    ctx.addIssue({ code: 'custom', path: ['webhook_retry_schedule_ms'], message: `delays add up to ${total_ms} ms, past webhook_retry_window_ms (${p.webhook_retry_window_ms})` });
  }
});

/** A user file: any subset of the profile, at any depth; unknown keys are still errors. */
export const partialProfileSchema = build(true) as unknown as z.ZodType<DeepPartial<Profile>>;

export type DeepPartial<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

// The schema's output must be exactly a Profile (a new Profile field without a schema entry fails tsc).
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _profile_matches: Exact<z.output<typeof profileSchema>, Profile> = true;
void _profile_matches;

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
  return error.issues.map((i): string[] => {
    const path = i.path.map(String).join('.') || '(profile)';
    if (i.code === 'unrecognized_keys') return i.keys.map((k) => `${[...i.path.map(String), k].join('.')}: unknown setting`);
    return [`${path}: ${i.message}`];
  }).flat();
}
