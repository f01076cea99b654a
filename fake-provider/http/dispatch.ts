// The /v1 fast path: one middleware that finds a declared route by method + first path segment in a table
// compiled once from the route declarations, matching exactly as express 5's router would (see compileRoute).
// Anything it does not match falls through to the express router, which stays the reference. Also
// `inSequence`: several middlewares as one router layer.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AnyRoute, Matched } from './api.ts';

/** What the table runs for a matched request (api.ts `serveRoute`). */
export type MatchedHandler = (req: Request, res: Response, next: NextFunction, matched: Matched) => Promise<void>;

interface Entry {
  regex: RegExp;
  names: string[];
  serve: MatchedHandler;
}

const escapeRegex = (s: string): string => s.replace(/[.+*?^${}()[\]|/\\]/g, '\\$&');

/**
 * An express route path (`/accounts/:account_id/balances`) as the regex express 5's router builds for it
 * with its defaults (path-to-regexp 8: case-insensitive, one optional trailing slash, a parameter is one
 * non-empty segment). Declared paths use only literal segments and `:name` parameters; anything else throws.
 */
export function compileRoute(path: string): { regex: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) {
        if (/[:*?(){}]/.test(segment)) throw new Error(`route path ${path}: only literal segments and :params are supported`);
        return escapeRegex(segment);
      }
      names.push(segment.slice(1));
      return '([^\\/]+)';
    })
    .join('\\/');
  return { regex: new RegExp(`^(?:${source})(?:\\/$)?$`, 'i'), names };
}

/** Express decodes each parameter with decodeURIComponent; a malformed one throws URIError (a 400 in errorMiddleware). */
const decodeParam = (value: string): string => decodeURIComponent(value);

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
    bucket.push({ ...compileRoute(route.path), serve });
    table.set(key, bucket);
  }
  const lowerPrefix = prefix.toLowerCase();
  const find = (method: string, path: string): { entry: Entry; params: Record<string, string> } | undefined => {
    const bucket = table.get(`${method === 'HEAD' ? 'GET' : method} ${firstSegment(path)}`);
    if (bucket === undefined) return undefined;
    for (const entry of bucket) {
      const m = entry.regex.exec(path);
      if (m === null) continue;
      const params: Record<string, string> = {};
      for (let i = 0; i < entry.names.length; i++) params[entry.names[i]] = decodeParam(m[i + 1]);
      return { entry, params };
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
