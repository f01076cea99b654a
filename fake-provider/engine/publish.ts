// Publishing into a world's event store (the id, seq and time drawn from the world, installed listeners told,
// the profile's unknown event types) and selecting a world's events by filter. The store is events.ts; this
// module is the one that needs the world, so the store does not import world.ts.
import type { World } from '../world.ts';
import type { Derived, EventEnvelope, StoredEvent } from './events.ts';

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
  return append(world, org_id, account_id, type, frozenData(data), null);
}

/**
 * `publish` for data the store rebuilds from its source on read (see `Derived`): a settled trade's
 * credit.created and deposit events keep a pointer to their entity instead of their own data object
 * and amount strings (about 350 bytes per trade).
 */
export function publishDerived<S>(world: World, org_id: string, account_id: string, type: string, derived: Derived<S>): StoredEvent {
  return append(world, org_id, account_id, type, derived.source, derived.build);
}

/**
 * The id is drawn as its parts and stored as numbers: its string, like the envelope, is made only when
 * read (a listener delivering it, a feed page), not for every event published.
 */
function append(
  world: World,
  org_id: string,
  account_id: string,
  type: string,
  data: unknown,
  build: Derived['build'] | null,
): StoredEvent {
  const event = world.events.append(world.newIdParts(), type, world.sim.now_ms(), org_id, account_id, world.nextSeq(), data, build);
  for (const listener of world.hooks.eventPublished) listener(world, event);
  // Profile `unknown_event_types`: a type no client knows yet follows about one event in ten. The draw
  // is forked per event id, so it moves no other stream.
  if (world.profile.unknown_event_types && type !== UNKNOWN_EVENT_TYPE) {
    const event_id = event.envelope.event_id;
    if (world.sim.rng.fork(`unknown_events/${event_id}`).chance(0.1)) {
      publish(world, org_id, account_id, UNKNOWN_EVENT_TYPE, {
        follows_event_id: event_id,
        note: 'forward-compatibility event: ignore it',
      });
    }
  }
  return event;
}

/** The event type the `unknown_event_types` profile setting publishes. */
const UNKNOWN_EVENT_TYPE = 'swapsim.unknown_event';

/** `trade.*` matches `trade.settled`; `*` matches all; anything else matches exactly. */
function typeMatches(patterns: readonly string[] | undefined, type: string): boolean {
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
  // The org first: it is read without making the envelope, and most foreign events stop there.
  if (e.org_id !== f.org_id) return false;
  const env = e.envelope;
  return (
    (f.account_id === undefined || env.account_id === f.account_id) &&
    (f.since_ms === undefined || env.created_at_ms >= f.since_ms) &&
    (f.until_ms === undefined || env.created_at_ms <= f.until_ms) &&
    typeMatches(f.types, env.type) &&
    (f.where === undefined || f.where(env))
  );
}

/** Events in publication order (oldest first), filtered. */
export function selectEvents(world: World, f: EventFilter): StoredEvent[] {
  const pool = f.account_id === undefined ? world.events.forOrg(f.org_id) : world.events.forAccount(f.account_id);
  return pool.filter((e) => matchesFilter(e, f));
}
