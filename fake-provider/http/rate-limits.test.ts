// The limiter on its own: the class chain (a request is counted in each of its classes in order, the first
// exhausted class refuses it, and a refused class stops the chain), and what "N per second per key" means
// under each `rate_limit_algorithm`, on an injected clock (token bucket) or a faked Date (fixed window).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Organization, RateLimits } from '../world.ts';
import { ApiError } from '../contract/errors.ts';
import { createRateLimiter, createTokenBuckets, TOKEN_BUCKETS_SWEEP_AT } from './rate-limits.ts';

const orgWith = (rate_limits: RateLimits): Organization =>
  ({ organization_id: 'org_rl', api_keys: ['sk_rl'], rate_limits }) as unknown as Organization;

/** What a consume comes to: the refusal it throws (at once, or from the promise it returns), or undefined. */
const refusal = async (consume: () => Promise<void> | undefined): Promise<ApiError | undefined> => {
  try {
    await consume();
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
    expect(await refusal(() => limiter.consume(org, 'sk_a', ['firm_rfqs', 'writes']))).toBeUndefined();
    const second = await refusal(() => limiter.consume(org, 'sk_a', ['firm_rfqs', 'writes']));
    expect(second?.code).toBe('rate_limited');
    expect(second?.message).toMatch(/for writes \(1\/s per key\)/);
    expect(second?.headers?.['Retry-After']).toBe('1');
  });

  it('a refusal by the first class does not count the request in the next one', async () => {
    const limiter = createRateLimiter({ retry_after: () => false });
    const org = orgWith({ reads: 100, writes: 2, indicative_rfqs: 100, firm_rfqs: 1 });
    expect(await refusal(() => limiter.consume(org, 'sk_b', ['firm_rfqs', 'writes']))).toBeUndefined();
    const refused = await refusal(() => limiter.consume(org, 'sk_b', ['firm_rfqs', 'writes']));
    expect(refused?.message).toMatch(/for firm_rfqs/);
    expect(refused?.headers?.['Retry-After']).toBeUndefined();
    // writes has counted one request so far (the refused one never reached it): one more write still fits.
    expect(await refusal(() => limiter.consume(org, 'sk_b', ['writes']))).toBeUndefined();
    expect((await refusal(() => limiter.consume(org, 'sk_b', ['writes'])))?.message).toMatch(/for writes/);
  });
});

describe('when a limiter answers', () => {
  it('a token bucket decides at once: undefined when allowed, the refusal thrown; a fixed window answers with a promise', async () => {
    const org = orgWith({ reads: 1, writes: 1, indicative_rfqs: 1, firm_rfqs: 1 });
    const buckets = createRateLimiter({ retry_after: () => true, now_ms: () => 0 });
    expect(buckets.consume(org, 'sk_now', ['reads'])).toBeUndefined();
    expect(() => buckets.consume(org, 'sk_now', ['reads'])).toThrow(/rate limit exceeded for reads/);
    const windows = createRateLimiter({ retry_after: () => true, algorithm: () => 'fixed_window' });
    const first = windows.consume(org, 'sk_later', ['reads']);
    expect(first).toBeInstanceOf(Promise);
    await expect(first).resolves.toBeUndefined();
    await expect(windows.consume(org, 'sk_later', ['reads'])).rejects.toThrow(/rate limit exceeded for reads/);
  });
});

/** A client that sends `per_s` requests a second, evenly spaced, each late by up to `jitter_ms` (seeded). */
function evenlySpaced(per_s: number, seconds: number, jitter_ms: number): number[] {
  let x = 12345;
  const rand = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: per_s * seconds }, (_, i) => (i * 1000) / per_s + rand() * jitter_ms);
}

/** Runs a schedule of send times (ms) through a limiter on a clock it controls; returns the refusals. */
async function play(algorithm: 'token_bucket' | 'fixed_window', limit: number, times_ms: number[]): Promise<ApiError[]> {
  let now = 1_000_000;
  const base = now;
  if (algorithm === 'fixed_window') {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(base);
  }
  const limiter = createRateLimiter({ retry_after: () => true, algorithm: () => algorithm, now_ms: () => now });
  const org = orgWith({ reads: limit, writes: limit, indicative_rfqs: limit, firm_rfqs: limit });
  const out: ApiError[] = [];
  for (const t of [...times_ms].sort((a, b) => a - b)) {
    now = base + t;
    if (algorithm === 'fixed_window') vi.setSystemTime(now);
    const e = await refusal(() => limiter.consume(org, 'sk_even', ['reads']));
    if (e) out.push(e);
  }
  return out;
}

describe('what N per second per key means', () => {
  afterEach(() => vi.useRealTimers());

  it('token bucket (default): an evenly spaced client at exactly N/s never sees a 429, even with jitter', async () => {
    for (const n of [5, 10, 20, 100]) {
      // Each request late by up to 80% of the gap: neighbours come as close as 0.2/N s apart.
      expect((await play('token_bucket', n, evenlySpaced(n, 20, 800 / n))).length, `N=${n}`).toBe(0);
    }
  });

  it('fixed window (adversarial): the same client at exactly N/s is refused at window edges', async () => {
    const refused = await play('fixed_window', 5, evenlySpaced(5, 20, 160));
    expect(refused.length).toBeGreaterThan(0);
  });

  it('N+k requests sent at once: N are accepted and k refused, by either algorithm', async () => {
    for (const algorithm of ['token_bucket', 'fixed_window'] as const) {
      const burst = Array.from({ length: 13 }, () => 0);
      expect((await play(algorithm, 10, burst)).length, algorithm).toBe(3);
    }
  });

  it('N+k in one second, evenly spaced: the token bucket refuses once its N tokens and the refill are spent', async () => {
    // 30 in one second at N=10: 10 tokens at the start plus 10 refilled over the second.
    const refused = await play('token_bucket', 10, evenlySpaced(30, 1, 0));
    expect(refused.length).toBeGreaterThanOrEqual(9);
    expect(refused.length).toBeLessThanOrEqual(11);
  });

  it('over the limit for long, the accepted rate is N/s (plus the one-off burst of N)', async () => {
    const n = 20;
    const seconds = 30;
    const times = evenlySpaced(n * 1.5, seconds, 5);
    const refused = await play('token_bucket', n, times);
    const accepted = times.length - refused.length;
    expect(accepted).toBeGreaterThanOrEqual(n * seconds);
    expect(accepted).toBeLessThanOrEqual(n * seconds + n + 1);
  });

  it('Retry-After: whole seconds, at least 1, and a client that waits it is let through', async () => {
    for (const algorithm of ['token_bucket', 'fixed_window'] as const) {
      let now = 5_000_000;
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(now);
      const limiter = createRateLimiter({ retry_after: () => true, algorithm: () => algorithm, now_ms: () => now });
      const org = orgWith({ reads: 4, writes: 4, indicative_rfqs: 4, firm_rfqs: 4 });
      for (let i = 0; i < 4; i++) expect(await refusal(() => limiter.consume(org, 'sk_ra', ['reads']))).toBeUndefined();
      now += 100;
      vi.setSystemTime(now);
      const e = await refusal(() => limiter.consume(org, 'sk_ra', ['reads']));
      expect(e?.code, algorithm).toBe('rate_limited');
      const ra = e?.headers?.['Retry-After'];
      expect(ra, algorithm).toMatch(/^[1-9][0-9]*$/);
      now += Number(ra) * 1000;
      vi.setSystemTime(now);
      expect(await refusal(() => limiter.consume(org, 'sk_ra', ['reads'])), algorithm).toBeUndefined();
      vi.useRealTimers();
    }
  });

  it('a token bucket tells the exact wait for its next token', () => {
    let now = 0;
    const b = createTokenBuckets(() => now);
    for (let i = 0; i < 5; i++) expect(b.take('k', 5)).toBe(0);
    expect(b.take('k', 5)).toBeCloseTo(200, 6);
    now = 150;
    expect(b.take('k', 5)).toBeCloseTo(50, 6);
    now = 200;
    expect(b.take('k', 5)).toBe(0);
  });

  it('idle buckets are swept once many keys have been seen: memory follows the active keys', () => {
    let now = 0;
    const b = createTokenBuckets(() => now);
    for (let i = 0; i < TOKEN_BUCKETS_SWEEP_AT; i++) b.take(`idle-${i}`, 10);
    expect(b.size()).toBe(TOKEN_BUCKETS_SWEEP_AT);
    now = 1000; // every idle bucket has refilled: as good as new
    b.take('busy', 10);
    expect(b.size()).toBe(1);
  });
});
