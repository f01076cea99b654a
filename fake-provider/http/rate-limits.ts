// Per-API-key rate limits on wall time, as the spec defines them: reads, writes, and indicative/firm
// RFQs (which also count as writes), counted as the profile's `rate_limit_algorithm` says (token bucket by
// default, fixed window as the adversarial option). Limits come from the organization (per-org override).
// Wall time is an input a replay cannot re-derive, so a journaled run records each 429 verdict and a replay reuses it.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { wallNow_ms } from '../../sim/clock.ts';
import type { RateLimitAlgorithm } from '../profile.ts';
import type { Organization, RateLimits, World } from '../world.ts';
import { ApiError } from '../contract/errors.ts';

export const DEFAULT_RATE_LIMITS: RateLimits = { reads: 100, writes: 20, indicative_rfqs: 10, firm_rfqs: 5 };

export type LimitClass = keyof RateLimits;

export interface RateLimiter {
  /**
   * Consumes one point in each class; `rate_limited` (with Retry-After when enabled) is thrown, or the promise
   * rejects with it. Undefined when every class decided at once (token buckets: every request but a fixed
   * window's), a promise when one has to wait for its answer (rate-limiter-flexible's fixed windows).
   */
  consume(org: Organization, api_key: string, classes: readonly LimitClass[]): Promise<void> | undefined;
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

/** Buckets kept before idle ones are swept (a full bucket is the same as no bucket, so dropping it is exact). */
export const TOKEN_BUCKETS_SWEEP_AT = 10_000;

/**
 * Token buckets: capacity `limit`, refilled continuously at `limit` per second. Returns 0 when a token was
 * taken, else the ms until one is there (what Retry-After rounds up). `now_ms` is injectable for tests.
 */
export function createTokenBuckets(now_ms: () => number = wallNow_ms) {
  const buckets = new Map<string, { tokens: number; at_ms: number; limit: number }>();
  const sweep = (now: number): void => {
    for (const [k, b] of buckets) if ((now - b.at_ms) * b.limit >= 1000 * (b.limit - b.tokens)) buckets.delete(k);
  };
  return {
    take(key: string, limit: number): number {
      const now = now_ms();
      let b = buckets.get(key);
      if (!b) {
        if (buckets.size >= TOKEN_BUCKETS_SWEEP_AT) sweep(now);
        buckets.set(key, (b = { tokens: limit, at_ms: now, limit }));
      }
      b.tokens = Math.min(limit, b.tokens + (Math.max(0, now - b.at_ms) * limit) / 1000);
      b.at_ms = now;
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
      }
      return ((1 - b.tokens) * 1000) / limit;
    },
    size: (): number => buckets.size,
  };
}

export function createRateLimiter(opts: {
  retry_after: () => boolean;
  algorithm?: () => RateLimitAlgorithm;
  now_ms?: () => number;
}): RateLimiter {
  const algorithm = opts.algorithm ?? (() => 'token_bucket' as const);
  const buckets = createTokenBuckets(opts.now_ms);
  // Fixed windows: one rate-limiter-flexible limiter per (class, points); orgs with the same limit share it
  // (keys are per API key anyway). Its window starts at a key's first request after the last one ended.
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
  const refusal = (wait_ms: number, org: Organization, cls: LimitClass): ApiError => {
    const headers: Record<string, string> = {};
    // Whole seconds (RFC 9110 delay-seconds), rounded up: a client that waits this long is let through.
    if (opts.retry_after()) headers['Retry-After'] = String(Math.max(1, Math.ceil(wait_ms / 1000)));
    return new ApiError('rate_limited', `rate limit exceeded for ${cls} (${org.rate_limits[cls]}/s per key)`, { headers });
  };
  const refused = (e: unknown, org: Organization, cls: LimitClass): never => {
    if (!(e instanceof RateLimiterRes)) throw e;
    throw refusal(e.msBeforeNext, org, cls);
  };
  const consumeClass = (org: Organization, api_key: string, cls: LimitClass): Promise<void> | undefined => {
    const limit = org.rate_limits[cls];
    if (algorithm() === 'fixed_window')
      return limiterFor(cls, limit)
        .consume(api_key)
        .then(ACCEPTED, (e: unknown) => refused(e, org, cls));
    const wait_ms = buckets.take(`${cls}:${limit}:${api_key}`, limit);
    if (wait_ms > 0) throw refusal(wait_ms, org, cls);
    return undefined;
  };
  return {
    // Classes in order, each only once the previous one allowed the request.
    consume(org, api_key, classes) {
      for (let i = 0; i < classes.length; i++) {
        const waiting = consumeClass(org, api_key, classes[i]);
        if (waiting === undefined) continue;
        let allowed: Promise<void> = waiting;
        for (let j = i + 1; j < classes.length; j++) allowed = allowed.then(() => consumeClass(org, api_key, classes[j]));
        return allowed;
      }
      return undefined;
    },
  };
}

const ACCEPTED = (): void => undefined;

/**
 * The limiter as the route wrapper calls it. Journaling: a 429 is recorded (`rate_limited` fact keyed by
 * request id); replaying: the recorded verdict decides and the wall-time limiter is not consulted.
 */
export function limitRequest(
  limiter: RateLimiter,
  world: World,
  request_id: string,
  org: Organization,
  api_key: string,
  classes: readonly LimitClass[],
): Promise<void> | undefined {
  if (world.sim.journal.mode === 'off') return limiter.consume(org, api_key, classes);
  return limitJournaled(limiter, world, request_id, org, api_key, classes);
}

async function limitJournaled(
  limiter: RateLimiter,
  world: World,
  request_id: string,
  org: Organization,
  api_key: string,
  classes: readonly LimitClass[],
): Promise<void> {
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
