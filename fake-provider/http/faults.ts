// The HTTP fault choke point: every authenticated /v1 request passes here once, after auth and rate
// limits. `http_status` answers without running the handler; `lose_response` runs it, then loses the reply;
// `delay_ms` holds the request on the sim clock and runs it (and answers) when the clock gets there.
import { defineStore, type World } from '../world.ts';
import { ApiError } from '../contract/errors.ts';

/** What the route wrapper does after the handler ran: answer normally, or lose the reply. */
type LostReply = 'error_500' | 'reset';

/** What the fired `http` rules ask of one request. */
export interface HttpFault {
  /** Sim time to hold the request before it runs; 0 runs it at once. */
  delay_ms: number;
  /** Answered (after any hold) in place of running the handler. */
  error: ApiError | null;
  lost: LostReply | null;
}

export const NO_HTTP_FAULT: HttpFault = Object.freeze({ delay_ms: 0, error: null, lost: null });

const ACCEPTS = ['http_status', 'lose_response', 'delay_ms'];

function statusError(effect: { http_status: 429 | 500 | 503; retry_after?: boolean }): ApiError {
  if (effect.http_status === 429) {
    const headers = effect.retry_after === false ? undefined : { 'Retry-After': '1' };
    return new ApiError('rate_limited', 'rate limit exceeded', { headers });
  }
  if (effect.http_status === 503) return new ApiError('service_unavailable', 'the service is temporarily unavailable; retry later');
  return lostReplyError();
}

/**
 * Fires the `http` rules for one request. `match.path` compares against the request path as the client
 * sent it, `/v1` included (e.g. `/v1/accounts/acc_…`, wildcard `/v1/accounts*`); `match.method` is
 * case-insensitive. Delays of several rules add up; the first status rule decides the error.
 */
export function httpFault(world: World, method: string, path: string, account_id: string | undefined): HttpFault {
  // The cheap exit keeps the hot path at one call when no rule exists.
  if (!world.sim.faults.has('http')) return NO_HTTP_FAULT;
  const fired = world.sim.faults.fire('http', { method, path: `/v1${path}`, account_id, accepts: ACCEPTS }, world.sim.now_ms());
  const out: HttpFault = { delay_ms: 0, error: null, lost: null };
  for (const { effect } of fired) {
    if ('http_status' in effect) out.error ??= statusError(effect);
    else if ('lose_response' in effect) out.lost = (effect as { mode?: LostReply }).mode ?? 'error_500';
    else if ('delay_ms' in effect) out.delay_ms += effect.delay_ms;
  }
  return out;
}

/** The 500 a client sees in place of a lost reply (the request did take effect). */
export function lostReplyError(): ApiError {
  return new ApiError('upstream_error', 'the request could not be completed; retry it (with the same Idempotency-Key for writes)');
}

/** Requests held by `delay_ms` rules: scheduler task id → how to answer it if the world goes away. */
const heldRequests = defineStore('http-held-requests', () => new Map<number, (err: ApiError) => void>());

/**
 * Runs `work` (the rest of a request: handler, idempotency, reply) as a scheduler task `delay_ms` of sim
 * time from now. The task lasts until `work` settles, so the request takes effect exactly at its due time,
 * before any later task: `clock/advance` or `clock/settle` releases it (in realtime mode, the wall clock).
 */
export function holdOnSimClock<T>(world: World, delay_ms: number, work: () => Promise<T>): Promise<T> {
  const held = heldRequests(world);
  return new Promise<T>((resolve, reject) => {
    const task_id = world.sim.scheduler.afterCall(delay_ms, 'http.delay', () => {
      held.delete(task_id);
      return work().then(resolve, reject);
    });
    held.set(task_id, reject);
  });
}

/**
 * Answers every held request `503 service_unavailable` without running it. Called when the world goes
 * away (`POST /_sim/reset`, server close): its clock will never reach them, and a client must not hang.
 */
export function dropHeldRequests(world: World): void {
  const held = heldRequests(world);
  for (const [task_id, reject] of held) {
    world.sim.scheduler.cancel(task_id);
    reject(
      new ApiError('service_unavailable', 'the simulation was reset or stopped while a delay_ms fault held this request; it did not run'),
    );
  }
  held.clear();
}
