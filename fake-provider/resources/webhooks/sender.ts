// The wire side of a delivery: the signature scheme (`v1=` hex HMAC-SHA256 over `timestamp.body`) and one real
// HTTP POST per copy over undici, bounded in wall time by a timer that aborts it (never in sim time). The
// receiver's answer is an outside input: a journal records it, and a replay substitutes the recording.
import { createHmac } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import type { DestinationGuard } from './destinations.ts';
import { createOutbox, type InFlightBound, type Outbox, type OutboxLimits, type Sent } from './outbox.ts';
import { wallTimeout } from '../../../sim/clock.ts';
import type { Journal } from '../../../sim/journal.ts';

/**
 * One world's delivery transport (its lanes and sockets; the bound on POSTs in flight may be shared with other
 * worlds' transports, outbox.ts InFlightBound): keep-alive connection pools (per origin, http and https; undici's request
 * costs about two thirds of node:http's per POST once warm, and node:http about a third of fetch's) and each
 * webhook URL parsed once (a URL parse per POST cost a tenth of the POST).
 */
export interface Transport {
  dispatcher: Agent;
  targets: Map<string, { origin: string; path: string }>;
  guard: DestinationGuard;
  /** The bounded lanes POSTs queue on (outbox.ts). */
  outbox: Outbox;
  /** Answer slot: per `<webhook> <account>`, the gate its next POST waits for (postTogether). */
  staggered: Map<string, Promise<void>>;
  /** Shutdown: waiting POSTs resolve 0, running ones are aborted (their connections destroyed). */
  close(): void;
}

/** Where a POST queues: its organization's lane, its account (one at a time) and the sim instant it is due at. */
export interface LaneKey {
  /** The organization's id: its budget of POSTs in flight and waiting (outbox.ts). */
  lane_id: string;
  account_id: string;
  sim_ms: number;
}

/** Distinct webhook URLs remembered per world before the memo starts over (URLs change rarely). */
const TARGETS_KEPT = 1_000;

/** Accepts every destination: for a transport made without a world (tests of the sender alone). */
const OPEN_GUARD: DestinationGuard = {
  url: () => null,
  address: () => null,
  resolve: (host, _port, cb) => cb(null, host.replace(/^\[|\]$/g, '')),
};

const UNBOUNDED: OutboxLimits = { max_in_flight: 64, max_in_flight_total: 1_024, max_queued: 1_000_000 };

export function createTransport(
  guard: DestinationGuard = OPEN_GUARD,
  limits: () => OutboxLimits = () => UNBOUNDED,
  bound?: InFlightBound,
): Transport {
  const base = buildConnector({});
  // Every connection resolves its host through the guard and dials the address the guard checked: a URL
  // spelled to dodge the registration check (or a name resolving to swapsim itself) never connects.
  const connect: buildConnector.connector = (opts, callback) => {
    const port = opts.port ? Number(opts.port) : opts.protocol === 'https:' ? 443 : 80;
    guard.resolve(opts.hostname, port, (err, address) => {
      if (err || address === undefined) return callback(err ?? new Error('no address'), null);
      base({ ...opts, hostname: address }, callback);
    });
  };
  const dispatcher = new Agent({ connections: 64, connect });
  const outbox = createOutbox(limits, bound);
  return {
    dispatcher,
    targets: new Map(),
    guard,
    outbox,
    staggered: new Map(),
    close() {
      outbox.close();
      dispatcher.destroy().catch(() => undefined);
    },
  };
}

function targetOf(transport: Transport, url: string): { origin: string; path: string } {
  let t = transport.targets.get(url);
  if (t === undefined) {
    const u = new URL(url);
    t = { origin: u.origin, path: u.pathname + u.search };
    if (transport.targets.size >= TARGETS_KEPT) transport.targets.clear();
    transport.targets.set(url, t);
  }
  return t;
}

/** `v1=` + hex HMAC-SHA256 keyed with the secret's UTF-8 bytes over `<timestamp>.<raw body>`. */
export function signature(secret: string, timestamp: string, body: string): string {
  // node:crypto's native HMAC: the same bytes as a pure-JS one, at a fraction of the cost per delivery.
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`;
}

export interface SignedRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export function signedRequest(opts: {
  url: string;
  prefix: string;
  secret: string;
  webhook_id: string;
  event_id: string;
  delivery_id: string;
  timestamp_ms: number;
  body: string;
}): SignedRequest {
  const p = opts.prefix;
  const timestamp = String(opts.timestamp_ms);
  return {
    url: opts.url,
    body: opts.body,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'swapsim-webhooks/1',
      [`${p}-Webhook-Id`]: opts.webhook_id,
      [`${p}-Event-Id`]: opts.event_id,
      [`${p}-Delivery-Id`]: opts.delivery_id,
      [`${p}-Timestamp`]: timestamp,
      [`${p}-Signature`]: signature(opts.secret, timestamp, opts.body),
    },
  };
}

/**
 * A POST whose bytes are made only when it leaves: its lane may hold it for seconds (a slow or hanging receiver,
 * `webhook_max_queued` of them per organization), and a queued attempt holding its own body, signature and headers
 * was the largest thing the soak promoted to the old generation only to drop it there. It holds the parts (the
 * envelope, the secret, the timestamp: shared or small) and the journal key its answer is recorded under.
 */
export interface LazyRequest {
  /** `<delivery id>@<timestamp>`: the key a journal records the answer under (the same as the headers give). */
  journal_key: string;
  build(): SignedRequest;
}

export function lazySignedRequest(opts: Omit<Parameters<typeof signedRequest>[0], 'body'> & { body: () => string }): LazyRequest {
  return {
    journal_key: `${opts.delivery_id}@${opts.timestamp_ms}`,
    build: () => signedRequest({ ...opts, body: opts.body() }),
  };
}

const built = (req: SignedRequest | LazyRequest): SignedRequest => ('build' in req ? req.build() : req);

/**
 * The HTTP status, or 0 when nothing answered (timeout, refused connection, DNS, TLS…). With a journal
 * the answer goes through it (keyed by delivery id and timestamp): recorded, or in a replay taken from
 * the recording without any network call.
 */
export function post(
  req: SignedRequest | LazyRequest,
  timeout_ms: number,
  journal?: Journal,
  transport: Transport = createTransport(),
  lane?: LaneKey,
): Promise<number> {
  // The lane sits inside the journal's outside call: a POST that a tripped or full lane fails at once is
  // recorded like any answer, and a replay never consults the lanes.
  const go = (): Promise<number> =>
    lane
      ? transport.outbox.submit(lane.lane_id, lane.account_id, lane.sim_ms, () => send(built(req), timeout_ms, transport))
      : send(built(req), timeout_ms, transport).then((s) => s.status);
  if (!journal || journal.mode === 'off') return go();
  if ('build' in req) return journal.outside('webhook', req.journal_key, go);
  const header = (suffix: string): string => Object.entries(req.headers).find(([name]) => name.endsWith(suffix))?.[1] ?? '';
  return journal.outside('webhook', `${header('-Delivery-Id')}@${header('-Timestamp')}`, go);
}

/**
 * Answer slot (no journal): a delivery's copies leave together, outside the lanes (their answers land at a fixed
 * sim time, so a lane's wait and trip would only add wall time), but one account's POSTs leave in dispatch order:
 * each once the previous one of the same organization and account was answered, or `stagger_ms` of wall time after it
 * was handed to the socket (or ended unsent) if that comes first, never waiting longer for its answer. Resolves with
 * each copy's status, in copy order; with 0s, unsent, when `alive()` says by then that its webhook is gone
 * (organization deleted).
 */
export function postTogether(
  req: SignedRequest | LazyRequest,
  copies: number,
  timeout_ms: number,
  transport: Transport,
  lane: LaneKey,
  stagger_ms: number,
  alive: () => boolean,
): Promise<number[]> {
  const key = `${lane.lane_id} ${lane.account_id}`;
  const previous = transport.staggered.get(key);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  transport.staggered.set(key, gate);
  let unsent = copies;
  let unanswered = copies;
  let opened = false;
  const openNow = (): void => {
    if (opened) return;
    opened = true;
    open();
    if (transport.staggered.get(key) === gate) transport.staggered.delete(key);
  };
  // The next POST waits for this one's answer, or stagger_ms after it was handed to the socket if the answer is
  // slower than that: a quick receiver is never kept waiting, a slow one never holds the account's later deliveries.
  const handed = (): void => {
    if (--unsent === 0) wallTimeout(stagger_ms, openNow);
  };
  const go = (): Promise<number[]> => {
    if (!alive()) {
      openNow();
      return Promise.resolve(Array.from({ length: copies }, () => 0));
    }
    const bytes = built(req);
    return Promise.all(
      Array.from({ length: copies }, () =>
        send(bytes, timeout_ms, transport, handed).then((s) => {
          // Every copy answered (or failed before it was handed, which also ends it here).
          if (--unanswered === 0 || unsent > 0) openNow();
          return s.status;
        }),
      ),
    );
  };
  return previous === undefined ? go() : previous.then(go);
}

/**
 * Dispatches through the world's pool and reports when the request has been written to the socket (undici's
 * `onRequestSent`), which its `request` API does not expose: one per staggered POST.
 */
class SentSignal {
  constructor(
    private readonly dispatcher: Agent,
    private readonly onSent: () => void,
  ) {}

  dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    (handler as { onRequestSent?: () => void }).onRequestSent = this.onSent;
    return this.dispatcher.dispatch(opts, handler);
  }
}

/** A receiver's answer body is read up to this much to keep the connection; past it the connection is dropped. */
const DRAIN_LIMIT_BYTES = 2 ** 20;

/**
 * One POST over undici with a keep-alive pool. Redirects are not followed (a 3xx is not a 2xx: a failed
 * attempt). The answer is the status line's code once the body is drained, ended or cut off; 0 when no
 * response came (timeout, refused connection, DNS, TLS…). The whole exchange is bounded by timeout_ms.
 */
async function send(req: SignedRequest, timeout_ms: number, transport: Transport, onSent?: () => void): Promise<Sent> {
  // undici takes an emitter as its abort signal: with a plain timer it costs a fraction of AbortSignal.timeout,
  // whose per-request setup was a third of a POST. It aborts the body as well as the wait for the answer.
  const signal = new EventEmitter();
  let timed_out = false;
  const cancel = wallTimeout(timeout_ms, () => {
    timed_out = true;
    signal.emit('abort');
  });
  let status: number;
  try {
    const { origin, path } = targetOf(transport, req.url);
    // Content-Length comes from the string body; undici adds Host.
    const opts = { origin, path, method: 'POST' as const, headers: req.headers, body: req.body, signal };
    const res = await (onSent
      ? transport.dispatcher.request.call(new SentSignal(transport.dispatcher, onSent), opts)
      : transport.dispatcher.request(opts));
    status = res.statusCode;
    try {
      // Drained so the connection can be reused (a large answer is cut off instead); a receiver that stalls mid-body still times out.
      await res.body.dump({ limit: DRAIN_LIMIT_BYTES });
    } catch {
      // The status line came: the answer stands even if the body did not.
    }
  } catch {
    return { status: 0, timed_out };
  } finally {
    cancel();
  }
  return { status, timed_out: false };
}
