// The route contract: what a resource declares about an endpoint (method, path, zod schemas once for
// validation, types and OpenAPI; auth; idempotency; its handler and the context it is handed), and the spec's
// list shape. It stands on the resources' floor: every resources/*/routes.ts imports it (and nothing of the
// serving); the pipeline (http/pipeline.ts) and the framework glue (http/planes.ts) read these declarations.
import { z } from 'zod';
import type { Organization, World } from '../world.ts';
import type { HistorySource } from '../resource-records.ts';
import type { Page } from './pagination.ts';

export interface ApiContext {
  world: World;
  org: Organization;
  api_key: string;
  request_id: string;
  /** Every resource module, as the history route reads them (their records of one account). */
  resources: readonly HistorySource[];
}

export interface PublicContext {
  world: World;
  request_id: string;
  ip: string;
}

export interface Reply {
  status?: number;
  /** Omitted for 204. `request_id` is added by the route wrapper. */
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;
type Input<B, Q, P> = { body: Out<B>; query: Out<Q>; params: Out<P> };

interface RouteBase<M extends Method, Path extends string, B, Q, P, R> {
  method: M;
  /** Path under /v1 (or /_sim), with router parameters (fastify's, as express's were), e.g. `/accounts/:account_id`. */
  path: Path;
  summary: string;
  tag: string;
  body?: B;
  query?: Q;
  params?: P;
  /** Marked IDEM in the spec: requires Idempotency-Key. */
  idempotent?: boolean;
  /** Response schema: the OpenAPI document and the typed clients (lib/api-types.ts) read it. */
  response?: R;
  /** Documented success status (default 200). */
  status?: number;
}

export interface BearerRoute<M extends Method, Path extends string, B, Q, P, R> extends RouteBase<M, Path, B, Q, P, R> {
  auth?: 'bearer';
  handler: (input: Input<B, Q, P>, ctx: ApiContext) => Reply | Promise<Reply>;
}

export interface PublicRoute<M extends Method, Path extends string, B, Q, P, R> extends RouteBase<M, Path, B, Q, P, R> {
  auth: 'public';
  handler: (input: Input<B, Q, P>, ctx: PublicContext) => Reply | Promise<Reply>;
}

/**
 * A declared route as the rest of the code sees it: the handler erased (the wrapper calls it with parsed
 * input), the contract kept in the type (method, path and schemas), so lib/api-types.ts derives typed
 * clients from the same declarations that validate and document.
 */
export interface RouteDeclaration<
  M extends Method = Method,
  Path extends string = string,
  B = Schema | undefined,
  Q = Schema | undefined,
  P = Schema | undefined,
  R = Schema | undefined,
> extends RouteBase<M, Path, B, Q, P, R> {
  auth?: 'bearer' | 'public';
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  handler: (input: any, ctx: any) => Reply | Promise<Reply>;
}

/**
 * What a typed client needs of a route: method, path and response schema. Its type names no engine type and no
 * request schema, so the package's .d.ts stays small (lib/api-types.ts reads these).
 */
export function replyContract<R extends AnyRoute>(route: R): ReplyContract<R> {
  return { method: route.method, path: route.path, response: route.response } as ReplyContract<R>;
}
/** Per route of a union (a mapped type alone would merge the union's methods and paths). */
export type ReplyContract<R> =
  R extends RouteDeclaration<infer M, infer P, infer _B, infer _Q, infer _Pa, infer S> ? { method: M; path: P; response?: S } : never;

/** The registry's element type: any declared route. */
export type AnyRoute = RouteDeclaration;

export function defineRoute<
  M extends Method,
  Path extends string,
  B extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  P extends Schema | undefined = undefined,
  R extends Schema | undefined = undefined,
>(route: BearerRoute<M, Path, B, Q, P, R> | PublicRoute<M, Path, B, Q, P, R>): RouteDeclaration<M, Path, B, Q, P, R> {
  return route as RouteDeclaration<M, Path, B, Q, P, R>;
}

/** The spec's list shape: a typed array plus has_more and next_cursor. */
export function listBody<T, U>(key: string, page: Page<T>, serialize: (t: T) => U): Record<string, unknown> {
  return { [key]: page.items.map(serialize), has_more: page.has_more, next_cursor: page.next_cursor };
}

type ListShape<K extends string, I extends Schema> = { request_id: z.ZodString } & { [P in K]: z.ZodArray<I> } & {
  has_more: z.ZodBoolean;
  next_cursor: z.ZodNullable<z.ZodString>;
};

/** A zod schema for the list shape (OpenAPI and the typed clients), typed by its key and item. */
export function listSchema<K extends string, I extends Schema>(key: K, item: I): z.ZodObject<ListShape<K, I>> {
  return z.object({ request_id: z.string(), [key]: z.array(item), has_more: z.boolean(), next_cursor: z.string().nullable() } as ListShape<
    K,
    I
  >);
}

/** Route path `/a/:id` → OpenAPI `/a/{id}`. */
export function openapiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
