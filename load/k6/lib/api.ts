// The /v1 client the scripts share: bearer auth, JSON bodies, Idempotency-Keys, tags per endpoint
// (so `name` groups URLs with ids), and readers for the error envelope and Retry-After.
import http from 'k6/http';
import type { RefinedResponse, ResponseType } from 'k6/http';

export type Res = RefinedResponse<ResponseType | undefined>;

export interface CallOptions {
  key: string;
  body?: unknown;
  idem?: string;
  /** Groups requests in metrics: `/accounts/{id}/credits`, not one series per id. */
  name?: string;
  tags?: { [tag: string]: string };
  /** Statuses this request expects besides 2xx/3xx and 429 (404 not_available while a wallet is derived,
   *  409 on a deliberately reused key): kept out of http_req_failed, which then shows real failures only. */
  expected?: number[];
}

export function call(base_url: string, method: string, path: string, o: CallOptions): Res {
  const headers: { [h: string]: string } = { Authorization: `Bearer ${o.key}`, Accept: 'application/json' };
  if (o.body !== undefined) headers['Content-Type'] = 'application/json';
  if (o.idem !== undefined) headers['Idempotency-Key'] = o.idem;
  const tags: { [tag: string]: string } = { ...(o.tags || {}) };
  if (o.name !== undefined) tags.name = o.name;
  const body = o.body === undefined ? null : JSON.stringify(o.body);
  if (o.expected === undefined) return http.request(method, base_url + path, body, { headers, tags });
  const responseCallback = http.expectedStatuses({ min: 200, max: 399 }, 429, ...o.expected);
  return http.request(method, base_url + path, body, { headers, tags, responseCallback });
}

/** The parsed JSON body, or null when the body is absent or not JSON (a proxy's HTML page, say). */
export function json(res: Res): any {
  if (typeof res.body !== 'string' || res.body.length === 0) return null;
  try {
    return JSON.parse(res.body);
  } catch (_e) {
    return null;
  }
}

/** A header by name, case-insensitively: proxies and runtimes differ in how they spell names. */
function header(res: Res, name: string): string | undefined {
  const want = name.toLowerCase();
  for (const k of Object.keys(res.headers || {})) if (k.toLowerCase() === want) return res.headers[k];
  return undefined;
}

/** The spec's error envelope: error.{type, code, message, request_id} strings; `code` when given must match. */
export function hasErrorEnvelope(res: Res, code?: string): boolean {
  const b = json(res);
  const e = b && typeof b === 'object' ? b.error : null;
  if (!e || typeof e !== 'object') return false;
  const strings = ['type', 'code', 'message', 'request_id'].every((f) => typeof e[f] === 'string' && e[f].length > 0);
  return strings && (code === undefined || e.code === code);
}

/**
 * Retry-After in milliseconds, or null when absent or malformed. RFC 9110 allows delay-seconds or an
 * HTTP-date; both are accepted.
 */
export function retryAfterMs(res: Res, now_ms: number = Date.now()): number | null {
  const v = header(res, 'Retry-After');
  if (v === undefined) return null;
  const t = v.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  const date = Date.parse(t);
  return Number.isNaN(date) ? null : Math.max(0, date - now_ms);
}

export const is2xx = (res: Res): boolean => res.status >= 200 && res.status < 300;
/** A reply worth retrying with the same Idempotency-Key: a 5xx or no reply at all (status 0). */
export const isRetryable = (res: Res): boolean => res.status === 0 || res.status >= 500;
