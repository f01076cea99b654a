// The server's one request listener: /v1 and /_sim are each a plane with a route table (dispatch.ts), served
// from node's own request and response in the same steps: body, journal, the plane's gate, route wrapper, error
// envelope. A readiness probe is answered before all of them; a path under no plane is a 404 in the envelope.
// Why not express: its app.handle swaps the prototype of every request and response
// (Object.setPrototypeOf). In V8 that doubled the allocation per request and promoted about 8 KB of each
// one to the old generation, so at 2,000 req/s every young-generation collection copied ~3 MB and paused
// 5–11 ms, which was the p99 (measured with node --trace-gc-nvp on express hello-world against node:http;
// docs/engine.md, Performance).
import type { IncomingMessage, ServerResponse } from 'node:http';
import parseurl from 'parseurl';
import { jsonBody, type ApiRequest, type ApiResponse, type MatchedHandler, type Next } from './api.ts';
import type { ApiError } from './errors.ts';
import type { Found, RouteTable } from './dispatch.ts';
import { BODY_TIMEOUT_MS, guardedBody } from './limits.ts';

/** A prefix served from one route table: /v1 (the API) or /_sim (the control plane). */
export interface Plane {
  table: RouteTable<MatchedHandler>;
  /** Its answers keep their exact shapes (the profile's extra fields are for /v1 only). */
  control: boolean;
  /** A refusal checked before any route, once the request has begun (the control gate); null to go on. */
  gate?: (req: ApiRequest, res: ApiResponse) => ApiError | null;
  /** The answer to a path under the prefix that no route serves (`path`: under the prefix, `/` for the bare prefix). */
  notFound: (method: string, path: string) => ApiError;
}

export interface FrontDoor {
  planes: readonly Plane[];
  /** Answered before anything else (no body read, no request id, not journaled, no gate): the readiness probe. */
  probes: RouteTable<(req: IncomingMessage, res: ServerResponse) => void>;
  /** The answer to a path under no plane. */
  outside: (method: string, pathname: string) => ApiError;
  /** Gives the request its world and id and journals it (replay/record.ts), once the body is read. */
  begin: (req: ApiRequest, res: ApiResponse, next: Next, err?: unknown) => void;
  /** The error envelope, and bugs reported (api.ts errorMiddleware). */
  fail: (err: unknown, req: IncomingMessage, res: ApiResponse, next: Next) => void;
  /** Wall time a request body may take to arrive (default BODY_TIMEOUT_MS); past it 408 `request_timeout`. */
  body_timeout_ms?: () => number;
}

const IGNORE: Next = () => undefined;

export function frontDoor(o: FrontDoor): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const method = req.method ?? '';
    let pathname = '';
    let plane: Plane | undefined;
    let found: Found<MatchedHandler> | undefined;
    // A malformed percent-encoding in a matching route's parameter (a 400), or a URL that does not parse:
    // answered once the request has begun.
    let lookupError: unknown;
    let probe: Found<(req: IncomingMessage, res: ServerResponse) => void> | undefined;
    try {
      pathname = parseurl(req)?.pathname ?? '';
      probe = o.probes.find(method, pathname);
      if (probe === undefined) {
        for (const p of o.planes) {
          if (!p.table.holds(pathname)) continue;
          plane = p;
          found = p.table.find(method, pathname);
          break;
        }
      }
    } catch (e) {
      lookupError = e;
    }
    if (probe !== undefined) return probe.serve(req, res);
    const r = req as ApiRequest;
    const s = res as ApiResponse;
    s.locals = Object.create(null) as Record<string, unknown>;
    const fail = (err: unknown): void => o.fail(err, r, s, IGNORE);
    const serve = (err?: unknown): void => {
      if (err !== undefined && err !== null) return fail(err);
      if (plane === undefined) return fail(lookupError ?? o.outside(method, pathname));
      const refusal = plane.gate?.(r, s) ?? null;
      if (refusal !== null) return fail(refusal);
      if (lookupError !== undefined) return fail(lookupError);
      // The path as express's mounted router saw it: under the prefix, `/` for the bare prefix.
      if (found === undefined) return fail(plane.notFound(method, pathname.slice(plane.table.prefix.length) || '/'));
      found.serve(r, s, fail, { path: found.path, params: found.params, control: plane.control }).catch(fail);
    };
    guardedBody(r, s, (bodyError?: unknown) => {
      try {
        o.begin(r, s, serve, bodyError ?? undefined);
      } catch (e) {
        fail(e);
      }
    }, jsonBody as Parameters<typeof guardedBody>[3], o.body_timeout_ms?.() ?? BODY_TIMEOUT_MS);
  };
}
