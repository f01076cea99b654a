// The clients' only way to the fake (the scenario DSL, verify, lib/sim.ts, `swapsim listen`): plain HTTP
// (fetch) to /v1 with a bearer key and to /_sim, so a scenario runs the same against an in-process server or
// a swapsim started elsewhere. Replies are typed
// from the route declarations (lib/api-types.ts): the body is the route's success body.
import type { ControlBody, HttpMethod, V1Body } from './api-types.ts';
import type { ApiError } from './types.ts';
import { WALL } from '../sim/wall.ts';

/** An HTTP answer. `body` is typed as the route's success body; on an error status it is the error envelope. */
export interface Reply<T = unknown> {
  /** 0 when the connection failed (e.g. a `lose_response` fault in `reset` mode). */
  status: number;
  body: T;
  headers: Headers;
  /** The network error, when status is 0. */
  network_error?: string;
}

/** The `error` of an error envelope (spec: Errors), or undefined for any other body. */
export function errorOf(body: unknown): ApiError | undefined {
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
    ? (error as ApiError)
    : undefined;
}

/** The `error.code` of an error envelope, or undefined for any other body. */
export function errorCode(body: unknown): string | undefined {
  return errorOf(body)?.code;
}

export interface CallOptions {
  body?: unknown;
  /** Idempotency-Key to send; writes get a fresh deterministic one unless given (null: none). */
  idem?: string | null;
  /** Bearer key; null sends none (public endpoints); default the scenario org's key. */
  key?: string | null;
  headers?: Record<string, string>;
  /** false: hand a 429 back as is (a rate-limit storm counts them); default: wait its Retry-After and resend. */
  retry_429?: boolean;
}

/** Resends after a 429 at most this many times (same Idempotency-Key), waiting Retry-After (1 s without one). */
const MAX_429_RETRIES = 8;

export async function request<T = unknown>(url: string, method: string, body: unknown, headers: Record<string, string>): Promise<Reply<T>> {
  const h: Record<string, string> = { ...headers };
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) h['content-type'] ??= 'application/json';
  try {
    const res = await fetch(url, { method, headers: h, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  } catch (err) {
    return {
      status: 0,
      body: undefined as T,
      headers: new Headers(),
      network_error: err instanceof Error ? `${err.message}${err.cause ? `: ${String(err.cause)}` : ''}` : String(err),
    };
  }
}

/**
 * A /v1 client: bearer key and Idempotency-Keys `<prefix>-<n>` on writes, so reruns send the same keys. A 429
 * is waited out (its Retry-After, in wall time) and resent with the same key, as the spec asks of a client:
 * an organization a trigger runs in has the spec's limits (5 firm RFQs/s), not a scenario's unthrottled ones.
 */
export function apiClient(base_url: string, api_key: string, idem_prefix: string, wait: (ms: number) => Promise<void> = WALL.wait) {
  let n = 0;
  return {
    base_url,
    api_key,
    async call<M extends HttpMethod, P extends string>(method: M, path: P, o: CallOptions = {}): Promise<Reply<V1Body<M, P>>> {
      const upper = method.toUpperCase();
      const headers: Record<string, string> = { ...o.headers };
      const key = o.key === undefined ? api_key : o.key;
      if (key !== null) headers.authorization = `Bearer ${key}`;
      const write = upper === 'POST' || upper === 'PUT' || upper === 'PATCH' || upper === 'DELETE';
      const idem = o.idem === undefined ? (write ? `${idem_prefix}-${++n}` : null) : o.idem;
      if (idem !== null) headers['idempotency-key'] = idem;
      for (let attempt = 0; ; attempt++) {
        const r = await request<V1Body<M, P>>(base_url + path, upper, o.body, headers);
        if (r.status !== 429 || o.retry_429 === false || attempt >= MAX_429_RETRIES) return r;
        const after_s = Number(r.headers.get('retry-after'));
        await wait(Number.isFinite(after_s) && after_s > 0 ? after_s * 1_000 + 20 : 1_000);
      }
    },
  };
}

/**
 * A /_sim client; `token` when the server was started with --control-token. `organization_id`: every call is
 * scoped to that organization's own world (one created with a clock of its own; docs/control-plane.md).
 */
export function controlClient(control_url: string, token?: string, organization_id?: string) {
  const scoped = (path: string): string =>
    organization_id === undefined ? path : `${path}${path.includes('?') ? '&' : '?'}organization_id=${encodeURIComponent(organization_id)}`;
  return {
    control_url,
    call<M extends HttpMethod, P extends string>(method: M, path: P, body?: unknown): Promise<Reply<ControlBody<M, P>>> {
      return request<ControlBody<M, P>>(
        control_url + scoped(path),
        method.toUpperCase(),
        body,
        token ? { authorization: `Bearer ${token}` } : {},
      );
    },
  };
}

export type ApiClient = ReturnType<typeof apiClient>;
export type ControlClient = ReturnType<typeof controlClient>;
