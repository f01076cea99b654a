// The HTTP fault choke point: every authenticated /v1 request passes here once, after auth and rate
// limits. `http_status` answers without running the handler; `lose_response` runs it, then loses the reply.
import type { World } from '../world.ts';
import { ApiError } from './errors.ts';

/** What the route wrapper does after the handler ran: answer normally, or lose the reply. */
export type LostReply = 'error_500' | 'reset';

const ACCEPTS = ['http_status', 'lose_response'];

/**
 * Fires the `http` rules for one request. `match.path` compares against the request path as the client
 * sent it, `/v1` included (e.g. `/v1/accounts/acc_…`, wildcard `/v1/accounts*`); `match.method` is
 * case-insensitive. Throws the faulted status; returns how to lose the reply, or null.
 */
export function httpFault(world: World, method: string, path: string, account_id: string | undefined): LostReply | null {
  // The cheap exit keeps the hot path at one call when no rule exists.
  if (!world.sim.faults.has('http')) return null;
  const fired = world.sim.faults.fire('http', { method, path: `/v1${path}`, account_id, accepts: ACCEPTS }, world.sim.now_ms());
  let lost: LostReply | null = null;
  for (const rule of fired) {
    const effect = rule.effect;
    if ('http_status' in effect) {
      if (effect.http_status === 429) {
        const headers = effect.retry_after === false ? undefined : { 'Retry-After': '1' };
        throw new ApiError('rate_limited', 'rate limit exceeded', { headers });
      }
      if (effect.http_status === 503) throw new ApiError('service_unavailable', 'the service is temporarily unavailable; retry later');
      throw new ApiError('upstream_error', 'the request could not be completed; retry it (with the same Idempotency-Key for writes)');
    }
    if ('lose_response' in effect) lost = (effect as { mode?: LostReply }).mode ?? 'error_500';
  }
  return lost;
}

/** The 500 a client sees in place of a lost reply (the request did take effect). */
export function lostReplyError(): ApiError {
  return new ApiError('upstream_error', 'the request could not be completed; retry it (with the same Idempotency-Key for writes)');
}
