// Reads over the immutable event store: the organization's event feed (oldest first, cursor = event seq)
// and one account's activity stream with its data-field filters.
import type { World } from '../../world.ts';
import type { EventEnvelope, EventList, StoredEvent } from '../../engine/index.ts';
import { matchesFilter, selectEvents, type EventFilter } from '../../engine/index.ts';
import { decodeCursor, DEFAULT_LIMIT, encodeCursor, paginate, type Page } from '../../contract/pagination.ts';

export interface FeedQuery {
  types?: string[];
  account_id?: string;
  since_ms?: number;
  until_ms?: number;
  limit?: number;
  cursor?: string;
}

export interface ActivityQuery {
  types?: string[];
  since_ms?: number;
  until_ms?: number;
  asset_key?: string;
  trade_id?: string;
  zap_id?: string;
  cancel_id?: string;
  credit_id?: string;
  limit?: number;
  cursor?: string;
}

/** Activity filters that match the same-named field of `data`. */
const DATA_FILTERS = ['asset_key', 'trade_id', 'zap_id', 'cancel_id', 'credit_id'] as const;

/**
 * The org's events in publication order. An `account_id` outside the org simply matches nothing: the
 * feed's documented answers are 200 and 400, and it must not reveal which ids exist elsewhere.
 */
export function listEvents(world: World, org_id: string, q: FeedQuery): Page<StoredEvent> {
  const filter: EventFilter = { org_id, types: q.types, account_id: q.account_id, since_ms: q.since_ms, until_ms: q.until_ms };
  const limit = q.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1)
    return paginate(selectEvents(world, filter), (e) => e.seq, { limit: q.limit, cursor: q.cursor });
  // The same page `paginate` would cut from the whole filtered list, without filtering it all: the pool
  // (the account's events or every event) is in seq order, so the cursor is found by binary search and
  // the scan stops once one match beyond the page shows there is more.
  const pool = q.account_id === undefined ? world.events.forOrg(org_id) : world.events.forAccount(q.account_id);
  const after = q.cursor === undefined ? 0 : decodeCursor(q.cursor, 'asc');
  const items: StoredEvent[] = [];
  let has_more = false;
  for (let i = firstAfter(pool, after); i < pool.length; i++) {
    const e = pool.at(i)!;
    if (!matchesFilter(e, filter)) continue;
    if (items.length === limit) {
      has_more = true;
      break;
    }
    items.push(e);
  }
  return { items, has_more, next_cursor: has_more ? encodeCursor(items[items.length - 1].seq, 'asc') : null };
}

/** Index of the first event with seq > after in a seq-ordered list. */
function firstAfter(pool: EventList, after: number): number {
  let lo = 0;
  let hi = pool.length;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (pool.at(mid)!.seq > after) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** One account's events (the caller has checked the account belongs to the org), in the profile's order. */
export function listActivity(world: World, org_id: string, account_id: string, q: ActivityQuery): Page<StoredEvent> {
  const wanted = DATA_FILTERS.filter((f) => q[f] !== undefined);
  const where = wanted.length === 0 ? undefined : (e: EventEnvelope) => wanted.every((f) => e.data[f] === q[f]);
  const items = selectEvents(world, { org_id, account_id, types: q.types, since_ms: q.since_ms, until_ms: q.until_ms, where });
  const order = world.profile.activity_order;
  if (order === 'desc') items.reverse();
  return paginate(items, (e) => e.seq, { limit: q.limit, cursor: q.cursor, order });
}

/** The spec's envelope, exactly its five fields in a fixed order (webhook bodies are signed over this). */
export function serializeEvent(e: StoredEvent): EventEnvelope {
  const env = e.envelope;
  return { event_id: env.event_id, type: env.type, created_at_ms: env.created_at_ms, account_id: env.account_id, data: env.data };
}
