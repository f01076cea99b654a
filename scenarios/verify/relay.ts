// The wire between the provider and the app under test: the provider's webhook points here, and each
// delivery is forwarded to the app as it came (same signed bytes), with its wall latency and answer recorded.
// Verify uses it to see what the provider's log cannot (how long a handler took, which delivery is in
// flight), to cut a run whose handler is too slow (answering the provider at once so the run can end), to
// send concurrent copies of a delivery, to re-send one signed with the previous secret after a rotation, and (in a
// batch of runs behind the hub) to re-sign its provider's deliveries with the one secret the app was given.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { WALL } from '../../sim/wall.ts';

type CopyKind = 'provider' | 'concurrent_copy' | 'previous_secret' | 'stale_timestamp';

export interface RelayRecord {
  event_id: string;
  event_type: string;
  account_id: string;
  delivery_id: string;
  /** Svc-Timestamp of the request (the wall time of the attempt; for a stale or future copy, the stamp verify gave it). */
  signed_at_ms: number;
  kind: CopyKind;
  /** Wall ms since the relay's origin (`t0_ms`, default its start) when the app was called. */
  sent_wall_ms: number;
  /** Wall ms the app took to answer (or until it was given up on). */
  latency_ms: number;
  /** The app's HTTP status; 0 when it did not answer (timeout, connection error, run cut). */
  status: number;
  timed_out: boolean;
  /** The body's bytes are not what re-serializing its JSON gives (whitespace, escapes): only the raw bytes verify. */
  styled: boolean;
}

interface Held {
  headers: Record<string, string>;
  body: Buffer;
  event_id: string;
  event_type: string;
  account_id: string;
  delivery_id: string;
  signed_at_ms: number;
  styled: boolean;
}

export interface Relay {
  /** The URL to register as the provider's webhook. */
  readonly url: string;
  readonly records: RelayRecord[];
  /** Deliveries of these (account, event type pattern) pairs go to the app as two concurrent copies, `times` each. */
  concurrentCopies(account_id: string, event_type: string, times: number): void;
  /** The secret the provider signs with now: only deliveries it verifies are held for `lastSigned`. */
  setSecret(secret: string): void;
  /**
   * In a batch (several runs' providers behind verify's hub) the app knows one secret, not each provider's:
   * from now on a delivery correctly signed by this relay's provider is re-signed with `secret` (same timestamp,
   * same body bytes); one that is not (verify's own bad_signature effect) goes as it came, still invalid. null: off.
   */
  setAppSecret(secret: string | null): void;
  /** Called with every delivery body forwarded (the hub learns which lane owns the ids in it); null: none. */
  setObserver(observer: ((body: Buffer) => void) | null): void;
  /** The last correctly signed delivery forwarded for an account (to re-send after a rotation). */
  lastSigned(account_id: string): Held | undefined;
  /** Sends a held delivery again, as it was signed: verify's own copy, recorded as `previous_secret`. */
  resend(held: Held): Promise<RelayRecord>;
  /**
   * Sends a held delivery again with another Svc-Timestamp, correctly signed over it with the secret the app holds
   * now (a captured delivery replayed later, or one stamped ahead): recorded as `stale_timestamp`.
   */
  resendAt(held: Held, timestamp_ms: number): Promise<RelayRecord>;
  /**
   * Resolves when the app may have the provider call it just made (through verify's hub): at once, unless two
   * copies of one delivery are in flight to the app. Then each copy's handler gets to its first provider call
   * before either goes on: calls wait until two are waiting, one copy has been answered, or COPY_GATE_MS has
   * passed. A receiver that checks an event id, awaits a call and only then marks the id lets both copies
   * through every time, not when the scheduler happens to interleave them, so its counterexample replays.
   */
  gate(): Promise<void>;
  /**
   * Runs verify's own call to the app (configure, sync) with none of this relay's deliveries at the app: it waits
   * for those in flight to be answered and holds the provider's next ones until the call has ended (each for at
   * most handler_limit_ms - slow_after_ms, so that holding never makes a correct app's answer late). An app's
   * catch-up from the feed then never meets a delivery of the same event by chance (whether one was still in
   * flight would be the machine's timing, so a replay could not reproduce the race); overlaps verify means to
   * make are its explicit steps (concurrent copies, behind the gate).
   */
  quietly<T>(call: () => Promise<T>): Promise<T>;
  /** Deliveries in flight now: what a wall-time cut names. */
  inFlight(): Array<{ event_id: string; event_type: string; elapsed_ms: number }>;
  /** From now on every delivery is answered 503 at once without reaching the app (the run is being ended). */
  cut(): void;
  readonly is_cut: boolean;
  /** Forgets records, copy plans and held deliveries; lifts a cut, the app secret and the observer (a new run starts). */
  reset(): void;
  close(): Promise<void>;
}

export interface RelayOptions {
  app_webhook_url: string;
  /** A handler slower than this is given up on (answered 0): the provider's own timeout. */
  handler_limit_ms: number;
  /** Called once per run, as soon as a handler has been busy this long without answering (the latency limit). */
  slow_after_ms: number;
  header_prefix?: string;
  on_slow?: (r: RelayRecord) => void;
  /** Wall time `sent_wall_ms` counts from (default: when the relay started); relays sharing it have comparable records. */
  t0_ms?: number;
}

/**
 * How long a provider call waits for the other copy's handler to make one too (gate). A correct receiver that
 * handles one copy after the other pays this once per pair; a handler with no provider call never waits.
 */
const COPY_GATE_MS = 300;

const wildcard = (pattern: string, value: string): boolean =>
  pattern.endsWith('*') ? value.startsWith(pattern.slice(0, -1)) : pattern === value;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startRelay(opts: RelayOptions): Promise<Relay> {
  const prefix = (opts.header_prefix ?? 'Svc').toLowerCase();
  const target = new URL(opts.app_webhook_url);
  // No cap on connections: a burst of deliveries must reach the app together, or a queue here would count as its latency.
  const dispatcher = new Agent({ keepAliveTimeout: 2_000 });
  const t0 = opts.t0_ms ?? WALL.now_ms();
  const records: RelayRecord[] = [];
  let plans: Array<{ account_id: string; event_type: string; left: number }> = [];
  let held = new Map<string, Held>();
  let flying = new Map<number, { event_id: string; event_type: string; since: number; abort: AbortController }>();
  let cut = false;
  let secret = '';
  let app_secret: string | null = null;
  let observer: ((body: Buffer) => void) | null = null;
  let slow_reported = false;
  let next_flight = 0;
  /** Bumped per run: an answer that straggles in from a cut run is not recorded in the next one. */
  let generation = 0;
  /** Copies of each event in flight to the app now; two or more open the gate's window. */
  let copies = new Map<string, number>();
  /** While copies are in flight: the provider calls waiting (released together), and whether they were. */
  let window: { waiting: Array<() => void>; released: boolean; timer: AbortController | null } | null = null;
  /** verify's calls to the app under way (quietly); while any is, the provider's deliveries wait in `held_back`. */
  let quiet_calls = 0;
  const held_back: Array<() => void> = [];
  /** Quiet calls waiting for the deliveries in flight to be answered. */
  const draining: Array<() => void> = [];
  const wake = (list: Array<() => void>): void => {
    for (const go of list.splice(0)) go();
  };
  /**
   * How long a delivery may be held back: the provider gives up on it `handler_limit_ms` after it was sent, and a
   * correct app may take up to `slow_after_ms` over it, so the difference is what holding it can cost without
   * making a correct app's answer late (2 s with verify's defaults). A call that outlasts it lets the delivery go.
   */
  const max_hold_ms = Math.max(0, opts.handler_limit_ms - opts.slow_after_ms);
  const holdBack = async (): Promise<void> => {
    const until_ms = WALL.now_ms() + max_hold_ms;
    while (quiet_calls > 0 && !cut && WALL.now_ms() < until_ms) {
      const timer = new AbortController();
      await Promise.race([
        new Promise<void>((go) => held_back.push(go)),
        WALL.wait(until_ms - WALL.now_ms(), timer.signal).catch(() => undefined),
      ]);
      timer.abort();
    }
  };

  const releaseWindow = (): void => {
    if (window === null) return;
    window.released = true;
    window.timer?.abort();
    for (const go of window.waiting.splice(0)) go();
  };
  const copyLeaves = (event_id: string): void => {
    const n = (copies.get(event_id) ?? 0) + 1;
    copies.set(event_id, n);
    if (n === 2 && window === null) window = { waiting: [], released: false, timer: null };
  };
  const copyLands = (event_id: string): void => {
    const n = (copies.get(event_id) ?? 1) - 1;
    if (n > 0) copies.set(event_id, n);
    else copies.delete(event_id);
    // One copy answered: the other's handler is not waiting on it, whatever it does next.
    if (n === 1 && window !== null) {
      releaseWindow();
      if (![...copies.values()].some((k) => k >= 2)) window = null;
    }
  };

  /** One POST to the app, bounded by the handler limit (and by a cut). */
  async function forward(h: Held, kind: CopyKind): Promise<RelayRecord> {
    const abort = new AbortController();
    const gen = generation;
    const id = ++next_flight;
    const since = WALL.now_ms();
    flying.set(id, { event_id: h.event_id, event_type: h.event_type, since, abort });
    copyLeaves(h.event_id);
    let status = 0;
    let timed_out = false;
    const limit = AbortSignal.timeout(opts.handler_limit_ms);
    const record = (latency_ms: number): RelayRecord => ({
      event_id: h.event_id,
      event_type: h.event_type,
      account_id: h.account_id,
      delivery_id: h.delivery_id,
      signed_at_ms: h.signed_at_ms,
      kind,
      sent_wall_ms: since - t0,
      latency_ms,
      status,
      timed_out,
      styled: h.styled,
    });
    // Reported the moment the limit passes, not when (or if) the answer comes: a slow run ends early.
    const watch = new AbortController();
    void WALL.wait(opts.slow_after_ms, watch.signal).then(
      () => {
        if (cut || slow_reported) return;
        slow_reported = true;
        timed_out = true;
        opts.on_slow?.(record(opts.slow_after_ms));
      },
      () => undefined,
    );
    try {
      const res = await dispatcher.request({
        origin: target.origin,
        path: target.pathname + target.search,
        method: 'POST',
        headers: h.headers,
        body: h.body,
        signal: AbortSignal.any([abort.signal, limit]),
      });
      status = res.statusCode;
      await res.body.dump({ limit: 2 ** 20 }).catch(() => undefined);
    } catch {
      timed_out ||= limit.aborted;
      status = 0;
    } finally {
      flying.delete(id);
      if (flying.size === 0) wake(draining);
      watch.abort();
      if (gen === generation) copyLands(h.event_id);
    }
    const r = record(WALL.now_ms() - since);
    if (gen === generation) records.push(r);
    return r;
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    if (cut) return void res.writeHead(503).end('run cut by swapsim verify');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && k !== 'host' && k !== 'connection' && k !== 'content-length') headers[k] = v;
    let envelope: { event_id?: string; type?: string; account_id?: string } = {};
    let styled = false;
    try {
      envelope = JSON.parse(body.toString('utf8'));
      styled = !Buffer.from(JSON.stringify(envelope), 'utf8').equals(body);
    } catch {
      /* forwarded as is */
    }
    const h: Held = {
      headers,
      body,
      event_id: String(envelope.event_id ?? headers[`${prefix}-event-id`] ?? ''),
      event_type: String(envelope.type ?? ''),
      account_id: String(envelope.account_id ?? ''),
      delivery_id: String(headers[`${prefix}-delivery-id`] ?? ''),
      signed_at_ms: Number(headers[`${prefix}-timestamp`] ?? 0),
      styled,
    };
    // A delivery verify's own bad_signature rule spoiled is not one the app should accept later.
    const sign = (key: string): string =>
      `v1=${createHmac('sha256', key)
        .update(`${headers[`${prefix}-timestamp`] ?? ''}.`)
        .update(body)
        .digest('hex')}`;
    if (headers[`${prefix}-signature`] === sign(secret)) {
      if (app_secret !== null) headers[`${prefix}-signature`] = sign(app_secret);
      held.set(h.account_id, h);
    }
    observer?.(body);
    if (quiet_calls > 0 && !cut) await holdBack();
    if (cut) return void res.writeHead(503).end('run cut by swapsim verify');
    const plan = plans.find((p) => p.left > 0 && p.account_id === h.account_id && wildcard(p.event_type, h.event_type));
    let answer: RelayRecord;
    if (plan) {
      plan.left--;
      // Both copies leave together: a receiver that checks and marks an event id across an await lets both through.
      const [first] = await Promise.all([forward(h, 'provider'), forward(h, 'concurrent_copy')]);
      answer = first;
    } else {
      answer = await forward(h, 'provider');
    }
    if (res.destroyed) return;
    // 0 (no answer) goes back as 504 so the provider logs a failed attempt, as a timeout would.
    res.writeHead(answer.status === 0 ? 504 : answer.status).end();
  }

  const server: Server = createServer((req, res) => void onRequest(req, res).catch(() => res.destroyed || res.writeHead(502).end()));
  server.keepAliveTimeout = 2_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${target.pathname}`;

  return {
    url,
    records,
    concurrentCopies(account_id, event_type, times) {
      plans.push({ account_id, event_type, left: times });
    },
    setSecret(next) {
      secret = next;
    },
    setAppSecret(next) {
      app_secret = next;
    },
    setObserver(next) {
      observer = next;
    },
    lastSigned: (account_id) => held.get(account_id),
    resend: (h) => forward(h, 'previous_secret'),
    resendAt(h, timestamp_ms) {
      const key = app_secret ?? secret;
      const stamp = String(timestamp_ms);
      const headers = {
        ...h.headers,
        [`${prefix}-timestamp`]: stamp,
        [`${prefix}-signature`]: `v1=${createHmac('sha256', key).update(`${stamp}.`).update(h.body).digest('hex')}`,
      };
      return forward({ ...h, headers, signed_at_ms: timestamp_ms }, 'stale_timestamp');
    },
    gate() {
      const w = window;
      if (w === null || w.released) return Promise.resolve();
      return new Promise<void>((go) => {
        w.waiting.push(go);
        if (w.waiting.length >= 2) return releaseWindow();
        if (w.timer === null) {
          w.timer = new AbortController();
          void WALL.wait(COPY_GATE_MS, w.timer.signal).then(
            () => {
              if (window === w) releaseWindow();
            },
            () => undefined,
          );
        }
      });
    },
    async quietly(call) {
      quiet_calls++;
      try {
        while (flying.size > 0 && !cut) await new Promise<void>((go) => draining.push(go));
        return await call();
      } finally {
        if (--quiet_calls === 0) wake(held_back);
      }
    },
    inFlight: () =>
      [...flying.values()].map((f) => ({ event_id: f.event_id, event_type: f.event_type, elapsed_ms: WALL.now_ms() - f.since })),
    cut() {
      cut = true;
      releaseWindow();
      wake(held_back);
      wake(draining);
      for (const f of flying.values()) f.abort.abort();
    },
    get is_cut() {
      return cut;
    },
    reset() {
      generation++;
      releaseWindow();
      window = null;
      copies = new Map();
      records.length = 0;
      plans = [];
      held = new Map();
      flying = new Map();
      wake(draining);
      quiet_calls = 0;
      wake(held_back);
      cut = false;
      slow_reported = false;
      app_secret = null;
      observer = null;
    },
    close: () =>
      new Promise<void>((resolve) => {
        cut = true;
        releaseWindow();
        wake(held_back);
        wake(draining);
        for (const f of flying.values()) f.abort.abort();
        server.close(() => resolve());
        server.closeAllConnections();
        void dispatcher.close().catch(() => undefined);
      }),
  };
}
