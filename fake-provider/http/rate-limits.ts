// Per-API-key rate limits on wall time, as the spec defines them: reads, writes, and indicative/firm
// RFQs (which also count as writes). Limits come from the organization (per-org override).
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Organization, RateLimits } from '../world.ts';
import { ApiError } from './errors.ts';

export const DEFAULT_RATE_LIMITS: RateLimits = { reads: 100, writes: 20, indicative_rfqs: 10, firm_rfqs: 5 };

export type LimitClass = keyof RateLimits;

export interface RateLimiter {
  /** Consumes one point in each class; throws `rate_limited` (with Retry-After when enabled). */
  consume(org: Organization, api_key: string, classes: LimitClass[]): Promise<void>;
}

export function classesFor(method: string, path: string, body: unknown): LimitClass[] {
  if (method === 'GET' || method === 'HEAD') return ['reads'];
  if (method === 'POST' && path === '/rfqs') {
    const mode = (body as { mode?: unknown } | undefined)?.mode;
    if (mode === 'firm') return ['firm_rfqs', 'writes'];
    if (mode === 'indicative') return ['indicative_rfqs', 'writes'];
  }
  return ['writes'];
}

export function createRateLimiter(opts: { retry_after: () => boolean }): RateLimiter {
  const limiters = new Map<string, RateLimiterMemory>();
  const limiterFor = (cls: LimitClass, points: number): RateLimiterMemory => {
    const id = `${cls}:${points}`;
    let l = limiters.get(id);
    if (!l) {
      l = new RateLimiterMemory({ keyPrefix: id, points, duration: 1 });
      limiters.set(id, l);
    }
    return l;
  };
  return {
    async consume(org, api_key, classes) {
      for (const cls of classes) {
        try {
          await limiterFor(cls, org.rate_limits[cls]).consume(api_key);
        } catch (e) {
          if (!(e instanceof RateLimiterRes)) throw e;
          const headers: Record<string, string> = {};
          if (opts.retry_after()) headers['Retry-After'] = String(Math.max(1, Math.ceil(e.msBeforeNext / 1000)));
          throw new ApiError('rate_limited', `rate limit exceeded for ${cls} (${org.rate_limits[cls]}/s per key)`, { headers });
        }
      }
    },
  };
}
