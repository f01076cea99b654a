// Verify's hub: one HTTP front that shows the app a batch of runs' providers (lanes, one in-process sim each)
// as ONE provider under a fresh path prefix (`/b<k>/v1`). A request naming an id a lane owns goes to that lane;
// an org-wide list (`GET /v1/events`, …) becomes a composite feed whose cursor records each lane's exact
// position; the shared catalog (assets, symbols, markets) and anything unknown go to the first lane.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';

/** The provider's id format (fake-provider/engine/ids.ts): `<prefix>_<12 hex><base36 counter, ≥ 4 digits>`. */
const ID = /^[a-z]+_[0-9a-f]{12}[0-9a-z]{4,}$/;
/** Lists the spec caps at 100 items a page, 50 when `limit` is absent (the provider answers 400 outside 1..100). */
const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 50;
/** Paths whose answers are the same in every lane (catalog and market data): the first lane answers. */
const SHARED = /^\/(assets|symbols|markets|market|resolve)(\/|$)/;
/** Headers not copied between the app and a lane (hop by hop, or recomputed). */
const HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);
/** What a composite cursor starts with; anything else is not one the hub returned. */
const CURSOR_TAG = 'hub1';

interface Answer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
  /** The body parsed, when the hub already had to. */
  json?: unknown;
}

/** Where a lane's part of a composite feed stands: the lane cursor a page starts at, and how many events of that page were taken. */
type Position = [cursor: string | null, taken: number];

export interface Mount {
  /** `http://127.0.0.1:<port>/b<k>/v1`: the provider the app is configured with for this batch. */
  readonly base_url: string;
  /** Ids in this body (a delivery verify forwarded for the lane) belong to lane `lane`. */
  learn(lane: number, body: unknown): void;
  /** Which lane owns an id (undefined: nobody, so the first lane answers). */
  owner(id: string): number | undefined;
  /** The app's calls to lane `lane` first wait for `gate` (the lane's relay: relay.ts gate); null: none. */
  setGate(lane: number, gate: (() => Promise<void>) | null): void;
  /**
   * Whether the app sent the request that became provider request `later` before it had the answer to `earlier`
   * (both by the provider's request ids): it reached the hub before that answer left it, or it was the first
   * request of a connection the app opened before then (a client opens one for a request it is sending). Such a
   * request did not ignore what that answer said (a 429's Retry-After): it was already on its way.
   */
  sentBefore(later: string, earlier: string): boolean;
  unmount(): void;
}

export interface Hub {
  readonly url: string;
  /** Mounts a batch's lanes (each one sim's `/v1` base URL) under a fresh prefix. */
  mount(lane_base_urls: readonly string[]): Mount;
  close(): Promise<void>;
}

export interface HubOptions {
  /** A key of every lane's organization used only to look past a full page (has_more); never the app's, so the app's conduct record holds its own reads alone. */
  peek_key: string;
}

interface Mounted {
  lanes: string[];
  owners: Map<string, number>;
  gates: Array<(() => Promise<void>) | null>;
  /**
   * Per provider request id, in the hub's order: when the app's request behind it arrived, when its answer left,
   * and when its connection was opened if it was that connection's first request (else null).
   */
  timing: Map<string, { in: number; out: number; opened: number | null }>;
}

/** The provider's request id in an answer body (`request_id`, or `error.request_id`), if any. */
function requestIdOf(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const b = body as { request_id?: unknown; error?: { request_id?: unknown } };
  const id = b.request_id ?? b.error?.request_id;
  return typeof id === 'string' ? id : undefined;
}

/** Every string in a JSON value that has the id format. */
function* idsIn(v: unknown): Generator<string> {
  if (typeof v === 'string') {
    if (ID.test(v)) yield v;
  } else if (Array.isArray(v)) {
    for (const x of v) yield* idsIn(x);
  } else if (v !== null && typeof v === 'object') {
    for (const x of Object.values(v)) yield* idsIn(x);
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function segments(path: string): string[] {
  return path.split('/').map((seg) => {
    try {
      return decodeURIComponent(seg);
    } catch {
      return seg;
    }
  });
}

/** The list page shape: one array field, a boolean has_more, a next_cursor. */
function listField(body: unknown): string | null {
  if (
    body === null ||
    typeof body !== 'object' ||
    typeof (body as Record<string, unknown>).has_more !== 'boolean' ||
    !('next_cursor' in body)
  )
    return null;
  const arrays = Object.entries(body).filter(([, v]) => Array.isArray(v));
  return arrays.length === 1 ? arrays[0][0] : null;
}

/** `hub1~<lane>.<taken>.<lane cursor or ->~…`: lanes at their beginning are left out. */
function encodeCompositeCursor(positions: readonly Position[]): string {
  const parts = positions.flatMap(([c, k], i) => (c === null && k === 0 ? [] : [`${i}.${k}.${c ?? '-'}`]));
  return [CURSOR_TAG, ...parts].join('~');
}

/** The positions a composite cursor holds, or null when it is not one the hub made for `lanes` lanes. */
function decodeCompositeCursor(cursor: string, lanes: number): Position[] | null {
  const parts = cursor.split('~');
  if (parts[0] !== CURSOR_TAG) return null;
  const out: Position[] = Array.from({ length: lanes }, () => [null, 0] as Position);
  for (const p of parts.slice(1)) {
    const m = /^([0-9]{1,3})\.([0-9]{1,3})\.([A-Za-z0-9_=-]{1,512})$/.exec(p);
    if (!m || Number(m[1]) >= lanes || Number(m[2]) > MAX_LIMIT) return null;
    out[Number(m[1])] = [m[3] === '-' ? null : m[3], Number(m[2])];
  }
  return out;
}

export async function startHub(opts: HubOptions): Promise<Hub> {
  const dispatcher = new Agent({ keepAliveTimeout: 2_000 });
  const mounts = new Map<string, Mounted>();
  let next_mount = 0;
  /** Arrivals of the app's requests and departures of their answers, in the hub's order (Mount.sentBefore). */
  let order = 0;
  const connections = new WeakMap<object, { opened: number; requests: number }>();

  async function call(
    base: string,
    method: string,
    path_and_query: string,
    headers: Record<string, string>,
    body: Buffer | undefined,
    request_ids?: string[],
  ): Promise<Answer> {
    const u = new URL(base + path_and_query);
    const res = await dispatcher.request({
      origin: u.origin,
      path: u.pathname + u.search,
      method: method as 'GET',
      headers,
      body: body && body.length > 0 ? body : undefined,
    });
    const chunks: Buffer[] = [];
    for await (const c of res.body) chunks.push(c as Buffer);
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined && !HOP.has(k)) out[k] = v;
    const answer: Answer = { status: res.statusCode, headers: out, body: Buffer.concat(chunks) };
    if (request_ids) {
      answer.json = parseJson(answer.body);
      const id = requestIdOf(answer.json);
      if (id !== undefined) request_ids.push(id);
    }
    return answer;
  }

  function learnFrom(m: Mounted, lane: number, body: unknown): void {
    for (const id of idsIn(body)) if (!m.owners.has(id)) m.owners.set(id, lane);
  }

  /** The lane a request belongs to by the ids it names, or null when it names none a lane owns. */
  function routeById(m: Mounted, path: string, query: URLSearchParams, body: unknown): number | null {
    for (const seg of segments(path)) {
      const lane = m.owners.get(seg);
      if (lane !== undefined) return lane;
    }
    const account =
      query.get('account_id') ?? (body !== null && typeof body === 'object' ? (body as Record<string, unknown>).account_id : undefined);
    if (typeof account === 'string') return m.owners.get(account) ?? null;
    return null;
  }

  /**
   * A page of an org-wide list across the lanes, in lane order: each lane is read from its position with a
   * limit that ends the lane's page exactly where the composite page takes its last item from it (so a lane
   * page is always taken to its end: a full one moves the lane to its next_cursor, a tail one is remembered
   * with its count, and is re-read from the same cursor next time, new events included).
   */
  async function composite(
    m: Mounted,
    path: string,
    query: URLSearchParams,
    headers: Record<string, string>,
    request_ids: string[],
  ): Promise<Answer | 'forward'> {
    const raw_limit = query.get('limit');
    if (raw_limit !== null && (!/^[0-9]{1,4}$/.test(raw_limit) || Number(raw_limit) < 1 || Number(raw_limit) > MAX_LIMIT)) return 'forward';
    const raw_cursor = query.get('cursor');
    const positions = raw_cursor === null ? m.lanes.map((): Position => [null, 0]) : decodeCompositeCursor(raw_cursor, m.lanes.length);
    if (positions === null) return 'forward'; // the lane's own 400 envelope answers it
    const filters = new URLSearchParams(query);
    filters.delete('limit');
    filters.delete('cursor');
    const pageOf = (cursor: string | null, limit: number): string => {
      const q = new URLSearchParams(filters);
      q.set('limit', String(limit));
      if (cursor !== null) q.set('cursor', cursor);
      return `${path}?${q.toString()}`;
    };
    let need = raw_limit === null ? DEFAULT_LIMIT : Number(raw_limit);
    const items: unknown[] = [];
    let field: string | null = null;
    let first: Record<string, unknown> | null = null;
    let first_headers: Record<string, string | string[]> = {};
    let has_more = false;
    for (let lane = 0; lane < m.lanes.length && need > 0; lane++) {
      while (need > 0) {
        const [cursor, taken] = positions[lane];
        const a = await call(m.lanes[lane], 'GET', pageOf(cursor, Math.min(MAX_LIMIT, taken + need)), headers, undefined, request_ids);
        const body = a.json ?? parseJson(a.body);
        const f = a.status === 200 ? listField(body) : null;
        if (f === null) return a; // a refusal (429, 5xx, 400) or not a list: as the lane answered
        learnFrom(m, lane, body);
        field ??= f;
        if (first === null) [first, first_headers] = [body as Record<string, unknown>, a.headers];
        const page = (body as Record<string, unknown[]>)[f];
        const take = page.slice(taken, taken + need);
        items.push(...take);
        need -= take.length;
        const b = body as { has_more: boolean; next_cursor: string | null };
        if (b.has_more && b.next_cursor !== null) {
          positions[lane] = [b.next_cursor, 0];
          if (need === 0) has_more = true;
        } else {
          positions[lane] = [cursor, Math.max(taken, page.length)];
          break;
        }
      }
      // Full at the end of this lane's tail: whether a later lane has more decides has_more (the provider's is exact).
      if (need === 0 && !has_more) has_more = await anyAfter(m, lane + 1, positions, pageOf);
    }
    const out = {
      request_id: first?.request_id,
      [field ?? 'items']: items,
      has_more,
      next_cursor: has_more ? encodeCompositeCursor(positions) : null,
    };
    return {
      status: 200,
      headers: { ...first_headers, 'content-type': 'application/json; charset=utf-8' },
      body: Buffer.from(JSON.stringify(out)),
    };
  }

  /** Whether a lane from `from` on has an item past its position (read with the peek key: not the app's reads). */
  async function anyAfter(
    m: Mounted,
    from: number,
    positions: Position[],
    pageOf: (c: string | null, limit: number) => string,
  ): Promise<boolean> {
    for (let lane = from; lane < m.lanes.length; lane++) {
      const [cursor, taken] = positions[lane];
      const a = await call(
        m.lanes[lane],
        'GET',
        pageOf(cursor, Math.min(MAX_LIMIT, taken + 1)),
        { authorization: `Bearer ${opts.peek_key}` },
        undefined,
      );
      const body = parseJson(a.body) as { has_more?: boolean } | undefined;
      const f = a.status === 200 ? listField(body) : null;
      // A lane that cannot say is taken to have more: the app reads once more and gets an exact answer.
      if (f === null) return true;
      if (body!.has_more || (body as Record<string, unknown[]>)[f].length > taken) return true;
    }
    return false;
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://hub');
    const match = /^\/(b[0-9]+)\/v1(\/.*)?$/.exec(url.pathname);
    const m = match ? mounts.get(match[1]) : undefined;
    if (!match || !m) {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
      res.end(
        JSON.stringify({
          error: {
            type: 'invalid_request',
            code: 'route_not_found',
            message: `no provider at ${url.pathname}: swapsim verify's hub mounts each batch under its own prefix`,
          },
        }),
      );
      return;
    }
    const arrived = ++order;
    const conn = connections.get(req.socket);
    // A connection's first request was what the app opened it for: it was on its way once the connection was.
    const opened = conn !== undefined && conn.requests++ === 0 ? conn.opened : null;
    const request_ids: string[] = [];
    const path = match[2] ?? '/';
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !HOP.has(k)) headers[k] = v;
    const method = req.method ?? 'GET';
    let lane = routeById(m, path, url.searchParams, parseJson(body));
    let answer: Answer | 'forward' = 'forward';
    const path_has_id = segments(path).some((seg) => ID.test(seg));
    if (lane === null && method === 'GET' && !SHARED.test(path) && !path_has_id && !url.searchParams.has('account_id')) {
      // An org-wide read reaches every lane: it waits for each lane's gate.
      await Promise.all(m.gates.map((g) => g?.()));
      answer = await composite(m, path, url.searchParams, headers, request_ids);
    } else {
      await m.gates[lane ?? 0]?.();
    }
    if (answer === 'forward') {
      lane ??= 0;
      answer = await call(m.lanes[lane], method, path + url.search, headers, body, request_ids);
      learnFrom(m, lane, answer.json ?? parseJson(answer.body));
    }
    res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) });
    res.end(answer.body);
    const left = ++order;
    for (const id of request_ids) m.timing.set(id, { in: arrived, out: left, opened });
  }

  const server: Server = createServer(
    (req, res) =>
      void onRequest(req, res).catch(() => {
        // A lane that reset the connection (a lost response) or failed: the app sees the same, a dropped connection.
        res.destroy();
      }),
  );
  server.keepAliveTimeout = 2_000;
  server.on('connection', (socket) => connections.set(socket, { opened: ++order, requests: 0 }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    mount(lane_base_urls) {
      if (lane_base_urls.length === 0) throw new Error('a hub mount needs at least one lane');
      const name = `b${++next_mount}`;
      const m: Mounted = {
        lanes: lane_base_urls.map((u) => u.replace(/\/$/, '')),
        owners: new Map(),
        gates: lane_base_urls.map(() => null),
        timing: new Map(),
      };
      mounts.set(name, m);
      return {
        base_url: `${url}/${name}/v1`,
        learn: (lane, body) => learnFrom(m, lane, Buffer.isBuffer(body) ? parseJson(body) : body),
        owner: (id) => m.owners.get(id),
        setGate: (lane, gate) => void (m.gates[lane] = gate),
        sentBefore(later, earlier) {
          const [a, b] = [m.timing.get(later), m.timing.get(earlier)];
          if (a === undefined || b === undefined) return false;
          return a.in < b.out || (a.opened !== null && a.opened < b.out);
        },
        unmount: () => void mounts.delete(name),
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        void dispatcher.close().catch(() => undefined);
      }),
  };
}
