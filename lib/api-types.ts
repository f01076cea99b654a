// The typed clients' types, derived from the route declarations (the same ones that validate requests and
// write the OpenAPI documents): a call's reply body follows from its method and path. Types only: nothing
// here runs, and nothing is declared twice.
import type { z } from 'zod';
import type { RESOURCE_CONTROL_ROUTES, RESOURCE_ROUTES } from '../fake-provider/resources/index.ts';
import type { CONTROL_CONTRACTS } from '../fake-provider/control/routes.ts';
import type { CONDUCT_CONTRACTS } from '../fake-provider/conduct/index.ts';

/** Every /v1 route's reply contract (method, path, response schema), typed as declared. */
type V1Route = (typeof RESOURCE_ROUTES)[number];
/** Every /_sim route's reply contract, typed as declared. */
type ControlRoute = (typeof RESOURCE_CONTROL_ROUTES)[number] | (typeof CONTROL_CONTRACTS)[number] | (typeof CONDUCT_CONTRACTS)[number];

/** `/accounts/:account_id/credits` → `/accounts/${string}/credits`: the paths a declared route serves. */
type Template<P extends string> = P extends `${infer A}:${string}/${infer Rest}`
  ? `${A}${string}/${Template<Rest>}`
  : P extends `${infer A}:${string}`
    ? `${A}${string}`
    : P;

type PathOf<R> = R extends { path: infer P extends string } ? Template<P> : never;
type MethodOf<R> = R extends { method: infer M } ? M : never;

/** The routes that serve `method path` (a query string allowed); `${string}` may span `/`, so more than one. */
type Candidates<Routes, M extends string, P extends string> = Routes extends unknown
  ? Lowercase<M> extends MethodOf<Routes>
    ? P extends PathOf<Routes> | `${PathOf<Routes>}?${string}`
      ? Routes
      : never
    : never
  : never;

/** Some other candidate's paths are a strict subset of R's (`/accounts/${string}/credits` beats `/accounts/${string}`). */
type Beaten<R, All> = All extends unknown
  ? PathOf<All> extends PathOf<R>
    ? PathOf<R> extends PathOf<All>
      ? never
      : true
    : never
  : never;
type MostSpecific<C, All = C> = C extends unknown ? ([Beaten<C, All>] extends [never] ? C : never) : never;

/** The route a call reaches, or never when no declared route serves it (a union if two match equally well). */
type RouteFor<Routes, M extends string, P extends string> = MostSpecific<Candidates<Routes, M, P>>;

/** The success body of a route: its response schema's output type (`unknown` when it declares none). */
type BodyOf<R> = [R] extends [never] ? unknown : R extends { response?: infer S } ? (S extends z.ZodType ? z.output<S> : unknown) : unknown;

/** The success body of `METHOD path` under /v1 (`unknown` for a path no route declares). */
export type V1Body<M extends string, P extends string> = BodyOf<RouteFor<V1Route, M, P>>;
/** The success body of `METHOD path` under /_sim (`unknown` for a path no route declares). */
export type ControlBody<M extends string, P extends string> = BodyOf<RouteFor<ControlRoute, M, P>>;

/** Methods as the clients take them: either case. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'get' | 'post' | 'put' | 'patch' | 'delete';
