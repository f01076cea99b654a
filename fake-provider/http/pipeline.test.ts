// The pipeline answers a request at once when nothing waits (a token bucket, no fault, a handler that answers
// synchronously) and through a promise when something does (a fixed window, a `delay_ms` hold, the idempotency
// store). Each way, the client gets its answer and the observers hear of it once: conduct keeps one record per
// request, in the order the answers went out.
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, type RateLimitAlgorithm } from '../profile.ts';
import { startTestSim, type TestSim } from '../testing/harness.ts';

const WIDE = 'sk_pipeline_wide';
const TIGHT = 'sk_pipeline_tight';

let sim: TestSim | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function started(algorithm: RateLimitAlgorithm): Promise<TestSim> {
  const limits = (reads: number) => ({ reads, writes: 1_000, indicative_rfqs: 1_000, firm_rfqs: 1_000 });
  sim = await startTestSim({
    profile: { ...DEFAULT_PROFILE, rate_limit_algorithm: algorithm },
    api_key: WIDE,
    // One read a second for TIGHT: a read sent right after another is refused.
    seed_orgs: [
      { api_keys: [WIDE], rate_limits: limits(1_000) },
      { api_keys: [TIGHT], rate_limits: limits(1) },
    ],
  });
  return sim;
}

/** Conduct's records of a key, each as `METHOD path status request_id`. */
const recorded = async (s: TestSim, api_key: string): Promise<string[]> => {
  const r = await s.control('GET', `/conduct?api_key=${api_key}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (r.body.conduct.requests as Array<{ method: string; path: string; status: number; request_id: string }>).map(
    (q) => `${q.method} ${q.path} ${q.status} ${q.request_id}`,
  );
};

describe.each(['token_bucket', 'fixed_window'] as const)('the pipeline under %s limits', (algorithm) => {
  it('answers every kind of request and tells conduct of each once', async () => {
    const s = await started(algorithm);
    const answers: string[] = [];
    const send = async (method: string, path: string, o: { key?: string; body?: unknown } = {}): Promise<number> => {
      const r = await s.api(method, path, o);
      // The request id the client was given is the one conduct keeps.
      answers.push(`${method} ${path.split('?')[0]} ${r.status} ${r.body.request_id}`);
      return r.status;
    };

    // A handler's own refusal, a read, a body its schema refuses, and an IDEM write (the idempotency store).
    expect(await send('GET', '/accounts/acct_000000000000/balances')).toBe(404);
    expect(await send('GET', '/accounts?limit=5')).toBe(200);
    expect(await send('POST', '/accounts', { body: { label: 7 } })).toBe(400);
    expect(await send('POST', '/accounts', { body: { label: 'kept' } })).toBe(200);
    // A request held on the sim clock by a `delay_ms` fault, answered once the clock gets there.
    const fault = await s.control('POST', '/faults', {
      target: 'http',
      effect: { delay_ms: 1_000 },
      match: { method: 'POST', path: '/v1/accounts' },
      times: 1,
    });
    expect(fault.status, JSON.stringify(fault.body)).toBe(200);
    const held = send('POST', '/accounts', { body: { label: 'held' } });
    // The clock moves only once the server holds the request (its rule has fired), however the two calls race.
    for (let i = 0; i < 200; i++) {
      const fired = (await s.control('GET', '/faults')).body.fired as Array<{ target: string }>;
      if (fired.some((f) => f.target === 'http')) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await s.advance(1_000);
    expect(await held).toBe(200);
    expect(await recorded(s, WIDE)).toEqual(answers);

    // Past its limit (one read a second): reads sent back to back until one is refused; each answer, the 429
    // included, is recorded as the client saw it, once. Only a machine that stalls a second between every two
    // reads would see no 429.
    const tight: string[] = [];
    for (let i = 0; i < 5 && !tight.some((t) => t.includes(' 429 ')); i++) {
      const r = await s.api('GET', '/accounts', { key: TIGHT });
      tight.push(`GET /accounts ${r.status} ${r.body.request_id}`);
    }
    expect(tight[0]).toMatch(/^GET \/accounts 200 /);
    expect(tight.at(-1)).toMatch(/^GET \/accounts 429 /);
    expect(await recorded(s, TIGHT)).toEqual(tight);
  });
});
