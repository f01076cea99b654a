// The front door: every plane's declared routes are served from node's own request and response, after the
// body is read, the request has begun and the plane's gate let it in; a probe before all of that; the rest 404s.
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { defineRoute, type ApiRequest, type ApiResponse, type MatchedHandler, type Next } from './api.ts';
import { routeTable } from './dispatch.ts';
import { ApiError } from './errors.ts';
import { frontDoor } from './front.ts';

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

interface Seen {
  served: Array<{ plane: string; path: string; params: Record<string, string>; body: unknown; plain_node: boolean; request_id: unknown; control: boolean }>;
  failed: string[];
  began: Array<{ err: string | null }>;
  gated: string[];
}

async function start(opts: { refuse?: boolean } = {}): Promise<{ url: string; seen: Seen }> {
  const seen: Seen = { served: [], failed: [], began: [], gated: [] };
  const route = defineRoute({ method: 'post', path: '/things/:thing_id', summary: 't', tag: 't', handler: () => ({}) });
  const serveAs = (plane: string): MatchedHandler => async (req, res, _next, matched) => {
    seen.served.push({
      plane,
      path: matched.path,
      params: matched.params,
      body: req.body,
      plain_node: Object.getPrototypeOf(req) === IncomingMessage.prototype && Object.getPrototypeOf(res) === ServerResponse.prototype,
      request_id: res.locals.request_id,
      control: matched.control,
    });
    res.end('served');
  };
  const listener = frontDoor({
    planes: [
      { table: routeTable('/v1', [{ route, serve: serveAs('v1') }]), control: false, notFound: (m, p) => new ApiError('route_not_found', `v1 ${m} ${p}`) },
      {
        table: routeTable('/_sim', [{ route, serve: serveAs('sim') }]),
        control: true,
        gate: (req) => {
          seen.gated.push(`${req.method} ${req.url}`);
          return opts.refuse ? new ApiError('forbidden', 'no') : null;
        },
        notFound: (m, p) => new ApiError('route_not_found', `sim ${m} ${p}`),
      },
    ],
    probes: routeTable('/_sim', [{ route: { method: 'get', path: '/health' }, serve: (_req, res) => res.end('healthy') }]),
    outside: (m, p) => new ApiError('route_not_found', `outside ${m} ${p}`),
    begin: (_req: ApiRequest, res: ApiResponse, next: Next, err?: unknown) => {
      seen.began.push({ err: err === undefined ? null : String((err as { type?: string }).type) });
      res.locals.request_id = 'req_1';
      next(err);
    },
    fail: (err, _req, res) => {
      seen.failed.push(err instanceof ApiError ? err.message : err instanceof Error ? err.constructor.name : String(err));
      res.statusCode = 400;
      res.end('failed');
    },
  });
  // A request with x-break-url has a URL that throws when read (parseurl cannot parse it).
  server = createServer((req, res) => {
    if (req.headers['x-break-url']) Object.defineProperty(req, 'url', { get: () => { throw new URIError('unreadable url'); } });
    listener(req, res);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const post = (url: string, body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('frontDoor', () => {
  it('serves a declared route from node objects, after the body is parsed and the request has begun', async () => {
    const { url, seen } = await start();
    const r = await post(`${url}/V1/things/a%20b?x=1`, '{"n":1}');
    expect(await r.text()).toBe('served');
    expect(seen.served).toEqual([{ plane: 'v1', path: '/things/a%20b', params: { thing_id: 'a b' }, body: { n: 1 }, plain_node: true, request_id: 'req_1', control: false }]);
    expect(seen.gated).toEqual([]);
  });

  it('serves the control plane from its own table, through its gate, with the control flag', async () => {
    const { url, seen } = await start();
    expect(await (await post(`${url}/_sim/things/t1`, '{}')).text()).toBe('served');
    expect(seen.gated).toEqual(['POST /_sim/things/t1']);
    expect(seen.served.map((s) => [s.plane, s.params.thing_id, s.control])).toEqual([['sim', 't1', true]]);
  });

  it('a gate refusal fails the request once it has begun; the route never runs', async () => {
    const { url, seen } = await start({ refuse: true });
    expect(await (await post(`${url}/_sim/things/t1`, '{}')).text()).toBe('failed');
    expect(seen.began).toEqual([{ err: null }]);
    expect(seen.failed).toEqual(['no']);
    expect(seen.served).toEqual([]);
  });

  it('answers a probe before the body, the journal and the gate', async () => {
    const { url, seen } = await start({ refuse: true });
    for (const path of ['/_sim/health', '/_SIM/Health/']) expect(await (await fetch(url + path)).text()).toBe('healthy');
    expect(await (await post(`${url}/_sim/health`, '{nope')).text()).toBe('failed');
    expect(seen.began).toEqual([{ err: 'entity.parse.failed' }]);
    expect(seen.gated).toEqual([]);
  });

  it('a path no route serves: the plane’s 404 with the path under its prefix, or the outside 404', async () => {
    const { url, seen } = await start();
    for (const [method, path] of [['GET', '/v1/things/a'], ['POST', '/v1/other'], ['GET', '/v1'], ['GET', '/V1/'], ['POST', '/_sim/clock'], ['GET', '/v1x/things/a'], ['GET', '/']]) {
      expect(await (await fetch(url + path, { method })).text()).toBe('failed');
    }
    expect(seen.failed).toEqual(['v1 GET /things/a', 'v1 POST /other', 'v1 GET /', 'v1 GET /', 'sim POST /clock', 'outside GET /v1x/things/a', 'outside GET /']);
    expect(seen.served).toEqual([]);
    expect(seen.began).toHaveLength(7);
  });

  it('a body that is not JSON reaches begin as its error and then fail, never the gate or the route', async () => {
    const { url, seen } = await start();
    expect(await (await post(`${url}/_sim/things/a`, '{nope')).text()).toBe('failed');
    expect(seen.began).toEqual([{ err: 'entity.parse.failed' }]);
    expect(seen.failed).toEqual(['SyntaxError']);
    expect(seen.gated).toEqual([]);
    expect(seen.served).toEqual([]);
  });

  it('a URL that cannot be parsed fails once the request has begun, as no route and no probe', async () => {
    const { url, seen } = await start();
    expect(await (await fetch(`${url}/_sim/health`, { headers: { 'x-break-url': '1' } })).text()).toBe('failed');
    expect(seen.began).toEqual([{ err: null }]);
    expect(seen.failed).toEqual(['URIError']);
    expect(seen.served).toEqual([]);
  });

  it('a malformed percent-encoding in a parameter fails with URIError once the request has begun, whatever the method', async () => {
    const { url, seen } = await start();
    expect(await (await post(`${url}/v1/things/%E0%A4%A`, '{}')).text()).toBe('failed');
    expect(await (await fetch(`${url}/v1/things/%E0%A4%A`, { method: 'PUT' })).text()).toBe('failed');
    expect(seen.began).toEqual([{ err: null }, { err: null }]);
    expect(seen.failed).toEqual(['URIError', 'URIError']);
  });
});
