// The front door: declared /v1 routes are served from node's own request and response (express never
// touches them), after the body is read and the request has begun; everything else goes to the express app.
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { defineRoute, type ApiRequest, type ApiResponse, type MatchedHandler, type Next } from './api.ts';
import { routeTable } from './dispatch.ts';
import { frontDoor } from './front.ts';

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

interface Seen {
  app: string[];
  served: Array<{ path: string; params: Record<string, string>; body: unknown; plain_node: boolean; request_id: unknown }>;
  failed: string[];
  began: Array<{ err: string | null }>;
}

async function start(): Promise<{ url: string; seen: Seen }> {
  const seen: Seen = { app: [], served: [], failed: [], began: [] };
  const route = defineRoute({ method: 'post', path: '/things/:thing_id', summary: 't', tag: 't', handler: () => ({}) });
  const serve: MatchedHandler = async (req, res, _next, matched) => {
    seen.served.push({
      path: matched.path,
      params: matched.params,
      body: req.body,
      plain_node: Object.getPrototypeOf(req) === IncomingMessage.prototype && Object.getPrototypeOf(res) === ServerResponse.prototype,
      request_id: res.locals.request_id,
    });
    res.end('served');
  };
  const listener = frontDoor({
    app: (req, res) => {
      seen.app.push(`${req.method} ${req.url}`);
      res.end('app');
    },
    table: routeTable('/v1', [{ route, serve }]),
    begin: (_req: ApiRequest, res: ApiResponse, next: Next, err?: unknown) => {
      seen.began.push({ err: err === undefined ? null : String((err as { type?: string }).type) });
      res.locals.request_id = 'req_1';
      next(err);
    },
    fail: (err, _req, res) => {
      seen.failed.push(err instanceof Error ? err.constructor.name : String(err));
      res.statusCode = 400;
      res.end('failed');
    },
  });
  server = createServer(listener);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const post = (url: string, body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('frontDoor', () => {
  it('serves a declared route from node objects, after the body is parsed and the request has begun', async () => {
    const { url, seen } = await start();
    const r = await post(`${url}/V1/things/a%20b?x=1`, '{"n":1}');
    expect(await r.text()).toBe('served');
    expect(seen.served).toEqual([{ path: '/things/a%20b', params: { thing_id: 'a b' }, body: { n: 1 }, plain_node: true, request_id: 'req_1' }]);
    expect(seen.app).toEqual([]);
  });

  it('hands what the table does not serve to the app: other paths and methods, the bare prefix', async () => {
    const { url, seen } = await start();
    for (const [method, path] of [['GET', '/v1/things/a'], ['POST', '/v1/other'], ['POST', '/_sim/clock'], ['GET', '/v1']]) {
      expect(await (await fetch(url + path, { method })).text()).toBe('app');
    }
    expect(seen.app).toEqual(['GET /v1/things/a', 'POST /v1/other', 'POST /_sim/clock', 'GET /v1']);
    expect(seen.served).toEqual([]);
  });

  it('a body that is not JSON reaches begin as its error and then fail, never the route', async () => {
    const { url, seen } = await start();
    expect(await (await post(`${url}/v1/things/a`, '{nope')).text()).toBe('failed');
    expect(seen.began).toEqual([{ err: 'entity.parse.failed' }]);
    expect(seen.failed).toEqual(['SyntaxError']);
    expect(seen.served).toEqual([]);
  });

  it('a malformed percent-encoding in a parameter fails with URIError once the request has begun', async () => {
    const { url, seen } = await start();
    expect(await (await post(`${url}/v1/things/%E0%A4%A`, '{}')).text()).toBe('failed');
    expect(seen.began).toEqual([{ err: null }]);
    expect(seen.failed).toEqual(['URIError']);
  });
});
