// The /v1 route table: the declared routes compiled once, found by method + first path segment, matching with
// path-to-regexp as express 5's router does (compileRoute). Pure lookup: front.ts serves what it finds and
// hands everything else to the express app, whose router stays the reference.
import { match as pathMatch } from 'path-to-regexp';
import type { AnyRoute } from './api.ts';

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

/** A request the table serves: its route's handler, the path under the prefix as sent, the decoded parameters. */
export interface Found<S> {
  serve: S;
  path: string;
  params: Record<string, string>;
}

export interface RouteTable<S> {
  /**
   * The route for `method` and a request's pathname (`/v1/…`, any case, like express's mount), or undefined.
   * Throws URIError when the matching route's parameter has malformed percent-encoding, as express's matcher does.
   */
  find(method: string, pathname: string): Found<S> | undefined;
}

/**
 * The table of `routes` under `prefix` (e.g. `/v1`). Buckets keep declaration order, so the first declared
 * route that matches wins, as in express. HEAD is served by the GET route, as express does.
 */
export function routeTable<S>(prefix: string, routes: ReadonlyArray<{ route: AnyRoute; serve: S }>): RouteTable<S> {
  const table = new Map<string, Array<{ match: RouteMatcher; serve: S }>>();
  for (const { route, serve } of routes) {
    const key = `${route.method.toUpperCase()} ${firstSegment(route.path)}`;
    const bucket = table.get(key) ?? [];
    bucket.push({ match: compileRoute(route.path), serve });
    table.set(key, bucket);
  }
  const lowerPrefix = prefix.toLowerCase();
  return {
    find(method, pathname) {
      if (pathname.length <= prefix.length || pathname.charCodeAt(prefix.length) !== 47 || pathname.slice(0, prefix.length).toLowerCase() !== lowerPrefix) return undefined;
      const path = pathname.slice(prefix.length);
      const bucket = table.get(`${method === 'HEAD' ? 'GET' : method} ${firstSegment(path)}`);
      if (bucket === undefined) return undefined;
      for (const entry of bucket) {
        const params = entry.match(path);
        if (params !== null) return { serve: entry.serve, path, params };
      }
      return undefined;
    },
  };
}
