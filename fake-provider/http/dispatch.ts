// A route table (one per plane: /v1, /_sim): the declared routes compiled once, found by method + first path
// segment, matching with path-to-regexp as express 5's router did (compileRoute; dispatch.test.ts holds it to
// express's own matcher). Pure lookup: front.ts serves what it finds.
import { match as pathMatch } from 'path-to-regexp';

export type RouteMatcher = (path: string) => Record<string, string> | null;

/** Each parameter is decoded with decodeURIComponent, as express did; a malformed one throws URIError (a 400 in errorMiddleware). */
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
  readonly prefix: string;
  /**
   * The route for `method` and a request's pathname (`/v1/…`, any case, like a mount), or undefined.
   * Throws URIError when a route whose path matches (of any method) has a parameter with malformed
   * percent-encoding: express's router answered such a request 400, not 404, whichever method it came with.
   */
  find(method: string, pathname: string): Found<S> | undefined;
  /** Whether `pathname` is the prefix or under it (`/v1`, `/V1/`, `/v1/x`; not `/v1x`), as a mount matches. */
  holds(pathname: string): boolean;
}

/** What a table needs of a route: its method and its path under the prefix. */
export interface RoutePath {
  method: string;
  path: string;
}

/**
 * The table of `routes` under `prefix` (e.g. `/v1`). Buckets keep declaration order, so the first declared
 * route that matches wins, as in express. HEAD is served by the GET route, as express does.
 */
export function routeTable<S>(prefix: string, routes: ReadonlyArray<{ route: RoutePath; serve: S }>): RouteTable<S> {
  const table = new Map<string, Array<{ match: RouteMatcher; serve: S }>>();
  const every: RouteMatcher[] = [];
  for (const { route, serve } of routes) {
    const key = `${route.method.toUpperCase()} ${firstSegment(route.path)}`;
    const bucket = table.get(key) ?? [];
    const match = compileRoute(route.path);
    bucket.push({ match, serve });
    table.set(key, bucket);
    every.push(match);
  }
  const lowerPrefix = prefix.toLowerCase();
  const under = (pathname: string): boolean => pathname.slice(0, prefix.length).toLowerCase() === lowerPrefix;
  return {
    prefix,
    holds: (pathname) => (pathname.length === prefix.length || pathname.charCodeAt(prefix.length) === 47) && under(pathname),
    find(method, pathname) {
      if (pathname.length <= prefix.length || pathname.charCodeAt(prefix.length) !== 47 || !under(pathname)) return undefined;
      const path = pathname.slice(prefix.length);
      const bucket = table.get(`${method === 'HEAD' ? 'GET' : method} ${firstSegment(path)}`);
      if (bucket !== undefined) {
        for (const entry of bucket) {
          const params = entry.match(path);
          if (params !== null) return { serve: entry.serve, path, params };
        }
      }
      // A miss (a 404, rare): any route's matcher may still throw the URIError that makes it a 400.
      for (const match of every) match(path);
      return undefined;
    },
  };
}
