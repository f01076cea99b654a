// Client conduct per API key: one record per authenticated /v1 request and the findings derived from
// them as they arrive (Retry-After ignored, polls too fast, key reuse, retries without a key, has_more ignored).
// Memory is a tenant's budget: a string the server refused (an over-long Idempotency-Key, a query parameter no
// route knows) is counted, never kept, and an organization's keys hold at most `conduct_max_bytes_per_org`.
import { wallNow_ms } from '../../sim/clock.ts';
import { defineStore, type World } from '../world.ts';
import { fingerprint, IDEMPOTENCY_KEY_MAX_CHARS } from '../http/idempotency.ts';
import { orgOfKey } from '../http/auth.ts';
import { formatId, parseId } from '../engine/ids.ts';

type FindingKind = 'retry_after_ignored' | 'poll_too_fast' | 'idempotency_key_reuse' | 'retry_without_idempotency_key' | 'ignored_has_more';

interface Finding {
  kind: FindingKind;
  api_key_suffix: string;
  request_ids: string[];
  message: string;
}

interface ConductRequest {
  request_id: string;
  method: string;
  path: string;
  idempotency_key: string | null;
  /** method + path + canonical body, as the idempotency store prints it; null for reads. */
  body_fingerprint: string | null;
  status: number;
  /** The reply was lost by a `lose_response` fault (the client saw a 500 or a reset). */
  lost: boolean;
  retry_after_s: number | null;
  poll_after_ms: number | null;
  has_more: boolean | null;
  next_cursor: string | null;
  sim_ms: number;
  wall_ms: number;
}

/** What the route wrapper knows about one finished request. */
export interface RequestFacts {
  request_id: string;
  method: string;
  /** Path under /v1 as sent. */
  path: string;
  /** The declared route path, e.g. `/trades/:trade_id`. */
  route_path: string;
  /** The query parameters the route knows (the others are only counted: `unknown_query_params`). */
  query: Record<string, unknown>;
  /** How many query parameters the route does not know were sent. */
  unknown_query_params?: number;
  body: unknown;
  /** The write's fingerprint when the caller already computed it (the route wrapper hashes a body once). */
  body_fingerprint?: string | null;
  idempotency_key: string | null;
  status: number;
  reply_body: unknown;
  headers: Record<string, string> | undefined;
  error_code: string | null;
  lost: boolean;
  /** The request's wall time when a journal recorded it (a replay feeds the recorded one back). */
  wall_ms?: number;
}

/**
 * Slack a poll gets on a realtime clock before it is "too fast". There sim time moves in the driver's ticks
 * (every 20 ms, later when the event loop is busy), so a client that waited poll_after_ms of wall time can
 * show less sim time, even 0 ms after a reply that said 3 ms. The poll is then measured on wall time × speed
 * too (the larger counts), less this for timer and clock granularity. On a virtual clock: no slack.
 */
const REALTIME_POLL_TOLERANCE_MS = 20;

/** Records kept per key (oldest dropped first). */
export const CONDUCT_REQUESTS_KEPT = 1000;
/** Findings kept per key, and entries per tracking map (polls, Idempotency-Keys, failed writes, lists); oldest dropped first. */
export const CONDUCT_WINDOW = 10_000;

/**
 * A record as the ring holds it: the request id as its drawn parts (two numbers kept in the slot), or as text
 * when it is no world-drawn id. A fresh string per request stored into a long-lived slot outlived its request:
 * copied by the young collector, then promoted, a cost on every request (load/http-bench).
 */
type Slot = Omit<ConductRequest, 'request_id'> & { id_random: number; id_counter: number; id_text: string | null };

/**
 * One key's request records, oldest first: the newest KEPT to 2×KEPT−1 (trimmed in batches, amortized O(1) per
 * request), in a ring of record objects overwritten in place. A fresh record per request lived just long
 * enough to be copied twice by the garbage collector: that was most of conduct's cost on the balances read
 * (load/http-bench). Readers get copies.
 */
class RequestLog {
  private readonly slots: Slot[] = [];
  private start = 0;
  length = 0;

  /** The record to fill for a new request `request_id` (the oldest slot is reused once the ring is full). */
  append(request_id: string): Slot {
    const i = (this.start + this.length) % (2 * CONDUCT_REQUESTS_KEPT);
    this.length++;
    let r = this.slots[i];
    if (r === undefined) {
      r = {
        id_random: 0,
        id_counter: 0,
        id_text: null,
        method: '',
        path: '',
        idempotency_key: null,
        body_fingerprint: null,
        status: 0,
        lost: false,
        retry_after_s: null,
        poll_after_ms: null,
        has_more: null,
        next_cursor: null,
        sim_ms: 0,
        wall_ms: 0,
      };
      this.slots.push(r);
    }
    const parts = parseId(REQUEST_ID_PREFIX, request_id);
    if (parts === null) r.id_text = request_id;
    else {
      r.id_text = null;
      r.id_random = parts.random;
      r.id_counter = parts.counter;
    }
    return r;
  }

  /** Forgets the `n` oldest records. */
  dropOldest(n: number): void {
    this.start = (this.start + n) % (2 * CONDUCT_REQUESTS_KEPT);
    this.length -= n;
  }

  /** The record `i` places from the oldest. */
  at(i: number): Slot {
    return this.slots[(this.start + i) % (2 * CONDUCT_REQUESTS_KEPT)];
  }

  /** Copies of the newest `n` records, oldest first, each with its request id printed back as it was drawn. */
  newest(n: number): ConductRequest[] {
    const out: ConductRequest[] = [];
    for (let i = Math.max(0, this.length - n); i < this.length; i++) {
      const slot = this.at(i);
      const { id_random, id_counter, id_text, ...rest } = slot;
      out.push({ request_id: requestIdOf(slot), ...rest });
    }
    return out;
  }
}

const REQUEST_ID_PREFIX = 'req';
/** The request id a slot holds, exactly as it was drawn. */
const requestIdOf = (r: Slot): string => r.id_text ?? formatId(REQUEST_ID_PREFIX, r.id_random, r.id_counter);

/** Keeps a map's newest `CONDUCT_WINDOW` entries (insertion order), trimmed in batches: amortized O(1) per request. */
function bound(map: Map<string, unknown>): void {
  if (map.size < 2 * CONDUCT_WINDOW) return;
  for (const k of map.keys()) {
    if (map.size <= CONDUCT_WINDOW) break;
    map.delete(k);
  }
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const POLLED_ROUTE = /^\/(rfqs|trades|zaps|cancels)\/:[a-z_]+$/;
/** Per declared route path (a handful, fixed at start): whether GETs on it are polls. */
const polledRoutes = new Map<string, boolean>();
function isPolledRoute(route_path: string): boolean {
  let polled = polledRoutes.get(route_path);
  if (polled === undefined) polledRoutes.set(route_path, (polled = POLLED_ROUTE.test(route_path)));
  return polled;
}
const CREATED_ROUTE = /^\/(rfqs|trades|zaps|cancels)$/;

interface KeyConduct {
  /** The organization whose byte budget this record counts against. */
  org_id: string;
  /** Estimated bytes held (an upper bound between trims; measured exactly when its organization is over budget). */
  bytes: number;
  /** Refused strings, counted instead of kept: Idempotency-Keys past the limit, unknown query parameter names. */
  refused: { long_idempotency_keys: number; unknown_query_params: number };
  requests: RequestLog;
  findings: Finding[];
  /** The last 429 that carried Retry-After: its request and the wall time it allows again. */
  throttle: { request_id: string; until_wall_ms: number } | null;
  /** Per polled path: the last poll and the poll_after_ms it was given (sim time). */
  polls: Map<string, { request_id: string; at_ms: number; wall_ms: number; poll_after_ms: number }>;
  /** First request per Idempotency-Key. */
  keys: Map<string, string>;
  /** Writes that got a 5xx or lost reply, by body fingerprint, awaiting their retry. */
  failed_writes: Map<string, { request_id: string; idempotency_key: string | null }>;
  /** Per list (path + filters, cursor and limit ignored): a first page that said has_more. */
  lists: Map<string, { request_id: string; next_cursor: string | null }>;
}

const conduct = defineStore('conduct', () => new Map<string, KeyConduct>());
/** Estimated bytes per organization over its keys' records. */
const orgBytes = defineStore('conduct-bytes', () => new Map<string, number>());

/** Per stored entry besides its strings (objects, map slots; a rough V8 figure: a bound, not accounting). */
const ENTRY_OVERHEAD_BYTES = 120;
const strBytes = (s: string | null | undefined): number => (s == null ? 0 : 2 * s.length);

const keySuffix = (api_key: string): string => api_key.slice(-4);
const maskKey = (api_key: string): string => `…${keySuffix(api_key)}`;

function forKey(world: World, api_key: string): KeyConduct {
  const store = conduct(world);
  let c = store.get(api_key);
  if (!c) {
    const org_id = orgOfKey(world, api_key)?.organization_id ?? '';
    c = {
      org_id,
      bytes: 0,
      refused: { long_idempotency_keys: 0, unknown_query_params: 0 },
      requests: new RequestLog(),
      findings: [],
      throttle: null,
      polls: new Map(),
      keys: new Map(),
      failed_writes: new Map(),
      lists: new Map(),
    };
    store.set(api_key, c);
  }
  return c;
}

/** What a record holds, estimated: its strings (UTF-16) and a fixed cost per entry. */
function measure(c: KeyConduct): number {
  let n = 0;
  for (let i = 0; i < c.requests.length; i++) {
    const r = c.requests.at(i);
    n +=
      strBytes(requestIdOf(r)) +
      strBytes(r.path) +
      strBytes(r.idempotency_key) +
      strBytes(r.body_fingerprint) +
      strBytes(r.next_cursor) +
      ENTRY_OVERHEAD_BYTES;
  }
  for (const f of c.findings) n += strBytes(f.message) + f.request_ids.reduce((a, id) => a + strBytes(id), 0) + ENTRY_OVERHEAD_BYTES;
  for (const [k, v] of c.polls) n += strBytes(k) + strBytes(v.request_id) + ENTRY_OVERHEAD_BYTES;
  for (const [k, v] of c.keys) n += strBytes(k) + strBytes(v) + ENTRY_OVERHEAD_BYTES;
  for (const [k, v] of c.failed_writes) n += strBytes(k) + strBytes(v.request_id) + strBytes(v.idempotency_key) + ENTRY_OVERHEAD_BYTES;
  for (const [k, v] of c.lists) n += strBytes(k) + strBytes(v.request_id) + strBytes(v.next_cursor) + ENTRY_OVERHEAD_BYTES;
  return n;
}

/** Drops the older half of every list and map of a record (insertion order is age order). */
function halve(c: KeyConduct): void {
  c.requests.dropOldest(Math.ceil(c.requests.length / 2));
  c.findings.splice(0, Math.ceil(c.findings.length / 2));
  for (const map of [c.polls, c.keys, c.failed_writes, c.lists] as Array<Map<string, unknown>>) {
    let drop = Math.ceil(map.size / 2);
    for (const k of map.keys()) {
      if (drop-- <= 0) break;
      map.delete(k);
    }
  }
}

/**
 * Keeps an organization under `conduct_max_bytes_per_org`: measures its records exactly, then halves the one
 * that just grew (the tenant's busiest key), then its others, until the organization fits. Runs only when the
 * running estimate says it is over, so the cost is amortized over the growth it undoes.
 */
function keepUnderBudget(world: World, c: KeyConduct): void {
  const budget = world.profile.conduct_max_bytes_per_org;
  const totals = orgBytes(world);
  if ((totals.get(c.org_id) ?? 0) <= budget) return;
  const mine = [...conduct(world).values()].filter((k) => k.org_id === c.org_id);
  let total = 0;
  for (const k of mine) total += k.bytes = measure(k);
  for (const k of [c, ...mine.filter((k) => k !== c)]) {
    while (
      total > budget &&
      (k.requests.length > 0 || k.findings.length > 0 || k.polls.size + k.keys.size + k.failed_writes.size + k.lists.size > 0)
    ) {
      halve(k);
      const after = measure(k);
      total -= k.bytes - after;
      k.bytes = after;
    }
  }
  totals.set(c.org_id, total);
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** poll_after_ms of the entity in a reply body (`{trade: {…, poll_after_ms}}` or top level). */
function pollAfterOf(body: unknown): number | null {
  if (!isRecord(body)) return null;
  if (typeof body.poll_after_ms === 'number') return body.poll_after_ms;
  for (const v of Object.values(body)) if (isRecord(v) && typeof v.poll_after_ms === 'number') return v.poll_after_ms;
  return null;
}

function listKey(path: string, query: Record<string, unknown>): string {
  const filters = Object.keys(query)
    .filter((k) => k !== 'cursor' && k !== 'limit')
    .sort()
    .map((k) => `${k}=${String(query[k])}`);
  return `${path}?${filters.join('&')}`;
}

/** A finding names its key by the key's last four characters, worked out only when there is a finding. */
function addFinding(c: KeyConduct, api_key: string, kind: FindingKind, request_ids: string[], message: string): void {
  c.findings.push({ kind, api_key_suffix: keySuffix(api_key), request_ids, message });
}

/** Records one request and appends the findings it produces. */
export function recordRequest(world: World, api_key: string, f: RequestFacts): void {
  const c = forKey(world, api_key);
  const sim_ms = world.sim.now_ms();
  const wall_ms = f.wall_ms ?? wallNow_ms();
  const write = WRITE_METHODS.has(f.method);
  // Hashing only writes keeps reads (most of the traffic) cheap; a read's fingerprint would never be compared.
  const print = write ? (f.body_fingerprint ?? fingerprint(f.method, f.path, f.body)) : null;
  const ra = f.headers?.['Retry-After'];
  const retry_after_s = ra === undefined ? null : Number(ra);
  const reply = isRecord(f.reply_body) ? f.reply_body : undefined;
  const has_more = reply && typeof reply.has_more === 'boolean' ? reply.has_more : null;
  const next_cursor = reply && typeof reply.next_cursor === 'string' ? reply.next_cursor : null;
  const polled = f.method === 'GET' && isPolledRoute(f.route_path);
  // A key the server refused for its length is counted, not kept (nor quoted in a finding).
  const long_key = f.idempotency_key !== null && f.idempotency_key.length > IDEMPOTENCY_KEY_MAX_CHARS;
  if (long_key) {
    c.refused.long_idempotency_keys++;
    f = { ...f, idempotency_key: null };
  }
  c.refused.unknown_query_params += f.unknown_query_params ?? 0;
  const before_bytes = c.bytes;
  c.bytes +=
    strBytes(f.request_id) +
    strBytes(f.path) +
    strBytes(f.idempotency_key) +
    strBytes(print) +
    strBytes(next_cursor) +
    ENTRY_OVERHEAD_BYTES;
  const poll_after_ms = polled && !f.lost && f.status === 200 ? pollAfterOf(f.reply_body) : null;

  // Retry-After is on wall time, like the rate limits themselves.
  if (c.throttle && wall_ms < c.throttle.until_wall_ms) {
    addFinding(
      c,
      api_key,
      'retry_after_ignored',
      [c.throttle.request_id, f.request_id],
      `${f.method} ${f.path} sent ${c.throttle.until_wall_ms - wall_ms} ms before the Retry-After of ${c.throttle.request_id} elapsed`,
    );
  }
  if (f.status === 429 && retry_after_s !== null && Number.isFinite(retry_after_s)) {
    c.throttle = { request_id: f.request_id, until_wall_ms: wall_ms + retry_after_s * 1000 };
  }

  if (polled) {
    const prev = c.polls.get(f.path);
    const clock = world.sim.clock;
    const realtime = clock.mode === 'realtime';
    const waited_ms = prev ? (realtime ? Math.max(sim_ms - prev.at_ms, (wall_ms - prev.wall_ms) * clock.speed) : sim_ms - prev.at_ms) : 0;
    if (prev && waited_ms + (realtime ? REALTIME_POLL_TOLERANCE_MS : 0) < prev.poll_after_ms) {
      addFinding(
        c,
        api_key,
        'poll_too_fast',
        [prev.request_id, f.request_id],
        `GET ${f.path} polled ${Math.round(waited_ms)} ms after ${prev.request_id}, which said poll_after_ms ${prev.poll_after_ms}${realtime ? ` (realtime: ${REALTIME_POLL_TOLERANCE_MS} ms allowed for clock jitter)` : ''}`,
      );
    }
    if (poll_after_ms !== null) c.polls.set(f.path, { request_id: f.request_id, at_ms: sim_ms, wall_ms, poll_after_ms });
    else if (f.status === 200) c.polls.delete(f.path);
  } else if (f.method === 'POST' && !f.lost && f.status < 300) {
    // A create that answers pending (POST /rfqs 202) starts the poll clock for the entity it names.
    const m = CREATED_ROUTE.exec(f.route_path);
    const entity = m && reply ? reply[m[1].slice(0, -1)] : undefined;
    const id = isRecord(entity) ? entity[`${m![1].slice(0, -1)}_id`] : undefined;
    const after = pollAfterOf(f.reply_body);
    if (typeof id === 'string' && after !== null)
      c.polls.set(`/${m![1]}/${id}`, { request_id: f.request_id, at_ms: sim_ms, wall_ms, poll_after_ms: after });
  }

  if (f.error_code === 'idempotency_key_reuse') {
    const first = f.idempotency_key === null ? undefined : c.keys.get(f.idempotency_key);
    addFinding(
      c,
      api_key,
      'idempotency_key_reuse',
      first ? [first, f.request_id] : [f.request_id],
      `Idempotency-Key ${f.idempotency_key} reused with a different request (${f.method} ${f.path})`,
    );
  } else if (f.idempotency_key !== null && !c.keys.has(f.idempotency_key)) {
    c.keys.set(f.idempotency_key, f.request_id);
    c.bytes += strBytes(f.idempotency_key) + strBytes(f.request_id) + ENTRY_OVERHEAD_BYTES;
  }

  if (print !== null) {
    const failed = c.failed_writes.get(print);
    if (failed) {
      c.failed_writes.delete(print);
      if (failed.idempotency_key === null || f.idempotency_key !== failed.idempotency_key) {
        addFinding(
          c,
          api_key,
          'retry_without_idempotency_key',
          [failed.request_id, f.request_id],
          `${f.method} ${f.path} retried after ${failed.request_id} failed, without its Idempotency-Key${failed.idempotency_key ? ` ${failed.idempotency_key}` : ''}`,
        );
      }
    }
    if (f.lost || f.status >= 500) c.failed_writes.set(print, { request_id: f.request_id, idempotency_key: f.idempotency_key });
  }

  // Nothing to find or keep without a pending list or a reply that says has_more: no key is built.
  if (f.method === 'GET' && (c.lists.size > 0 || has_more === true)) {
    const key = listKey(f.path, f.query);
    const fromTop = f.query.cursor === undefined || f.query.cursor === '';
    const pending = c.lists.get(key);
    if (pending && fromTop) {
      addFinding(
        c,
        api_key,
        'ignored_has_more',
        [pending.request_id, f.request_id],
        `GET ${f.path} read from the top again although ${pending.request_id} said has_more with next_cursor ${pending.next_cursor}`,
      );
    }
    if (!fromTop) c.lists.delete(key);
    else if (has_more === true && !f.lost) {
      c.lists.set(key, { request_id: f.request_id, next_cursor });
      c.bytes += strBytes(key) + strBytes(f.request_id) + strBytes(next_cursor) + ENTRY_OVERHEAD_BYTES;
    } else if (has_more === false) c.lists.delete(key);
  }

  // A client reading the same path again: the record keeps the string it already holds, not the request's fresh
  // copy, which would otherwise outlive the request in the ring (copied by the young collector, then promoted).
  const last = c.requests.length > 0 ? c.requests.at(c.requests.length - 1) : undefined;
  const path = last !== undefined && last.path === f.path ? last.path : f.path;
  const r = c.requests.append(f.request_id);
  r.method = f.method;
  r.path = path;
  r.idempotency_key = f.idempotency_key;
  r.body_fingerprint = print;
  r.status = f.status;
  r.lost = f.lost;
  r.retry_after_s = retry_after_s;
  r.poll_after_ms = poll_after_ms;
  r.has_more = has_more;
  r.next_cursor = next_cursor;
  r.sim_ms = sim_ms;
  r.wall_ms = wall_ms;
  // Trimmed in batches; readers take the last KEPT.
  if (c.requests.length >= 2 * CONDUCT_REQUESTS_KEPT) c.requests.dropOldest(c.requests.length - CONDUCT_REQUESTS_KEPT);
  // Bounded windows: a client sending fresh keys, paths or bodies forever keeps its record's size flat.
  if (c.findings.length >= 2 * CONDUCT_WINDOW) c.findings.splice(0, c.findings.length - CONDUCT_WINDOW);
  bound(c.keys);
  bound(c.polls);
  bound(c.failed_writes);
  bound(c.lists);
  // Polls, failed writes and findings are counted here at a flat rate (their strings are the request's own).
  c.bytes += 2 * ENTRY_OVERHEAD_BYTES + strBytes(c.findings.at(-1)?.message);
  const totals = orgBytes(world);
  totals.set(c.org_id, (totals.get(c.org_id) ?? 0) + c.bytes - before_bytes);
  keepUnderBudget(world, c);
}

/** Estimated bytes an organization's conduct records hold, and the strings refused (counted, not kept). */
export function conductBudget(
  world: World,
  org_id: string,
): { bytes: number; long_idempotency_keys: number; unknown_query_params: number } {
  let long_idempotency_keys = 0;
  let unknown_query_params = 0;
  for (const c of conduct(world).values()) {
    if (c.org_id !== org_id) continue;
    long_idempotency_keys += c.refused.long_idempotency_keys;
    unknown_query_params += c.refused.unknown_query_params;
  }
  return { bytes: orgBytes(world).get(org_id) ?? 0, long_idempotency_keys, unknown_query_params };
}

export interface ConductReport {
  api_key: string;
  requests: ConductRequest[];
  findings: Finding[];
}

export function conductOf(world: World, api_key: string): ConductReport {
  const c = conduct(world).get(api_key);
  return {
    api_key: maskKey(api_key),
    requests: c?.requests.newest(CONDUCT_REQUESTS_KEPT) ?? [],
    findings: c?.findings.slice(-CONDUCT_WINDOW) ?? [],
  };
}

/** How much one key's record holds, for the memory-bound tests and the soak bench. */
export function conductSizes(world: World, api_key: string): { requests: number; findings: number; largest_map: number } {
  const c = conduct(world).get(api_key);
  if (!c) return { requests: 0, findings: 0, largest_map: 0 };
  return {
    requests: c.requests.length,
    findings: c.findings.length,
    largest_map: Math.max(c.keys.size, c.polls.size, c.failed_writes.size, c.lists.size),
  };
}

export function allConduct(world: World): ConductReport[] {
  return [...conduct(world).keys()].map((k) => conductOf(world, k));
}

/** A deleted organization: the conduct records of its keys go. */
export function forgetConduct(world: World, api_keys: readonly string[]): void {
  const store = conduct(world);
  for (const k of api_keys) {
    const c = store.get(k);
    if (c) orgBytes(world).delete(c.org_id);
    store.delete(k);
  }
}
