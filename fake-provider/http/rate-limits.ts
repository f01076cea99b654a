// Per-API-key rate limits on wall time, as the spec defines them: reads, writes, and indicative/firm
// RFQs (which also count as writes). Limits come from the organization (per-org override). Wall time
// is an input a replay cannot re-derive, so a journaled run records each 429 verdict and a replay reuses it.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Organization, RateLimits, World } from '../world.ts';
import { ApiError } from './errors.ts';

export const DEFAULT_RATE_LIMITS: RateLimits = { reads: 100, writes: 20, indicative_rfqs: 10, firm_rfqs: 5 };

export type LimitClass = keyof RateLimits;

export interface RateLimiter {
  /** Consumes one point in each class; throws `rate_limited` (with Retry-After when enabled). */
  consume(org: Organization, api_key: string, classes: readonly LimitClass[]): Promise<void>;
}

// Shared, frozen answers: classifying a request allocates nothing.
const READS: readonly LimitClass[] = Object.freeze(['reads']);
const WRITES: readonly LimitClass[] = Object.freeze(['writes']);
const FIRM_RFQS: readonly LimitClass[] = Object.freeze(['firm_rfqs', 'writes']);
const INDICATIVE_RFQS: readonly LimitClass[] = Object.freeze(['indicative_rfqs', 'writes']);

export function classesFor(method: string, path: string, body: unknown): readonly LimitClass[] {
  if (method === 'GET' || method === 'HEAD') return READS;
  if (method === 'POST' && path === '/rfqs') {
    const mode = (body as { mode?: unknown } | undefined)?.mode;
    if (mode === 'firm') return FIRM_RFQS;
    if (mode === 'indicative') return INDICATIVE_RFQS;
  }
  return WRITES;
}

export function createRateLimiter(opts: { retry_after: () => boolean }): RateLimiter {
  // One limiter per (class, points): orgs with the same limit share it (keys are per API key anyway).
  const limiters = new Map<LimitClass, Map<number, RateLimiterMemory>>();
  const limiterFor = (cls: LimitClass, points: number): RateLimiterMemory => {
    let byPoints = limiters.get(cls);
    if (!byPoints) limiters.set(cls, (byPoints = new Map()));
    let l = byPoints.get(points);
    if (!l) {
      l = new RateLimiterMemory({ keyPrefix: `${cls}:${points}`, points, duration: 1 });
      byPoints.set(points, l);
    }
    return l;
  };
  const refused = (e: unknown, org: Organization, cls: LimitClass): never => {
    if (!(e instanceof RateLimiterRes)) throw e;
    const headers: Record<string, string> = {};
    if (opts.retry_after()) headers['Retry-After'] = String(Math.max(1, Math.ceil(e.msBeforeNext / 1000)));
    throw new ApiError('rate_limited', `rate limit exceeded for ${cls} (${org.rate_limits[cls]}/s per key)`, { headers });
  };
  const consumeClass = (org: Organization, api_key: string, cls: LimitClass): Promise<void> =>
    limiterFor(cls, org.rate_limits[cls]).consume(api_key).then(ACCEPTED, (e: unknown) => refused(e, org, cls));
  return {
    // Classes in order, each only once the previous one allowed the request; chained promises rather than
    // async functions, so a read (one class) costs the limiter's own promise and one reaction.
    consume(org, api_key, classes) {
      let allowed = consumeClass(org, api_key, classes[0]);
      for (let i = 1; i < classes.length; i++) allowed = allowed.then(() => consumeClass(org, api_key, classes[i]));
      return allowed;
    },
  };
}

const ACCEPTED = (): void => undefined;

/**
 * The limiter as the route wrapper calls it. Journaling: a 429 is recorded (`rate_limited` fact keyed by
 * request id); replaying: the recorded verdict decides and the wall-time limiter is not consulted.
 */
export function limitRequest(limiter: RateLimiter, world: World, request_id: string, org: Organization, api_key: string, classes: readonly LimitClass[]): Promise<void> {
  if (world.sim.journal.mode === 'off') return limiter.consume(org, api_key, classes);
  return limitJournaled(limiter, world, request_id, org, api_key, classes);
}

async function limitJournaled(limiter: RateLimiter, world: World, request_id: string, org: Organization, api_key: string, classes: readonly LimitClass[]): Promise<void> {
  const journal = world.sim.journal;
  if (journal.mode === 'replay') {
    const verdict = journal.fact('rate_limited', request_id) as { message: string; headers: Record<string, string> } | undefined;
    if (verdict) throw new ApiError('rate_limited', verdict.message, { headers: verdict.headers });
    return;
  }
  try {
    await limiter.consume(org, api_key, classes);
  } catch (e) {
    if (e instanceof ApiError && e.code === 'rate_limited') {
      journal.write({ kind: 'fact', what: 'rate_limited', key: request_id, value: { message: e.message, headers: e.headers ?? {} } });
    }
    throw e;
  }
}
