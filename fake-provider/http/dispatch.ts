// The /v1 fast path: one middleware that finds a declared route by method + first path segment in a table
// compiled once from the route declarations, matching with path-to-regexp as express 5's router does (compileRoute).
// Anything it does not match falls through to the express router, which stays the reference. Also
// `inSequence`: several middlewares as one router layer.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { match as pathMatch } from 'path-to-regexp';
import type { AnyRoute, Matched } from './api.ts';

/** What the table runs for a matched request (api.ts `serveRoute`). */
export type MatchedHandler = (req: Request, res: Response, next: NextFunction, matched: Matched) => Promise<void>;

interface Entry {
  match: RouteMatcher;
  serve: MatchedHandler;
}

export type RouteMatcher = (path: string) => Record<string, string> | null;

/** Express decodes each parameter with decodeURIComponent; a malformed one throws URIError (a 400 in errorMiddleware). */
const decodeParam = (value: string): string => (value.length === 0 ? value : decodeURIComponent(value));

/**
 * A declared route path (`/accounts/:account_id/balances`) as express 5's router matches it: path-to-regexp's
 * `match` with the options its Layer passes by default (case-insensitive, to the end, optional trailing slash,
 * parameters decoded).
 */
export function compileRoute(path: string): RouteMatcher {
  const match = pathMatch(path.replace(/\/+$/, '') || '/', { sensitive: false, end: true, trailing: true, decode: decodeParam });
  return (p) => {
    const m = match(p);
    return m === false ? null : (m.params as Record<string, string>);
  };
}

/** The first segment of `/a/b/c` (`a`), lowercased as the match is case-insensitive. */
function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return (end < 0 ? path.slice(1) : path.slice(1, end)).toLowerCase();
}

/**
 * The middleware serving `routes` under `prefix` (e.g. `/v1`). Buckets keep declaration order, so the first
 * declared route that matches wins, as in express. HEAD is served by the GET route, as express does.
 */
export function routeTable(prefix: string, routes: ReadonlyArray<{ route: AnyRoute; serve: MatchedHandler }>) {
  const table = new Map<string, Entry[]>();
  for (const { route, serve } of routes) {
    const key = `${route.method.toUpperCase()} ${firstSegment(route.path)}`;
    const bucket = table.get(key) ?? [];
    bucket.push({ match: compileRoute(route.path), serve });
    table.set(key, bucket);
  }
  const lowerPrefix = prefix.toLowerCase();
  const find = (method: string, path: string): { entry: Entry; params: Record<string, string> } | undefined => {
    const bucket = table.get(`${method === 'HEAD' ? 'GET' : method} ${firstSegment(path)}`);
    if (bucket === undefined) return undefined;
    for (const entry of bucket) {
      const params = entry.match(path);
      if (params !== null) return { entry, params };
    }
    return undefined;
  };
  return (req: Request, res: Response, next: NextFunction): void => {
    const pathname = req.path;
    // `/v1/…` (any case, like express's mount); the path under it is what the express router would see.
    if (pathname.length <= prefix.length || pathname.charCodeAt(prefix.length) !== 47 || pathname.slice(0, prefix.length).toLowerCase() !== lowerPrefix) {
      next();
      return;
    }
    const path = pathname.slice(prefix.length);
    let found: ReturnType<typeof find>;
    try {
      found = find(req.method, path);
    } catch (e) {
      next(e);
      return;
    }
    if (found === undefined) next();
    // As express does for a handler's promise: a rejection goes on to the error middleware.
    else found.entry.serve(req, res, next, { path, params: found.params, control: false }).catch(next);
  };
}

/**
 * Middlewares run one after the other as ONE router layer: express's router allocates and checks per layer
 * and request. An error (passed or thrown) skips the rest and goes on to `next(err)`, as in the router.
 */
export function inSequence(...steps: RequestHandler[]): RequestHandler {
  // Written without a named per-request closure: tsx (esbuild keepNames) would rename each one per request.
  const from = (i: number, req: Request, res: Response, next: NextFunction): void => {
    if (i === steps.length) return next();
    try {
      void steps[i](req, res, (err?: unknown) => (err !== undefined && err !== null ? next(err) : from(i + 1, req, res, next)));
    } catch (e) {
      next(e);
    }
  };
  return (req, res, next) => from(0, req, res, next);
}
