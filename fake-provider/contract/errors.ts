// The one error catalog: every error code of API v1 once, with its HTTP status (or the profile setting
// where the spec leaves the status open), the one ApiError class, and the envelope it renders to.
import { LIFECYCLE_ERROR_CODES, type LifecycleErrorCode, type Profile } from '../profile.ts';

const FIXED_STATUS = {
  parameter_missing: 400,
  invalid_parameter: 400,
  invalid_enum: 400,
  ui_precision_exceeded: 400,
  invalid_asset_key: 400,
  invalid_symbol: 400,
  unsupported_pair: 400,
  forbidden_asset: 403,
  asset_not_supported: 404,
  not_available: 404,
  destination_suspended: 403,
  symbol_not_found: 404,
  symbol_conflict: 409,
  account_not_found: 404,
  idempotency_key_reuse: 409,
  quote_consumed: 409,
  rate_limited: 429,
  email_not_configured: 422,
  invalid_otp: 401,
  otp_expired: 401,
  account_already_exported: 409,
  export_not_found: 404,
  recovery_not_found: 404,
  recovery_already_claimed: 409,
  credit_already_consumed: 409,
  destination_screening_failed: 403,
  // Codes the spec implies but does not name (documented in docs/control-plane.md and docs/profile.md as swapsim's choices):
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  route_not_found: 404,
  // Control plane: a snapshot cannot copy outside work in flight (a held request, a webhook answer): retry later.
  snapshot_busy: 409,
  // POST /_sim/clock/speed on a virtual clock, which has no speed (it moves only when advanced).
  clock_not_realtime: 409,
  payload_too_large: 413,
  // Node's own refusals, answered in the envelope (http/limits.ts): headers past the limit, a request too slow.
  headers_too_large: 431,
  request_timeout: 408,
  unsupported_media_type: 415,
  deposit_window_closed: 409,
  // A tenant's or the server's budget of organizations or accounts is spent (profile `max_organizations`,
  // `org_max_accounts`; docs/shared-server.md): refused by policy, like 403's other uses in the spec.
  quota_exceeded: 403,
  // POST /deposits/{id}/flag: the spec answers 422 (not 400) for missing or invalid body fields.
  invalid_flag_request: 422,
  // DELETE and the trading endpoints name a destination_id the spec gives no not-found code for.
  destination_not_found: 404,
  // The webhook endpoints answer 404 for an unknown (or another organization's) webhook; the spec names no code.
  webhook_not_found: 404,
  // A webhook URL pointing at swapsim itself (its own port, /_sim), a denied block or outside the allowed ones.
  webhook_url_forbidden: 400,
  // GET /cancels/{cancel_id} for an unknown (or another organization's) cancel; the spec names no code.
  cancel_not_found: 404,
  // GET /rfqs/{id} and the quote endpoints answer 404 for unknown (or another organization's) ids; the spec names no code.
  rfq_not_found: 404,
  quote_not_found: 404,
  // GET /trades/{id} of an unknown or foreign trade: the spec names no code.
  trade_not_found: 404,
  // GET /zaps/{zap_id} of an unknown or another organization's zap: the spec says 404 but names no code.
  zap_not_found: 404,
  // Fault rules on `/v1` (target `http`): a simulated upstream failure (also what a lost reply shows) and an outage.
  upstream_error: 500,
  service_unavailable: 503,
  internal_error: 500,
  not_implemented: 501,
  // The dashboard's trigger runs (/_sim/ui/triggers/{name}/runs, docs/ui.md): a server started without a trigger
  // runner (the library's createSim; `swapsim serve` has one), and a run still under way in that organization.
  trigger_runner_missing: 501,
  trigger_run_in_progress: 409,
} as const;

type FixedCode = keyof typeof FIXED_STATUS;
export type ErrorCode = FixedCode | LifecycleErrorCode;

export const ERROR_CODES: readonly ErrorCode[] = [...(Object.keys(FIXED_STATUS) as FixedCode[]), ...LIFECYCLE_ERROR_CODES];

export function statusOf(code: ErrorCode, profile: Profile): number {
  if (code in FIXED_STATUS) return FIXED_STATUS[code as FixedCode];
  return profile.lifecycle_error_status[code as LifecycleErrorCode];
}

function errorTypeOf(status: number, profile: Profile): string {
  const t = profile.error_type_by_status;
  if (status >= 500) return t['5xx'];
  const key = String(status) as keyof typeof t;
  return t[key] ?? t['4xx'];
}

export interface ErrorOptions {
  param?: string;
  details?: Record<string, unknown>;
  /** Extra response headers, e.g. Retry-After. */
  headers?: Record<string, string>;
}

/** The only error the service throws on purpose; the error middleware renders it as the envelope. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly param?: string;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;
  constructor(code: ErrorCode, message: string, opts: ErrorOptions = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.param = opts.param;
    this.details = opts.details;
    this.headers = opts.headers;
  }
}

export interface ErrorEnvelope {
  request_id: string;
  error: { type: string; code: string; message: string; param?: string; request_id: string; details?: Record<string, unknown> };
}

export function envelope(err: ApiError, request_id: string, profile: Profile): { status: number; body: ErrorEnvelope } {
  const status = statusOf(err.code, profile);
  const error: ErrorEnvelope['error'] = { type: errorTypeOf(status, profile), code: err.code, message: err.message, request_id };
  if (err.param !== undefined) error.param = err.param;
  if (err.details !== undefined) error.details = err.details;
  return { status, body: { request_id, error } };
}
