// TEST FIXTURE, not a load tool: the double of `k6/http`. Requests are synchronous as in k6 (the
// worker blocks until the main thread has the reply); each records http_reqs, http_req_duration and,
// unless the response callback is disabled, http_req_failed, tagged as k6 tags them.
import { addSample, syncHttp, vu } from './vu-runtime.ts';
import type { HttpReplyMsg } from './protocol.ts';

type Expected = { min: number; max: number } | number;
interface ExpectedStatuses {
  __expected: (status: number) => boolean;
}

interface Params {
  headers?: { [h: string]: string };
  tags?: { [t: string]: string };
  timeout?: string | number;
  responseCallback?: ExpectedStatuses | null;
}

export interface DoubleResponse {
  status: number;
  body: string;
  headers: { [h: string]: string };
  error: string;
  error_code: number;
  url: string;
  timings: { duration: number; waiting: number };
  request: { method: string; url: string };
  json(selector?: string): unknown;
}

export function expectedStatuses(...statuses: Expected[]): ExpectedStatuses {
  return {
    __expected: (s) => statuses.some((e) => (typeof e === 'number' ? s === e : s >= e.min && s <= e.max)),
  };
}

export function setResponseCallback(cb: ExpectedStatuses | null): void {
  vu().expected = cb === null ? false : cb.__expected;
}

function timeoutMs(t: string | number | undefined): number {
  if (t === undefined) return 60_000;
  if (typeof t === 'number') return t;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(t);
  if (!m) return 60_000;
  return Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 's' ? 1000 : 60_000);
}

function response(method: string, url: string, r: HttpReplyMsg): DoubleResponse {
  return {
    status: r.status,
    body: r.body,
    headers: r.headers,
    error: r.error,
    error_code: r.error_code,
    url: r.url,
    timings: { duration: r.duration_ms, waiting: r.duration_ms },
    request: { method, url },
    json(selector?: string) {
      const v = JSON.parse(r.body);
      return selector === undefined ? v : selector.split('.').reduce((o: any, k) => (o == null ? undefined : o[k]), v);
    },
  };
}

export function request(method: string, url: string, body?: string | null | object, params: Params = {}): DoubleResponse {
  if (body !== null && body !== undefined && typeof body !== 'string') throw new Error('k6 double: only string bodies are implemented');
  const reply = syncHttp({
    method: method.toUpperCase(),
    url,
    body: body ?? null,
    headers: params.headers ?? {},
    timeout_ms: timeoutMs(params.timeout),
  });
  const v = vu();
  const callback =
    params.responseCallback === undefined ? v.expected : params.responseCallback === null ? false : params.responseCallback.__expected;
  const tags: { [t: string]: string } = {
    method: method.toUpperCase(),
    url,
    name: url,
    status: String(reply.status),
    ...(params.tags ?? {}),
  };
  if (callback !== false) {
    const expected = callback === null ? reply.status >= 200 && reply.status < 400 : callback(reply.status);
    tags.expected_response = String(expected);
    addSample('http_req_failed', 'rate', false, expected ? 0 : 1, tags);
  }
  addSample('http_reqs', 'counter', false, 1, tags);
  addSample('http_req_duration', 'trend', true, reply.duration_ms, tags);
  return response(method.toUpperCase(), url, reply);
}

export const get = (url: string, params?: Params) => request('GET', url, null, params);
export const head = (url: string, params?: Params) => request('HEAD', url, null, params);
export const del = (url: string, body?: string | null, params?: Params) => request('DELETE', url, body, params);
export const post = (url: string, body?: string | null, params?: Params) => request('POST', url, body, params);
export const put = (url: string, body?: string | null, params?: Params) => request('PUT', url, body, params);
export const patch = (url: string, body?: string | null, params?: Params) => request('PATCH', url, body, params);

export default { request, get, head, del, post, put, patch, expectedStatuses, setResponseCallback };
