// Test harness: a real swapsim server on an ephemeral port (virtual clock) and a real HTTP client
// (fetch) for /v1 and /_sim. Used by tests only; the public library (lib/sim.ts) runs the same server.
import { serve, type RunningServer } from '../server.ts';
import type { RuntimeOptions } from '../runtime.ts';

export interface HttpReply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface TestSim {
  running: RunningServer;
  api_key: string;
  base_url: string;
  control_url: string;
  /** A /v1 call with the default key; pass `key: null` for no Authorization header. */
  api<T = any>(
    method: string,
    path: string,
    opts?: { body?: unknown; raw?: string; key?: string | null; idem?: string; headers?: Record<string, string> },
  ): Promise<HttpReply<T>>;
  control<T = any>(method: string, path: string, body?: unknown): Promise<HttpReply<T>>;
  advance(ms: number): Promise<void>;
  settle(max_ms?: number): Promise<void>;
  /** A new organization; returns its API key. */
  newOrg(body?: Record<string, unknown>): Promise<{ organization_id: string; api_key: string }>;
  invariants(): Promise<{ ok: boolean; violations: unknown[] }>;
  close(): Promise<void>;
}

let idemCounter = 0;

async function call(
  url: string,
  method: string,
  opts: { body?: unknown; raw?: string; headers: Record<string, string> },
): Promise<HttpReply> {
  const headers: Record<string, string> = { ...opts.headers };
  let payload: string | undefined;
  if (opts.raw !== undefined) payload = opts.raw;
  else if (opts.body !== undefined) payload = JSON.stringify(opts.body);
  if (payload !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, body: payload });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text.length ? JSON.parse(text) : undefined;
  } catch {
    /* leave text */
  }
  return { status: res.status, body, headers: res.headers };
}

export async function startTestSim(opts: RuntimeOptions & { api_key?: string } = {}): Promise<TestSim> {
  const api_key = opts.api_key ?? 'sk_test_default';
  // The default org's limits are raised: tests are not about wall-time throttling unless they say so
  // (rate-limit tests create their own orgs with low limits).
  const unthrottled = { reads: 100_000, writes: 100_000, indicative_rfqs: 100_000, firm_rfqs: 100_000 };
  const running = await serve({
    clock: 'virtual',
    seed: 1,
    // Tests reach into `runtime.world` for what their organizations hold: `newOrg` keeps them in the server's world
    // unless a test asks for worlds of their own (`org_worlds: 'own'`, the server's default; worlds.test.ts).
    org_worlds: 'shared',
    ...opts,
    seed_orgs: opts.seed_orgs ?? [{ api_keys: [api_key], rate_limits: unthrottled }],
    port: 0,
  });
  const sim: TestSim = {
    running,
    api_key,
    base_url: running.base_url,
    control_url: running.control_url,
    api(method, path, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      const key = o.key === undefined ? api_key : o.key;
      if (key !== null) headers.authorization = `Bearer ${key}`;
      const upper = method.toUpperCase();
      if (o.idem !== undefined) headers['idempotency-key'] = o.idem;
      else if (upper === 'POST' || upper === 'PUT') headers['idempotency-key'] = `idem-${++idemCounter}`;
      return call(running.base_url + path, upper, { body: o.body, raw: o.raw, headers });
    },
    control(method, path, body) {
      return call(running.control_url + path, method.toUpperCase(), { body, headers: {} });
    },
    async advance(ms) {
      const r = await sim.control('POST', '/clock/advance', { ms });
      if (r.status !== 200) throw new Error(`advance failed: ${JSON.stringify(r.body)}`);
    },
    async settle(max_ms) {
      const r = await sim.control('POST', '/clock/settle', max_ms === undefined ? {} : { max_ms });
      if (r.status !== 200) throw new Error(`settle failed: ${JSON.stringify(r.body)}`);
    },
    async newOrg(body = {}) {
      const r = await sim.control('POST', '/organizations', body);
      if (r.status !== 200) throw new Error(`org failed: ${JSON.stringify(r.body)}`);
      return { organization_id: r.body.organization.organization_id, api_key: r.body.organization.api_key };
    },
    async invariants() {
      return (await sim.control('GET', '/invariants')).body;
    },
    close: () => running.close(),
  };
  return sim;
}

/**
 * Closes what a test opens (sims, receivers) once it ends: `const opened = closeAfterEach(afterEach)`, then
 * `const sim = opened(await startTestSim())` in the test. The runner's afterEach is passed in (no vitest here).
 */
export function closeAfterEach(afterEach: (fn: () => Promise<void>) => void): <T extends { close(): Promise<void> }>(x: T) => T {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((o) => o.close()));
  });
  return (x) => {
    open.push(x);
    return x;
  };
}
