// The seeded `adversarial` profile: every "not shown" setting whose alternatives are safe is drawn per
// seed among plausible alternatives, so a client tested against many seeds depends on none of them.
import { createRng, type Rng } from '../../sim/rng.ts';
import {
  DEFAULT_PROFILE,
  LIFECYCLE_ERROR_CODES,
  RATE_LIMIT_ALGORITHMS,
  WEBHOOK_BODY_STYLES,
  WEBHOOK_DELIVERY_ORDERS,
  type Profile,
} from '../profile.ts';

const HOUR = 3_600_000;
/** How many lifecycle codes there were when their statuses were drawn from the profile's own stream. */
const LEGACY_STATUS_DRAWS = 18;

/** An increasing retry schedule (5..10 retries) whose delays add up to at most `window_ms`. */
function retrySchedule(rng: Rng, window_ms: number): number[] {
  const count = rng.int(5, 10);
  const out: number[] = [];
  let delay_ms = rng.int(5, 60) * 1_000;
  let total_ms = 0;
  for (let i = 0; i < count && total_ms + delay_ms <= window_ms; i++) {
    out.push(delay_ms);
    total_ms += delay_ms;
    delay_ms = Math.round(delay_ms * (1.5 + rng.next() * 2.5));
  }
  return out;
}

/** Deterministic per seed: the same seed always gives the same profile, named `adversarial-<seed>`. */
export function adversarialProfile(seed: string | number): Profile {
  const rng = createRng(seed).fork('profile');
  const p: Profile = structuredClone(DEFAULT_PROFILE);
  p.name = `adversarial-${seed}`;
  for (const code of LIFECYCLE_ERROR_CODES) {
    const status = DEFAULT_PROFILE.lifecycle_error_status[code];
    // A stream per code, so a code added to the registry moves no other code's status and no setting below.
    const draw = rng.fork(`lifecycle_error_status/${code}`);
    // The 5xx defaults (broadcast, confirmation) stay server-side failures or become a plain 422.
    p.lifecycle_error_status[code] = status >= 500 ? draw.pick([status, 502, 503, 504, 422]) : draw.pick([400, 409, 410, 422]);
  }
  // The 18 draws the statuses once took from this stream, still taken, so every setting drawn below stays
  // what it was for every seed (as for rate_limit_retry_after's draw below).
  for (let i = 0; i < LEGACY_STATUS_DRAWS; i++) rng.next();
  p.error_type_by_status = {
    '4xx': 'invalid_request', // the only type the spec names
    '401': rng.pick(['authentication_error', 'invalid_request', 'unauthorized']),
    '403': rng.pick(['permission_error', 'invalid_request', 'forbidden']),
    '404': rng.pick(['invalid_request', 'not_found', 'not_found_error']),
    '409': rng.pick(['conflict', 'invalid_request', 'conflict_error']),
    '422': rng.pick(['invalid_request', 'validation_error', 'unprocessable_entity']),
    '429': rng.pick(['rate_limit_error', 'rate_limited', 'invalid_request']),
    '5xx': rng.pick(['api_error', 'server_error', 'internal_error']),
  };
  // The spec's limits table: a 429 carries Retry-After. A profile varies only what the spec leaves open, so this
  // is not drawn; the draw stays, so every setting drawn after it is what it was for every seed.
  rng.chance(0.5);
  p.rate_limit_retry_after = true;
  for (const [chain, timing] of Object.entries(DEFAULT_PROFILE.chains)) {
    // Finality threshold within ±50% of the documented one; block times stay (they are chain facts).
    const factor = 0.5 + rng.next();
    p.chains[chain] = {
      block_ms: timing.block_ms,
      finality_confirmations: Math.max(1, Math.round(timing.finality_confirmations * factor)),
    };
  }
  p.delete_destination_status = rng.pick([200, 204] as const);
  p.deactivated_allows_export = rng.chance(0.5);
  p.webhook_retry_schedule_ms = retrySchedule(rng, 72 * HOUR);
  p.webhook_inactive_abandons = rng.chance(0.5);
  p.activity_order = rng.pick(['asc', 'desc'] as const);
  p.execution = { fill_ms: { min: rng.int(50, 500), max: rng.int(1_000, 5_000) }, settle_initiate_ms: rng.int(100, 2_000) };
  p.reorg_after_ms = rng.int(5, 120) * 1_000;
  p.orphan_status = rng.pick(['settled', 'pending_settle'] as const);
  p.resolve_native_kind = rng.chance(0.5);
  p.cancel_broadcast_ms = rng.int(500, 10_000);
  p.spread_bps = { min: rng.int(1, 10), max: rng.int(20, 80) };
  // Latency stays under the RFQ's default 1000 ms TTL, or default-TTL RFQs would never be quoted.
  p.solver_latency_ms = { min: rng.int(10, 200), max: rng.int(400, 900) };
  p.quote_ttl_fraction = rng.pick([0.75, 0.9, 1]);
  p.size_out_of_bounds_error = rng.pick(['insufficient_liquidity', 'invalid_parameter'] as const);
  p.quote_read_after_expiry = rng.pick(['quote', 'quote_expired'] as const);
  p.extra_response_fields = rng.chance(0.5);
  p.unknown_event_types = rng.chance(0.5);
  // Drawn last, so the draws above stay what they were for every seed.
  p.otp_max_attempts = rng.pick([3, 5, 10]);
  p.webhook_delivery_order = rng.pick(WEBHOOK_DELIVERY_ORDERS);
  p.deposit_confirmation_steps = rng.pick(['at_finality', 'per_block'] as const);
  p.rate_limit_algorithm = rng.pick(RATE_LIMIT_ALGORITHMS);
  // A stream of its own: forking never draws from `rng`, so no setting above or appended later moves.
  p.webhook_body_style = rng.fork('webhook_body_style').pick(WEBHOOK_BODY_STYLES);
  return p;
}
