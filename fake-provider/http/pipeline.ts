// The serving pipeline of one declared route (contract/route.ts) on the framework's request and reply: bearer
// auth, rate limits, http faults, input parsing, idempotency, the reply (JSON, 204, a lost reply) and the error
// envelope. What watches answers (conduct, the oracle's idempotency witness) is an observer handed in by the
// app (app.ts registers them), never called from here by name. planes.ts mounts the routes on the framework.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { World } from '../world.ts';
import type { HistorySource } from '../resource-records.ts';
import { authenticate } from './auth.ts';
import { ApiError, envelope } from '../contract/errors.ts';
import { fingerprint, requireKey, withIdempotency, type StoredReply } from './idempotency.ts';
import { classesFor, limitRequest, type RateLimiter } from './rate-limits.ts';
import { droppedField, parseWith } from '../contract/validate.ts';
import { holdOnSimClock, httpFault, lostReplyError, NO_HTTP_FAULT, type HttpFault } from './faults.ts';
import { MAX_BODY_DEPTH } from './limits.ts';
import type { AnyRoute, ApiContext, PublicContext, Reply } from '../contract/route.ts';

/** What a request is given once it has begun (replay/record.ts): its world and id, and what a journal recorded. */
export interface Locals {
  world: World;
  request_id: string;
  /** Set only when journaling or replaying: the request's wall time and client address, as journaled. */
  wall_ms?: number;
  ip?: string;
  /** The connection is reset on purpose (`lose_response`): a journal records a reset, not a client gone away. */
  reset?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Null until the request has begun (planes.ts decorates every request with it). */
    locals: Locals | null;
    /** The body's text as it arrived (after Content-Encoding), for the journal; undefined without a body. */
    rawBody: string | undefined;
  }
}

/** A request header as one string (node joins repeated headers except the ones it drops). */
export function headerOf(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** The locals of a request that has begun (every route and error answer runs after begin). */
function localsOf(request: FastifyRequest): Locals {
  if (request.locals === null) throw new Error('swapsim bug: a request was served before it began');
  return request.locals;
}

/** The client address a request is judged by: the journaled one in a replay, else the socket's. */
export const clientIp = (request: FastifyRequest): string => request.locals?.ip ?? request.raw.socket.remoteAddress ?? 'unknown';

/** An authenticated request's answer, as observers see it (conduct records it). */
export interface AnsweredRequest {
  world: World;
  api_key: string;
  request_id: string;
  wall_ms: number | undefined;
  method: string;
  /** Path under /v1 as sent. */
  path: string;
  route: AnyRoute;
  /** The query as parsed (every parameter sent, declared or not). */
  query: Record<string, unknown>;
  body: unknown;
  /** A write's fingerprint (method, path, canonical body), hashed once; null for reads. */
  body_fingerprint: string | null;
  idempotency_key: string | null;
  /** The status the client saw (0 for a reset connection). */
  status: number;
  reply: StoredReply;
  /** The reply was lost on purpose (`lose_response`). */
  lost: boolean;
}

/**
 * Watches the pipeline's answers without being part of them (app.ts registers them all, in one place).
 * Called synchronously, in the order the pipeline reaches each point, so what they record is deterministic.
 */
export interface RequestObserver {
  /** An authenticated request was answered, or refused once its key was known. */
  answered?(a: AnsweredRequest): void;
  /** An IDEM write is about to reach the idempotency store (replays and refusals included). */
  idempotentWrite?(world: World, org_id: string): void;
  /** The answer an IDEM write got under its key and payload. */
  idempotentAnswer?(world: World, org_id: string, key: string, print: string, reply: StoredReply): void;
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
 * A JSON answer: serialized here (one JSON.stringify, no schema), `application/json; charset=utf-8`; the
 * framework adds Content-Length and sends headers only for HEAD.
 */
export function sendJson(reply: FastifyReply, status: number, body: unknown, headers: Record<string, string> | undefined): FastifyReply {
  reply.code(status);
  if (headers) reply.headers(headers);
  return reply.header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));
}

function send(reply: FastifyReply, stored: StoredReply, world: World, control: boolean): void {
  if (stored.status === 204) {
    if (stored.headers) reply.headers(stored.headers);
    reply.code(204).send();
    return;
  }
  // The control plane's shapes are exact (design.md); only /v1 answers grow unknown fields.
  sendJson(
    reply,
    stored.status,
    world.profile.extra_response_fields && !control ? withExtensionFields(stored.body) : stored.body,
    stored.headers,
  );
}

/** The envelope of an ApiError, with its headers. */
export function sendError(reply: FastifyReply, err: ApiError, world: World, request_id: string): void {
  const { status, body } = envelope(err, request_id, world.profile);
  sendJson(reply, status, body, err.headers);
}

/** Where a route is mounted: the length of its plane's prefix, and whether it is the control plane. */
export interface Mount {
  prefix_length: number;
  /** Served under /_sim: its answers keep their exact shapes and its bodies are strict. */
  control: boolean;
}

/** What every route of an app shares: the rate limiter, the resource modules handed to handlers, the observers. */
export interface Serving {
  limiter: RateLimiter;
  resources: readonly HistorySource[];
  observers: readonly RequestObserver[];
}

/** The path of a request under its plane's prefix, as sent (no query), `/` for the bare prefix. */
export function pathUnder(url: string, prefix_length: number): string {
  const q = url.indexOf('?');
  return (q < 0 ? url.slice(prefix_length) : url.slice(prefix_length, q)) || '/';
}

/** The per-request facts the pipeline reads once and hands on. */
interface RequestView {
  route: AnyRoute;
  request: FastifyRequest;
  reply: FastifyReply;
  serving: Serving;
  control: boolean;
  path: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** method + path + canonical body of a write, hashed once for both the idempotency store and observers. */
  print: string | null;
  /** Known once authenticated: every answer from then on goes to the observers. */
  api_key: string | undefined;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The framework handler of one declared route: auth, rate limit, http faults, idempotency, observers, reply.
 * Synchronous wherever the request can be answered at once (a read under its limit, with no fault and a handler
 * that answers synchronously: most requests); a promise only where something waits (a fixed-window limiter, a
 * journaled limit, a `delay_ms` hold, the idempotency store, an async handler). An async function here cost every
 * request its suspended frames and promise reactions (load/http-bench).
 */
export function serveRoute(
  route: AnyRoute,
  serving: Serving,
  mount: Mount,
): (request: FastifyRequest, reply: FastifyReply) => Promise<void> | undefined {
  return (request, reply) => {
    const { world, request_id } = localsOf(request);
    const view: RequestView = {
      route,
      request,
      reply,
      serving,
      control: mount.control,
      path: pathUnder(request.url, mount.prefix_length),
      params: request.params as Record<string, string>,
      query: request.query as Record<string, unknown>,
      print: null,
      api_key: undefined,
    };
    try {
      let answered: Promise<void> | undefined;
      if (route.auth === 'public') answered = proceed(view, { world, request_id, ip: clientIp(request) }, NO_HTTP_FAULT);
      else {
        const who = authenticate(world, request.headers.authorization, clientIp(request), request_id);
        view.api_key = who.api_key;
        if (WRITE_METHODS.has(request.method)) view.print = fingerprint(request.method, view.path, request.body);
        const limited = limitRequest(
          serving.limiter,
          world,
          request_id,
          who.org,
          who.api_key,
          classesFor(request.method, route.path, request.body),
        );
        const ctx: ApiContext = { world, org: who.org, api_key: who.api_key, request_id, resources: serving.resources };
        if (limited === undefined) answered = proceed(view, ctx, httpFault(world, request.method, view.path, view.params.account_id));
        else answered = limited.then(() => proceed(view, ctx, httpFault(world, request.method, view.path, view.params.account_id)));
      }
      return answered?.catch((e: unknown) => failed(view, world, request_id, e));
    } catch (e) {
      return failed(view, world, request_id, e);
    }
  };
}

/** Tells the observers about a refusal of an authenticated request, then hands the error on to the framework. */
function failed(view: RequestView, world: World, request_id: string, e: unknown): never {
  if (view.api_key !== undefined && e instanceof ApiError) {
    const { status, body } = envelope(e, request_id, world.profile);
    observeAnswer(world, view.api_key, request_id, view, status, { status, body, headers: e.headers }, false);
  }
  throw e;
}

/** Past the limits: the rest of the request, now or (a `delay_ms` rule) as a sim-clock task that runs it when released. */
function proceed(view: RequestView, ctx: ApiContext | PublicContext, fault: HttpFault): Promise<void> | undefined {
  if (fault.delay_ms > 0) return holdOnSimClock(ctx.world, fault.delay_ms, async () => answer(view, ctx, fault));
  return answer(view, ctx, fault);
}

/** Parses the input, runs the handler (once per Idempotency-Key on IDEM routes), tells the observers and answers. */
function answer(view: RequestView, ctx: ApiContext | PublicContext, fault: HttpFault): Promise<void> | undefined {
  const { route, request, serving } = view;
  const { world } = ctx;
  if (fault.error) throw fault.error;
  const body = request.body;
  if (route.body !== undefined && body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
    throw new ApiError('invalid_parameter', 'the request body must be a JSON object');
  }
  const input = {
    params: route.params ? parseWith(route.params, view.params, 'path') : undefined,
    query: route.query ? parseWith(route.query, view.query, 'query') : undefined,
    body: route.body ? parseWith(route.body, body ?? {}, 'body') : undefined,
  };
  if (view.control && route.body) {
    // /v1 ignores fields it does not know (forward compatibility); the control plane's shapes are exact.
    const unknown = droppedField(body ?? {}, input.body);
    if (unknown !== null) throw new ApiError('invalid_parameter', `${unknown}: unknown field`, { param: unknown });
  }
  if (route.idempotent && 'org' in ctx) {
    const key = requireKey(headerOf(request, 'idempotency-key'));
    const print = view.print ?? fingerprint(request.method, view.path, body);
    const org_id = ctx.org.organization_id;
    for (const o of serving.observers) o.idempotentWrite?.(world, org_id);
    return withIdempotency(world, org_id, key, print, async () => runHandler(route, input, ctx)).then(({ reply: stored }) => {
      for (const o of serving.observers) o.idempotentAnswer?.(world, org_id, key, print, stored);
      deliver(view, ctx, fault, stored);
    });
  }
  // Most handlers answer synchronously: only a promise is waited for.
  const out = runHandler(route, input, ctx);
  if (out instanceof Promise) return out.then((stored) => deliver(view, ctx, fault, stored));
  deliver(view, ctx, fault, out);
  return undefined;
}

/** Tells the observers what the client sees, then answers: the reply, or the fault's lost reply. */
function deliver(view: RequestView, ctx: ApiContext | PublicContext, fault: HttpFault, stored: StoredReply): void {
  const { request, reply } = view;
  const { world, request_id } = ctx;
  const lost = fault.lost;
  if (view.api_key !== undefined)
    observeAnswer(world, view.api_key, request_id, view, lost ? (lost === 'reset' ? 0 : 500) : stored.status, stored, lost !== null);
  if (lost === 'reset') {
    // The framework is told the reply is handled elsewhere: the connection goes without one.
    reply.hijack();
    localsOf(request).reset = true;
    request.raw.socket?.destroy();
  } else if (lost === 'error_500') sendError(reply, lostReplyError(), world, request_id);
  else send(reply, stored, world, view.control);
}

/** The handler's reply with its request_id, or its ApiError as the envelope (both are stored by idempotency). */
function runHandler(
  route: AnyRoute,
  input: { params: unknown; query: unknown; body: unknown },
  ctx: ApiContext | PublicContext,
): StoredReply | Promise<StoredReply> {
  let out: Reply | Promise<Reply>;
  try {
    const handler = route.handler as (i: typeof input, c: typeof ctx) => Reply | Promise<Reply>;
    // What an organization's request schedules is its work: deleting the organization cancels it.
    out = 'org' in ctx ? ctx.world.sim.scheduler.runAs(ctx.org.organization_id, () => handler(input, ctx)) : handler(input, ctx);
  } catch (e) {
    return failedReply(e, ctx);
  }
  if (out instanceof Promise)
    return out.then(
      (reply) => storedReply(route, reply, ctx.request_id),
      (e: unknown) => failedReply(e, ctx),
    );
  return storedReply(route, out, ctx.request_id);
}

function storedReply(route: AnyRoute, reply: Reply, request_id: string): StoredReply {
  const status = reply.status ?? route.status ?? 200;
  return { status, body: status === 204 ? undefined : { request_id, ...reply.body }, headers: reply.headers };
}

/** An ApiError becomes its envelope; anything else is a bug and goes on to the error handler. */
function failedReply(e: unknown, ctx: ApiContext | PublicContext): StoredReply {
  if (!(e instanceof ApiError)) throw e;
  const { status, body } = envelope(e, ctx.request_id, ctx.world.profile);
  return { status, body, headers: e.headers };
}

function observeAnswer(
  world: World,
  api_key: string,
  request_id: string,
  view: RequestView,
  status: number,
  reply: StoredReply,
  lost: boolean,
): void {
  const { request } = view;
  const a: AnsweredRequest = {
    world,
    api_key,
    request_id,
    wall_ms: request.locals?.wall_ms,
    method: request.method,
    path: view.path,
    route: view.route,
    query: view.query,
    body: request.body,
    body_fingerprint: view.print,
    idempotency_key: headerOf(request, 'idempotency-key') ?? null,
    status,
    reply,
    lost,
  };
  for (const o of view.serving.observers) o.answered?.(a);
}

/** The query parameter names a route declares (conduct keeps only these; a client may send any number of others). */
const declaredQueryNames = new WeakMap<AnyRoute, ReadonlySet<string>>();
export function queryNamesOf(route: AnyRoute): ReadonlySet<string> {
  let names = declaredQueryNames.get(route);
  if (names === undefined) {
    names = new Set(route.query instanceof z.ZodObject ? Object.keys(route.query.shape as object) : []);
    declaredQueryNames.set(route, names);
  }
  return names;
}

/**
 * The envelope's error for a request body that could not be read, by its `type` (body.ts gives every such
 * failure one; a journal records the type and a replay raises it again). Null for a type that is not a body's.
 */
function bodyApiError(type: string | undefined): ApiError | null {
  switch (type) {
    case 'entity.parse.failed':
      return new ApiError('invalid_parameter', 'the request body is not valid JSON');
    case 'entity.not_utf8':
      return new ApiError('invalid_parameter', 'the request body is not valid UTF-8 (JSON text is UTF-8)');
    // The connection closes with the answer: the rest of a refused body is never read (body.ts).
    case 'entity.too.large':
      return new ApiError('payload_too_large', 'the request body is larger than 1 MiB', { headers: { Connection: 'close' } });
    case 'request.timeout':
      return new ApiError('request_timeout', 'the request body was not received in time', { headers: { Connection: 'close' } });
    case 'entity.too.deep':
      return new ApiError('invalid_parameter', `the request body nests deeper than ${MAX_BODY_DEPTH} levels`);
    case 'encoding.invalid':
      return new ApiError('invalid_parameter', 'the request body does not decode with its Content-Encoding', { param: 'Content-Encoding' });
    case 'encoding.unsupported':
      return new ApiError('unsupported_media_type', 'unsupported body encoding or charset');
    case 'charset.unsupported':
      return new ApiError('unsupported_media_type', 'the request body must be UTF-8 (Content-Type charset utf-8, or none)', {
        param: 'Content-Type',
      });
    // The message names no header value: a replay raises the error again from its recorded type alone.
    case 'content_type.unsupported':
      return new ApiError('unsupported_media_type', 'the request body must be JSON sent with Content-Type: application/json', {
        param: 'Content-Type',
      });
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new ApiError('invalid_parameter', 'the request body could not be read');
    default:
      return null;
  }
}

/** A request URL with malformed percent-encoding (the router cannot decode a parameter of it). */
export const badUrlError = (): ApiError => new ApiError('invalid_parameter', 'the request path has malformed percent-encoding');

/** Any failure as the envelope's error: an ApiError as it is, a body failure by its type, anything else a bug. */
export function apiErrorOf(err: unknown, onBug: () => void): ApiError {
  if (err instanceof ApiError) return err;
  const fromBody = bodyApiError((err as { type?: string } | null)?.type);
  if (fromBody !== null) return fromBody;
  onBug();
  return new ApiError('internal_error', 'internal error; this is a swapsim bug, please report it with the request_id');
}
