// The immutable event store: every event any lifecycle emits, with the spec's envelope, queried by the
// event feed, account activity and webhook replay. Events are frozen on publish and never edited.
import type { World } from '../world.ts';

export interface EventEnvelope {
  event_id: string;
  type: string;
  created_at_ms: number;
  account_id: string;
  data: Record<string, unknown>;
}

export interface StoredEvent {
  readonly envelope: Readonly<EventEnvelope>;
  readonly org_id: string;
  readonly seq: number;
}

/**
 * One stored event in one object: its own enumerable fields are exactly the envelope's five, in the
 * spec's order (so `envelope` is the record itself, and JSON of it is the envelope's bytes); the org and
 * the sequence number are private fields, invisible to JSON, `Object.keys` and equality checks. Was three
 * objects (envelope, record, Map entry) per event.
 */
class EventRecord implements StoredEvent, EventEnvelope {
  readonly #org_id: string;
  readonly #seq: number;
  constructor(
    readonly event_id: string,
    readonly type: string,
    readonly created_at_ms: number,
    readonly account_id: string,
    readonly data: Record<string, unknown>,
    org_id: string,
    seq: number,
  ) {
    this.#org_id = org_id;
    this.#seq = seq;
    Object.freeze(this);
  }
  get envelope(): Readonly<EventEnvelope> {
    return this;
  }
  get org_id(): string {
    return this.#org_id;
  }
  get seq(): number {
    return this.#seq;
  }
}

/** Lookup by event id without a Map entry per event (see `createEventStore`). */
export interface EventIndex {
  get(event_id: string): StoredEvent | undefined;
  has(event_id: string): boolean;
}

export interface EventStore {
  /** Every event in publication order: `seq` and the id counter both increase along it. */
  readonly all: StoredEvent[];
  readonly byId: EventIndex;
  /** One account's events in publication order (the feed's and activity's `account_id` reads). */
  forAccount(account_id: string): readonly StoredEvent[];
  /** Appends one event (publish). */
  add(event: StoredEvent): void;
}

/** Event ids are `evt_` + 12 hex + the world's id counter in base 36 (world.ts `newId`). */
const ID_COUNTER_AT = 'evt_'.length + 12;
const idCounter = (event_id: string): number => (event_id.startsWith('evt_') ? parseInt(event_id.slice(ID_COUNTER_AT), 36) : NaN);

export function createEventStore(): EventStore {
  const all: StoredEvent[] = [];
  const byAccount = new Map<string, StoredEvent[]>();
  // The world's id counter only grows and every event id is drawn at publish, so `all` is sorted by the
  // counter in the id: a binary search finds an event, then the whole id must match.
  const find = (event_id: string): StoredEvent | undefined => {
    // The listeners of `publish` ask for the event just appended.
    const last = all[all.length - 1];
    if (last !== undefined && last.envelope.event_id === event_id) return last;
    const want = idCounter(event_id);
    if (!Number.isFinite(want)) return undefined;
    let lo = 0;
    let hi = all.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const got = idCounter(all[mid].envelope.event_id);
      if (got === want) return all[mid].envelope.event_id === event_id ? all[mid] : undefined;
      if (got < want) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  };
  return {
    all,
    byId: { get: find, has: (event_id) => find(event_id) !== undefined },
    forAccount: (account_id) => byAccount.get(account_id) ?? [],
    add(event) {
      all.push(event);
      const list = byAccount.get(event.envelope.account_id);
      if (list) list.push(event);
      else byAccount.set(event.envelope.account_id, [event]);
    },
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** Frozen and flat: nothing can change it, so events may share it (e.g. a trade's identifiers). */
function sharable(data: Record<string, unknown>): boolean {
  if (!Object.isFrozen(data) || Object.getPrototypeOf(data) !== Object.prototype) return false;
  for (const key in data) {
    const v = data[key];
    if (v !== null && typeof v === 'object') return false;
  }
  return true;
}

/**
 * A frozen copy of the publisher's data: primitives (most fields: ids, amounts as strings) are shared,
 * nested objects cloned, so nothing the publisher keeps can change the event and no string is duplicated.
 * Data already frozen and flat is stored as given, so a publisher can hand several events one object.
 */
function frozenData(data: Record<string, unknown>): Record<string, unknown> {
  if (sharable(data)) return data;
  const out: Record<string, unknown> = { ...data };
  for (const key in out) {
    const v = out[key];
    if (v !== null && typeof v === 'object') out[key] = deepFreeze(structuredClone(v));
  }
  return Object.freeze(out);
}

/** Appends one event and tells the installed listeners (webhooks) about it. */
export function publish(world: World, org_id: string, account_id: string, type: string, data: Record<string, unknown>): StoredEvent {
  const event_id = world.newId('evt');
  const stored = new EventRecord(event_id, type, world.sim.now_ms(), account_id, frozenData(data), org_id, world.nextSeq());
  world.events.add(stored);
  for (const listener of world.hooks.eventPublished) listener(world, event_id);
  // Profile `unknown_event_types`: a type no client knows yet follows about one event in ten. The draw
  // is forked per event id, so it moves no other stream.
  if (world.profile.unknown_event_types && type !== UNKNOWN_EVENT_TYPE && world.sim.rng.fork(`unknown_events/${event_id}`).chance(0.1)) {
    publish(world, org_id, account_id, UNKNOWN_EVENT_TYPE, { follows_event_id: event_id, note: 'forward-compatibility event: ignore it' });
  }
  return stored;
}

/** The event type the `unknown_event_types` profile setting publishes. */
export const UNKNOWN_EVENT_TYPE = 'swapsim.unknown_event';

/** `trade.*` matches `trade.settled`; `*` matches all; anything else matches exactly. */
export function typeMatches(patterns: readonly string[] | undefined, type: string): boolean {
  if (!patterns || patterns.length === 0) return true;
  return patterns.some((p) => (p === '*' ? true : p.endsWith('.*') ? type.startsWith(p.slice(0, -1)) : p === type));
}

export interface EventFilter {
  org_id: string;
  types?: readonly string[];
  account_id?: string;
  since_ms?: number;
  until_ms?: number;
  /** Extra predicate on data (activity filters such as trade_id or asset_key). */
  where?: (e: EventEnvelope) => boolean;
}

export function matchesFilter(e: StoredEvent, f: EventFilter): boolean {
  const env = e.envelope;
  return (
    e.org_id === f.org_id &&
    (f.account_id === undefined || env.account_id === f.account_id) &&
    (f.since_ms === undefined || env.created_at_ms >= f.since_ms) &&
    (f.until_ms === undefined || env.created_at_ms <= f.until_ms) &&
    typeMatches(f.types, env.type) &&
    (f.where === undefined || f.where(env))
  );
}

/** Events in publication order (oldest first), filtered. */
export function selectEvents(world: World, f: EventFilter): StoredEvent[] {
  const pool = f.account_id === undefined ? world.events.all : world.events.forAccount(f.account_id);
  return pool.filter((e) => matchesFilter(e, f));
}
