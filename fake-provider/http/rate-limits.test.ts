// The limiter's class chain on its own: a request is counted in each of its classes in order, the first class
// that is exhausted refuses it (naming that class), and a refused class stops the chain before the next one.
import { describe, expect, it } from 'vitest';
import type { Organization, RateLimits } from '../world.ts';
import { ApiError } from './errors.ts';
import { createRateLimiter } from './rate-limits.ts';

const orgWith = (rate_limits: RateLimits): Organization =>
  ({ organization_id: 'org_rl', api_keys: ['sk_rl'], rate_limits }) as unknown as Organization;

const refusal = async (p: Promise<void>): Promise<ApiError | undefined> => {
  try {
    await p;
    return undefined;
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return e;
  }
};

describe('rate limiter class chain', () => {
  it('a firm RFQ needs both firm_rfqs and writes: an exhausted writes class refuses it, with Retry-After', async () => {
    const limiter = createRateLimiter({ retry_after: () => true });
    const org = orgWith({ reads: 100, writes: 1, indicative_rfqs: 100, firm_rfqs: 5 });
    expect(await refusal(limiter.consume(org, 'sk_a', ['firm_rfqs', 'writes']))).toBeUndefined();
    const second = await refusal(limiter.consume(org, 'sk_a', ['firm_rfqs', 'writes']));
    expect(second?.code).toBe('rate_limited');
    expect(second?.message).toMatch(/for writes \(1\/s per key\)/);
    expect(second?.headers?.['Retry-After']).toBe('1');
  });

  it('a refusal by the first class does not count the request in the next one', async () => {
    const limiter = createRateLimiter({ retry_after: () => false });
    const org = orgWith({ reads: 100, writes: 2, indicative_rfqs: 100, firm_rfqs: 1 });
    expect(await refusal(limiter.consume(org, 'sk_b', ['firm_rfqs', 'writes']))).toBeUndefined();
    const refused = await refusal(limiter.consume(org, 'sk_b', ['firm_rfqs', 'writes']));
    expect(refused?.message).toMatch(/for firm_rfqs/);
    expect(refused?.headers?.['Retry-After']).toBeUndefined();
    // writes has counted one request so far (the refused one never reached it): one more write still fits.
    expect(await refusal(limiter.consume(org, 'sk_b', ['writes']))).toBeUndefined();
    expect((await refusal(limiter.consume(org, 'sk_b', ['writes'])))?.message).toMatch(/for writes/);
  });
});
