// The one place HTTP conventions live: route declarations (zod schemas once, for validation, types and
// OpenAPI), body parsing, bearer auth, rate limits, idempotency, the list shape and the error envelope.
// Resource routes declare `defineRoute(...)`; the route wrapper reads node's request and response only
// (front.ts serves /v1 and /_sim with it).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import bodyParser from 'body-parser';
import parseurl from 'parseurl';
import { z } from 'zod';
import type { Organization, World } from '../world.ts';
import type { HistorySource } from '../resource-records.ts';
import { authenticate } from './auth.ts';
import { ApiError, envelope } from './errors.ts';
import { fingerprint, requireKey, withIdempotency, type StoredReply } from './idempotency.ts';
import { noteIdempotentWrite, witnessIdempotentAnswer } from '../oracle/idempotency-ledger.ts';
import type { Page } from './pagination.ts';
import { classesFor, limitRequest, type RateLimiter } from './rate-limits.ts';
import { droppedField, parseWith } from './validate.ts';
import { holdOnSimClock, httpFault, lostReplyError, NO_HTTP_FAULT, type HttpFault } from './faults.ts';
import { recordRequest } from '../conduct/recorder.ts';
import { checkDepth, MAX_BODY_BYTES, MAX_BODY_DEPTH, typedBodyError } from './limits.ts';

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
  /** Path under /v1 (or /_sim), with express-style parameters, e.g. `/accounts/:account_id`. */
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
export interface RouteDeclaration<M extends Method = Method, Path extends string = string, B = Schema | undefined, Q = Schema | undefined, P = Schema | undefined, R = Schema | undefined>
  extends RouteBase<M, Path, B, Q, P, R> {
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
export type ReplyContract<R> = R extends RouteDeclaration<infer M, infer P, infer _B, infer _Q, infer _Pa, infer S> ? { method: M; path: P; response?: S } : never;

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

type ListShape<K extends string, I extends Schema> = { request_id: z.ZodString } & { [P in K]: z.ZodArray<I> } & { has_more: z.ZodBoolean; next_cursor: z.ZodNullable<z.ZodString> };

/** A zod schema for the list shape (OpenAPI and the typed clients), typed by its key and item. */
export function listSchema<K extends string, I extends Schema>(key: K, item: I): z.ZodObject<ListShape<K, I>> {
  return z.object({ request_id: z.string(), [key]: z.array(item), has_more: z.boolean(), next_cursor: z.string().nullable() } as ListShape<K, I>);
}

/** What the route wrapper reads of a request: node's, plus the parsed body and its raw text. */
export type ApiRequest = IncomingMessage & { method: string; body?: unknown; rawBody?: string; originalUrl?: string };
/** Node's response with the per-request locals (front.ts sets them). */
export type ApiResponse = ServerResponse & { locals: Record<string, unknown> };
export type Next = (err?: unknown) => void;

/** A request header as one string (express's `req.get`; node joins repeated headers except the ones it drops). */
export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** The query as express 5's 'simple' parser gives it: node's querystring over parseurl's query. */
function queryOf(req: IncomingMessage): Record<string, unknown> {
  const q = parseurl(req)?.query;
  return typeof q === 'string' && q.length > 0 ? parseQuery(q) : {};
}

export interface Locals {
  world: World;
  request_id: string;
  /** Set only when journaling or replaying: the request's wall time and client address, as journaled. */
  wall_ms?: number;
  ip?: string;
  /** The connection is reset on purpose (`lose_response`): a journal records a reset, not a client gone away. */
  reset?: boolean;
}

/** Profile `extra_response_fields`: a copy of the body with an unknown field in every object. */
function withExtensionFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withExtensionFields);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = withExtensionFields(v);
  out.x_swapsim_extension = 'forward-compatibility field: ignore it';
  return out;
}

/**
 * Writes a JSON answer on node's response directly: the bytes express's `res.json` sent (same Content-Type
 * and Content-Length, no ETag), and one string write lets node send head and body in one syscall. HEAD gets
 * the headers only.
 */
export function writeJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> | undefined): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  if (headers) for (const name of Object.keys(headers)) res.setHeader(name, headers[name]);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(res.req.method === 'HEAD' ? undefined : text);
}

function send(res: ServerResponse, reply: StoredReply, world: World, control: boolean): void {
  if (reply.status === 204) {
    if (reply.headers) for (const name of Object.keys(reply.headers)) res.setHeader(name, reply.headers[name]);
    res.statusCode = 204;
    res.end();
    return;
  }
  // The control plane's shapes are exact (design.md); only /v1 answers grow unknown fields.
  writeJson(res, reply.status, world.profile.extra_response_fields && !control ? withExtensionFields(reply.body) : reply.body, reply.headers);
}

function renderError(res: ServerResponse, err: ApiError, world: World, request_id: string): void {
  const { status, body } = envelope(err, request_id, world.profile);
  writeJson(res, status, body, err.headers);
}

/** Where a request matched: the path under /v1 or /_sim as sent, its decoded parameters, and which plane. */
export interface Matched {
  path: string;
  params: Record<string, string>;
  /** Served under /_sim: its answers keep their exact shapes. */
  control: boolean;
}

/** The per-request facts the route wrapper reads once and hands on. */
interface RequestView {
  route: AnyRoute;
  req: ApiRequest;
  res: ApiResponse;
  matched: Matched;
  query: Record<string, unknown>;
  /** method + path + canonical body of a write, hashed once for both the idempotency store and conduct. */
  print: string | null;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What front.ts runs for a request a plane's table matched. */
export type MatchedHandler = (req: ApiRequest, res: ApiResponse, next: Next, matched: Matched) => Promise<void>;

/** What every route of an app shares: the rate limiter and the resource modules handed to handlers. */
export interface Serving {
  limiter: RateLimiter;
  resources: readonly HistorySource[];
}

/** Runs one declared route for a matched request: auth, rate limit, http faults, idempotency, conduct, reply. */
export function serveRoute(route: AnyRoute, { limiter, resources }: Serving): MatchedHandler {
  return async (req, res, next, matched) => {
    const { world, request_id } = res.locals as unknown as Locals;
    const view: RequestView = { route, req, res, matched, query: {}, print: null };
    // Known once authenticated: every answer from then on goes to that key's conduct record.
    let api_key: string | undefined;
    try {
      view.query = queryOf(req);
      let ctx: ApiContext | PublicContext;
      let fault: HttpFault = NO_HTTP_FAULT;
      if (route.auth === 'public') {
        ctx = { world, request_id, ip: (res.locals as unknown as Locals).ip ?? req.socket.remoteAddress ?? 'unknown' };
      } else {
        const who = authenticate(world, req.headers.authorization, (res.locals as unknown as Locals).ip ?? req.socket.remoteAddress ?? 'unknown', request_id);
        api_key = who.api_key;
        if (WRITE_METHODS.has(req.method)) view.print = fingerprint(req.method, matched.path, req.body);
        await limitRequest(limiter, world, request_id, who.org, who.api_key, classesFor(req.method, route.path, req.body));
        ctx = { world, org: who.org, api_key: who.api_key, request_id, resources };
        fault = httpFault(world, req.method, matched.path, matched.params.account_id);
      }
      // A `delay_ms` rule runs the rest of the request as a sim-clock task: it takes effect when released.
      if (fault.delay_ms > 0) {
        const key = api_key;
        await holdOnSimClock(world, fault.delay_ms, () => answer(view, res, ctx, fault, key));
      } else await answer(view, res, ctx, fault, api_key);
    } catch (e) {
      if (api_key !== undefined && e instanceof ApiError) {
        const { status, body } = envelope(e, request_id, world.profile);
        recordConduct(world, api_key, request_id, view, status, { status, body, headers: e.headers }, false);
      }
      next(e);
    }
  };
}

/** Parses the input, runs the handler (once per Idempotency-Key on IDEM routes), records conduct and answers. */
async function answer(view: RequestView, res: ApiResponse, ctx: ApiContext | PublicContext, fault: HttpFault, api_key: string | undefined): Promise<void> {
  const { route, req, matched } = view;
  const { world, request_id } = ctx;
  if (fault.error) throw fault.error;
  const lost = fault.lost;
  if (route.body !== undefined && req.body !== undefined && (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body))) {
    throw new ApiError('invalid_parameter', 'the request body must be a JSON object');
  }
  const input = {
    params: route.params ? parseWith(route.params, matched.params, 'path') : undefined,
    query: route.query ? parseWith(route.query, view.query, 'query') : undefined,
    body: route.body ? parseWith(route.body, req.body ?? {}, 'body') : undefined,
  };
  if (matched.control && route.body) {
    // /v1 ignores fields it does not know (forward compatibility); the control plane's shapes are exact.
    const unknown = droppedField(req.body ?? {}, input.body);
    if (unknown !== null) throw new ApiError('invalid_parameter', `${unknown}: unknown field`, { param: unknown });
  }
  let reply: StoredReply;
  if (route.idempotent && 'org' in ctx) {
    const key = requireKey(headerOf(req, 'idempotency-key'));
    const print = view.print ?? fingerprint(req.method, matched.path, req.body);
    noteIdempotentWrite(world, ctx.org.organization_id);
    reply = (await withIdempotency(world, ctx.org.organization_id, key, print, async () => runHandler(route, input, ctx))).reply;
    witnessIdempotentAnswer(world, ctx.org.organization_id, key, print, reply);
  } else {
    // Most handlers answer synchronously: only a promise is awaited.
    const out = runHandler(route, input, ctx);
    reply = out instanceof Promise ? await out : out;
  }
  if (api_key !== undefined) recordConduct(world, api_key, request_id, view, lost ? (lost === 'reset' ? 0 : 500) : reply.status, reply, lost !== null);
  if (lost === 'reset') {
    (res.locals as unknown as Locals).reset = true;
    res.socket?.destroy();
  } else if (lost === 'error_500') renderError(res, lostReplyError(), world, request_id);
  else send(res, reply, world, matched.control);
}

/** The handler's reply with its request_id, or its ApiError as the envelope (both are stored by idempotency). */
function runHandler(route: AnyRoute, input: { params: unknown; query: unknown; body: unknown }, ctx: ApiContext | PublicContext): StoredReply | Promise<StoredReply> {
  let out: Reply | Promise<Reply>;
  try {
    const handler = route.handler as (i: typeof input, c: typeof ctx) => Reply | Promise<Reply>;
    // What an organization's request schedules is its work: deleting the organization cancels it.
    out = 'org' in ctx ? ctx.world.sim.scheduler.runAs(ctx.org.organization_id, () => handler(input, ctx)) : handler(input, ctx);
  } catch (e) {
    return failedReply(e, ctx);
  }
  if (out instanceof Promise) return out.then((reply) => storedReply(route, reply, ctx.request_id), (e: unknown) => failedReply(e, ctx));
  return storedReply(route, out, ctx.request_id);
}

function storedReply(route: AnyRoute, reply: Reply, request_id: string): StoredReply {
  const status = reply.status ?? route.status ?? 200;
  return { status, body: status === 204 ? undefined : { request_id, ...reply.body }, headers: reply.headers };
}

/** An ApiError becomes its envelope; anything else is a bug and goes on to the error middleware. */
function failedReply(e: unknown, ctx: ApiContext | PublicContext): StoredReply {
  if (!(e instanceof ApiError)) throw e;
  const { status, body } = envelope(e, ctx.request_id, ctx.world.profile);
  return { status, body, headers: e.headers };
}

/** The query parameters a route declares: conduct keeps only these names (a client may send any number of others). */
const knownQueryNames = new WeakMap<AnyRoute, ReadonlySet<string>>();
function queryNamesOf(route: AnyRoute): ReadonlySet<string> {
  let names = knownQueryNames.get(route);
  if (names === undefined) {
    names = new Set(route.query instanceof z.ZodObject ? Object.keys(route.query.shape as object) : []);
    knownQueryNames.set(route, names);
  }
  return names;
}

function recordConduct(world: World, api_key: string, request_id: string, view: RequestView, status: number, reply: StoredReply, lost: boolean): void {
  const { req, route, matched } = view;
  const err = (reply.body as { error?: { code?: string } } | undefined)?.error;
  const names = queryNamesOf(route);
  let query = view.query;
  let unknown_query_params = 0;
  for (const name in view.query) if (!names.has(name)) unknown_query_params++;
  if (unknown_query_params > 0) {
    query = {};
    for (const name in view.query) if (names.has(name)) query[name] = view.query[name];
  }
  recordRequest(world, api_key, {
    request_id,
    wall_ms: (view.res.locals as unknown as Locals).wall_ms,
    method: req.method,
    path: matched.path,
    route_path: route.path,
    query,
    unknown_query_params,
    body: req.body,
    body_fingerprint: view.print,
    idempotency_key: headerOf(req, 'idempotency-key') ?? null,
    status,
    reply_body: reply.body,
    headers: reply.headers,
    error_code: err?.code ?? null,
    lost,
  });
}

/** Maps body-parser failures, ApiErrors and anything unexpected to the envelope. Unexpected = a bug. */
export function errorMiddleware(onBug: (err: unknown, request_id: string) => void) {
  return (err: unknown, _req: IncomingMessage, res: ApiResponse, _next: Next): void => {
    const locals = res.locals as Partial<Locals>;
    const world = locals.world;
    const request_id = locals.request_id ?? 'req_unknown';
    if (!world) {
      if (!res.headersSent) writeJson(res, 500, { request_id, error: { type: 'api_error', code: 'internal_error', message: 'internal error', request_id } }, undefined);
      return;
    }
    let api: ApiError;
    if (err instanceof ApiError) api = err;
    else {
      const type = (err as { type?: string }).type;
      if (type === 'entity.parse.failed') api = new ApiError('invalid_parameter', 'the request body is not valid JSON');
      // The connection closes with the answer: the rest of a refused body is never read (http/limits.ts).
      else if (type === 'entity.too.large') api = new ApiError('payload_too_large', 'the request body is larger than 1 MiB', { headers: { Connection: 'close' } });
      else if (type === 'request.timeout') api = new ApiError('request_timeout', 'the request body was not received in time', { headers: { Connection: 'close' } });
      else if (type === 'entity.too.deep') api = new ApiError('invalid_parameter', `the request body nests deeper than ${MAX_BODY_DEPTH} levels`);
      else if (type === 'encoding.invalid') api = new ApiError('invalid_parameter', 'the request body does not decode with its Content-Encoding', { param: 'Content-Encoding' });
      else if (type === 'encoding.unsupported') api = new ApiError('unsupported_media_type', 'unsupported body encoding or charset');
      else if (type === 'charset.unsupported') api = new ApiError('unsupported_media_type', 'the request body must be UTF-8 (Content-Type charset utf-8, or none)', { param: 'Content-Type' });
      // The message names no header value: a replay raises the error again from its recorded type alone.
      else if (type === 'content_type.unsupported') api = new ApiError('unsupported_media_type', 'the request body must be JSON sent with Content-Type: application/json', { param: 'Content-Type' });
      else if (err instanceof URIError) api = new ApiError('invalid_parameter', 'the request path has malformed percent-encoding');
      else if (type === 'request.aborted' || type === 'request.size.invalid' || type === 'stream.encoding.set') api = new ApiError('invalid_parameter', 'the request body could not be read');
      else {
        onBug(err, request_id);
        api = new ApiError('internal_error', 'internal error; this is a swapsim bug, please report it with the request_id');
      }
    }
    if (res.headersSent) return;
    renderError(res, api, world, request_id);
  };
}

/**
 * JSON body parsing (1 MiB limit) for every request with a body; jsonBody has checked its Content-Type. The raw
 * text is kept on the request for the journal, which records inputs exactly as they arrived. body-parser is the
 * parser express.json is, so its error `type`s (entity.parse.failed, …) are the ones journals hold.
 */
const parseJson = bodyParser.json({
  limit: MAX_BODY_BYTES,
  type: () => true,
  strict: false,
  verify: (req, _res, buf) => {
    // Depth is judged on the bytes, before JSON.parse: nothing downstream ever walks a deep body.
    checkDepth(buf);
    (req as ApiRequest).rawBody = buf.toString('utf8');
  },
});

/** `application/json`, any case, with or without parameters (`; charset=utf-8`; other charsets body-parser refuses). */
export function isJsonMediaType(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.split(';', 1)[0]!.trim().toLowerCase() === 'application/json';
}

/**
 * A body that is not `Content-Type: application/json` (the spec's body format): raised like body-parser's own
 * errors, by `type`, which the journal records and a replay raises again; errorMiddleware answers 415.
 */
const unsupportedContentType = (): Error => Object.assign(new Error('content type is not application/json'), { type: 'content_type.unsupported' });

/**
 * A request without a body (no Content-Length nor Transfer-Encoding: every GET; or Content-Length: 0) is not held
 * to a Content-Type, as the parser itself would not. body-parser reads node's request only.
 */
export const jsonBody = (req: ApiRequest, res: ServerResponse, next: Next): void => {
  const length = req.headers['content-length'];
  if (length === undefined && req.headers['transfer-encoding'] === undefined) next();
  else if (length !== '0' && !isJsonMediaType(req.headers['content-type'])) next(unsupportedContentType());
  else parseJson(req, res, (err?: unknown) => next(err === undefined ? undefined : typedBodyError(err, headerOf(req, 'content-encoding'))));
};

/** Route path `/a/:id` → OpenAPI `/a/{id}`. */
export function openapiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
