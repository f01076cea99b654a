// The server's request listener: a request for a declared /v1 route is served from node's own request and
// response (body, journal, route wrapper, error envelope: the same steps the express app runs); everything
// else — the control plane, unknown paths, the OpenAPI document — goes through the express app.
// Why not express for /v1: its app.handle swaps the prototype of every request and response
// (Object.setPrototypeOf). In V8 that doubled the allocation per request and promoted about 8 KB of each
// one to the old generation, so at 2,000 req/s every young-generation collection copied ~3 MB and paused
// 5–11 ms, which was the p99 (measured with node --trace-gc-nvp on express hello-world against node:http;
// docs/engine.md, Performance).
import type { IncomingMessage, ServerResponse } from 'node:http';
import parseurl from 'parseurl';
import { jsonBody, type ApiRequest, type ApiResponse, type MatchedHandler, type Next } from './api.ts';
import type { Found, RouteTable } from './dispatch.ts';

export interface FrontDoor {
  /** The express app: what the table does not serve. */
  app: (req: IncomingMessage, res: ServerResponse) => void;
  table: RouteTable<MatchedHandler>;
  /** Gives the request its world and id and journals it (replay/record.ts), once the body is read. */
  begin: (req: ApiRequest, res: ApiResponse, next: Next, err?: unknown) => void;
  /** The express app's error middleware (api.ts errorMiddleware): the envelope, and bugs reported. */
  fail: (err: unknown, req: IncomingMessage, res: ApiResponse, next: Next) => void;
}

const IGNORE: Next = () => undefined;

export function frontDoor(o: FrontDoor): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    let found: Found<MatchedHandler> | undefined;
    // A malformed percent-encoding in a matching route's parameter: answered 400 once the request has its id.
    let lookupError: unknown;
    try {
      const pathname = parseurl(req)?.pathname;
      if (pathname) found = o.table.find(req.method ?? '', pathname);
    } catch (e) {
      lookupError = e;
    }
    if (found === undefined && lookupError === undefined) {
      o.app(req, res);
      return;
    }
    const r = req as ApiRequest;
    const s = res as ApiResponse;
    s.locals = Object.create(null) as Record<string, unknown>;
    const fail = (err: unknown): void => o.fail(err, r, s, IGNORE);
    const serve = (err?: unknown): void => {
      if (err !== undefined && err !== null) return fail(err);
      if (found === undefined) return fail(lookupError);
      found.serve(r, s, fail, { path: found.path, params: found.params, control: false }).catch(fail);
    };
    jsonBody(r, s, (bodyError?: unknown) => {
      try {
        o.begin(r, s, serve, bodyError ?? undefined);
      } catch (e) {
        fail(e);
      }
    });
  };
}
