// Bad input, generated: garbage bodies, queries, path ids and headers against every /v1 route and every
// control route. Each answer must be the documented envelope with a catalogued code and never a 5xx;
// afterwards every invariant must still hold. Routes are read from the same declarations the app mounts.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { apiRoutes } from './app.ts';
import { controlRoutes } from './control/routes.ts';
import { ERROR_CODES } from './contract/errors.ts';
import type { AnyRoute } from './contract/route.ts';
import { startTestSim, type TestSim } from './testing/harness.ts';
import { RESOURCES } from './resources/index.ts';

let sim: TestSim;
const ids: Record<string, string[]> = {};

beforeAll(async () => {
  sim = await startTestSim({ seed: 'fuzz' });
  const account = (await sim.api('POST', '/accounts', { body: { label: 'fuzz' } })).body.account;
  ids.account_id = [account.account_id];
  await sim.advance(10_000);
});
afterAll(() => sim.close());

const shapeKeys = (schema: unknown): string[] => (schema instanceof z.ZodObject ? Object.keys(schema.shape) : []);

const garbageValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  fc.constantFrom(
    '-1',
    '0',
    '1e9',
    '0x00',
    'native.evm:1',
    'NATIVE.BTC',
    '999999999999999999999999999999999999',
    '1.0000000000000000000001',
    '../../etc',
    '%00',
    '🙂',
  ),
);

function bodyFor(route: AnyRoute): fc.Arbitrary<string | undefined> {
  const keys = shapeKeys(route.body);
  const object = fc.dictionary(
    keys.length > 0 ? fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 8 })) : fc.string({ maxLength: 8 }),
    garbageValue,
    { maxKeys: 6 },
  );
  return fc.oneof(
    object.map((o) => JSON.stringify(o)),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 60 }),
    fc.constantFrom('{', '{"a":}', '[]', 'null', '', '\u0000', '{"__proto__":{"x":1}}'),
    fc.constant(undefined),
  );
}

function queryFor(route: AnyRoute): fc.Arbitrary<string> {
  const keys = shapeKeys(route.query);
  const key = keys.length > 0 ? fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 6 })) : fc.string({ maxLength: 6 });
  return fc
    .array(fc.tuple(key, fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('-1', '0', '101', '1.5', 'true', 'trade.*', '*', ''))), {
      maxLength: 4,
    })
    .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}` : ''));
}

function pathFor(route: AnyRoute): fc.Arbitrary<string> {
  const params = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
  if (params.length === 0) return fc.constant(route.path);
  // Raw values (not encoded) include malformed percent-escapes such as `%` and `%zz`.
  const raw = fc.constantFrom('%', '%zz', '%E0%A4%A', '..', '%2F');
  return fc
    .tuple(
      ...params.map((p) =>
        fc.oneof(
          fc.constantFrom(...(ids[p] ?? ['x'])).map(encodeURIComponent),
          fc.string({ minLength: 1, maxLength: 30 }).map(encodeURIComponent),
          raw,
        ),
      ),
    )
    .map((values) => {
      let path = route.path;
      params.forEach((p, i) => (path = path.replace(`:${p}`, values[i])));
      return path;
    });
}

const headerArb = fc.record({
  auth: fc.oneof(fc.constant('good'), fc.constant('none'), fc.string({ maxLength: 20 })),
  idem: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 300 })),
  contentType: fc.constantFrom(
    'application/json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/json; charset=utf-7',
    undefined,
  ),
});

async function hit(
  base: string,
  route: AnyRoute,
  path: string,
  query: string,
  body: string | undefined,
  h: { auth: string; idem: string | undefined; contentType: string | undefined },
) {
  const headers: Record<string, string> = {};
  if (h.auth === 'good') headers.authorization = `Bearer ${sim.api_key}`;
  else if (h.auth !== 'none') headers.authorization = h.auth.replace(/[^\x20-\x7e]/g, '');
  if (h.idem !== undefined) headers['idempotency-key'] = h.idem.replace(/[^\x20-\x7e]/g, '');
  if (h.contentType) headers['content-type'] = h.contentType;
  const method = route.method.toUpperCase();
  const res = await fetch(base + path + query, {
    method,
    headers,
    body: method === 'GET' || method === 'DELETE' ? undefined : body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, text };
}

function checkAnswer(route: AnyRoute, r: { status: number; text: string }): void {
  const where = `${route.method.toUpperCase()} ${route.path} → ${r.status} ${r.text.slice(0, 300)}`;
  expect(r.status, where).toBeLessThan(500);
  if (r.status === 204) return;
  const body = JSON.parse(r.text);
  expect(typeof body.request_id, where).toBe('string');
  if (r.status >= 400) {
    expect(ERROR_CODES, where).toContain(body.error.code);
    expect(body.error.request_id, where).toBe(body.request_id);
    expect(typeof body.error.message, where).toBe('string');
    expect(r.text, where).not.toMatch(/\n\s+at /);
  }
}

describe('garbage in, envelope out', () => {
  it('every /v1 route answers garbage with a catalogued 4xx (or a success), never a 5xx', async () => {
    const routes = apiRoutes();
    await fc.assert(
      fc.asyncProperty(
        fc
          .nat({ max: routes.length - 1 })
          .chain((i) => fc.tuple(fc.constant(routes[i]), pathFor(routes[i]), queryFor(routes[i]), bodyFor(routes[i]), headerArb)),
        async ([route, path, query, body, h]) => {
          checkAnswer(route, await hit(sim.base_url, route, path, query, body, h));
        },
      ),
      { numRuns: 400, seed: 20260101, verbose: 1 },
    );
  });

  it('every control route does the same', async () => {
    // Reset is left out: it would only empty the world the other calls are probing.
    const routes = [...controlRoutes(sim.running.runtime), ...RESOURCES.flatMap((r) => r.control ?? [])].filter((r) => r.path !== '/reset');
    await fc.assert(
      fc.asyncProperty(
        fc
          .nat({ max: routes.length - 1 })
          .chain((i) => fc.tuple(fc.constant(routes[i]), pathFor(routes[i]), queryFor(routes[i]), bodyFor(routes[i]), headerArb)),
        async ([route, path, query, body, h]) => {
          checkAnswer(route, await hit(sim.control_url, route, path, query, body, h));
        },
      ),
      { numRuns: 200, seed: 20260102, verbose: 1 },
    );
  });

  it('leaves every invariant intact and logged no internal error', async () => {
    expect(await sim.invariants()).toMatchObject({ ok: true, violations: [] });
  });
});
