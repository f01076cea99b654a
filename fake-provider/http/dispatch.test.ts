// The route tables against express 5's own router (a dev dependency kept as the yardstick): the same paths match
// the same routes with the same decoded parameters (case, trailing slash, percent-encoding); over HTTP both
// planes answer as the express app they replaced did.
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '../app.ts';
import type { Runtime } from '../runtime.ts';
import { controlRoutes } from '../control/routes.ts';
import { RESOURCES } from '../resources/index.ts';
import { startTestSim, type TestSim } from '../testing/harness.ts';
import { readyAccount } from '../testing/flows.ts';
import { compileRoute, routeTable } from './dispatch.ts';

interface ExpressLayer {
  /** router 2.3: the match (with decoded params) or false. */
  match(path: string): { params: Record<string, string> } | false;
}

/** express's router's own matcher for one route path (its Layer, as `router.route` builds it). */
function expressMatcher(path: string): (p: string) => Record<string, string> | null {
  const router = express.Router() as unknown as { route(p: string): unknown; stack: ExpressLayer[] };
  router.route(path);
  const layer = router.stack[0];
  return (p) => {
    const m = layer.match(p);
    return m ? { ...m.params } : null;
  };
}

const ourMatcher = (path: string) => compileRoute(path);

/** Paths near a route path: its own shape with assorted values, case, trailing slashes, extra or missing segments. */
function samplesFor(path: string): string[] {
  const fill = (v: string): string => path.replace(/:[A-Za-z0-9_]+/g, v);
  const base = fill('acc_01');
  return [
    base, `${base}/`, `${base}//`, base.toUpperCase(), `${base}/x`, base.replace(/\/[^/]*$/, ''), `${base}.json`,
    fill('a%20b'), fill('a%2Fb'), fill('%C3%A9t%C3%A9'), fill('a.b-c~d'), fill(''), `/${base}`, base.replace(/-/g, '_'),
  ];
}

describe('route table matching', () => {
  it('matches exactly what express 5 matches, with the same decoded params, for every declared route', () => {
    // Both planes: /v1's routes and /_sim's (the runtime is read by handlers only, never here).
    const control = [...controlRoutes({} as Runtime), ...RESOURCES.flatMap((r) => r.control ?? [])];
    const paths = [...new Set([...apiRoutes(), ...control].map((r) => r.path))];
    const everySample = paths.flatMap(samplesFor);
    let compared = 0;
    for (const path of paths) {
      const theirs = expressMatcher(path);
      const ours = ourMatcher(path);
      for (const sample of everySample) {
        expect(ours(sample), `${path} vs ${sample}`).toEqual(theirs(sample));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it('a malformed percent-encoding in a parameter throws URIError, as express does', () => {
    const theirs = expressMatcher('/accounts/:account_id');
    expect(() => theirs('/accounts/%E0%A4%A')).toThrow(URIError);
    expect(() => ourMatcher('/accounts/:account_id')('/accounts/%E0%A4%A')).toThrow(URIError);
  });

});

describe('routeTable', () => {
  const declare = (method: 'get' | 'post', path: string) => ({ method, path, summary: '', tag: '', handler: () => ({}) });
  const table = routeTable('/v1', [
    { route: declare('get', '/accounts/:account_id'), serve: 'first' },
    { route: declare('get', '/accounts/:other'), serve: 'shadowed' },
    { route: declare('post', '/accounts'), serve: 'create' },
  ]);

  it('finds by method and path under the prefix (any case), the first declared route winning, HEAD as GET', () => {
    expect(table.find('GET', '/v1/accounts/acc_1')).toEqual({ serve: 'first', path: '/accounts/acc_1', params: { account_id: 'acc_1' } });
    expect(table.find('HEAD', '/V1/Accounts/acc_1/')?.serve).toBe('first');
    expect(table.find('POST', '/v1/accounts')?.serve).toBe('create');
  });

  it('finds nothing outside the prefix, for the bare prefix, or for another method', () => {
    for (const [method, path] of [['GET', '/v2/accounts/a'], ['GET', '/v1accounts/a'], ['GET', '/v1'], ['GET', '/v1/'], ['PUT', '/v1/accounts/a'], ['GET', '/v1/accounts/a/b']]) {
      expect(table.find(method, path), `${method} ${path}`).toBeUndefined();
    }
  });

  it('throws URIError for a malformed parameter of a route of any method (express answered 400, not 404)', () => {
    expect(() => table.find('GET', '/v1/accounts/%E0%A4%A')).toThrow(URIError);
    expect(() => table.find('PUT', '/v1/accounts/%E0%A4%A')).toThrow(URIError);
    expect(table.find('PUT', '/v1/other/%E0%A4%A')).toBeUndefined();
  });

  it('holds the prefix and what is under it, in any case, and nothing else', () => {
    expect(['/v1', '/V1/', '/v1/accounts', '/v1//x'].filter((p) => table.holds(p))).toHaveLength(4);
    expect(['/v', '/v1x', '/v1.json', '/', '/_sim/v1'].filter((p) => table.holds(p))).toEqual([]);
  });
});

describe('route table over HTTP', () => {
  let sim: TestSim;
  let account_id: string;
  beforeAll(async () => {
    sim = await startTestSim();
    account_id = await readyAccount(sim);
  });
  afterAll(() => sim.close());

  it('serves a route whatever the case of the path and with a trailing slash, as express did', async () => {
    const plain = await sim.api('GET', `/accounts/${account_id}/balances`);
    expect(plain.status).toBe(200);
    for (const path of [`/accounts/${account_id}/balances/`, `/ACCOUNTS/${account_id}/Balances`]) {
      const r = await sim.api('GET', path);
      expect(r.status, path).toBe(200);
      expect(r.body.balances).toEqual(plain.body.balances);
    }
  });

  it('answers HEAD from the GET route, headers only', async () => {
    const r = await fetch(`${sim.base_url}/accounts/${account_id}/balances`, { method: 'HEAD', headers: { authorization: `Bearer ${sim.api_key}` } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Number(r.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await r.text()).toBe('');
  });

  it('a malformed percent-encoding in a path parameter is 400 invalid_parameter; unknown paths and methods are 404', async () => {
    const bad = await sim.api('GET', '/accounts/%E0%A4%A/balances');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_parameter');
    for (const [method, path] of [['GET', `/accounts/${account_id}/balances/extra`], ['PUT', `/accounts/${account_id}/balances`], ['GET', '//accounts']] as const) {
      const r = await sim.api(method, path);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.error.code).toBe('route_not_found');
    }
  });

  it('each plane serves its OpenAPI document from its own table, headed as express’s res.json headed it', async () => {
    for (const url of [`${sim.base_url}/openapi.json`, `${sim.control_url}/openapi.json`]) {
      const r = await fetch(url);
      expect(r.status, url).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const text = await r.text();
      expect(Number(r.headers.get('content-length'))).toBe(Buffer.byteLength(text));
      expect((JSON.parse(text) as { openapi: string }).openapi).toBe('3.1.0');
    }
  });

  it('unknown paths: under /v1 and /_sim each plane’s 404 names the path, elsewhere the pointer to /v1', async () => {
    const cases: Array<[string, string, string]> = [
      ['GET', `${sim.base_url}`, 'no route GET /v1/'],
      ['GET', `${sim.base_url}/nope/x`, 'no route GET /v1/nope/x'],
      ['DELETE', `${sim.control_url}/clock`, 'no control route DELETE /_sim/clock'],
      ['GET', sim.base_url.replace(/\/v1$/, '/v2/accounts'), 'no route GET /v2/accounts; the API lives under /v1'],
    ];
    for (const [method, url, message] of cases) {
      const r = await fetch(url, { method, headers: { authorization: `Bearer ${sim.api_key}` } });
      const body = (await r.json()) as { request_id: string; error: { code: string; message: string } };
      expect(r.status, url).toBe(404);
      expect(body.error).toMatchObject({ code: 'route_not_found', message });
      expect(body.request_id).toMatch(/^req_/);
    }
  });

  it('the readiness probe answers without a request id, any case, no-store', async () => {
    const r = await fetch(sim.control_url.replace('/_sim', '/_SIM/Health'));
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(await r.json()).toEqual({ status: 'ok', version: expect.any(String) });
  });
});
