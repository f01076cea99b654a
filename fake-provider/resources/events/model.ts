// Reads over the immutable event store: the organization's event feed (oldest first, cursor = event seq)
// and one account's activity stream with its data-field filters.
import type { World } from '../../world.ts';
import { selectEvents, type EventEnvelope, type StoredEvent } from '../../engine/events.ts';
import { paginate, type Page } from '../../http/pagination.ts';

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
  const items = selectEvents(world, { org_id, types: q.types, account_id: q.account_id, since_ms: q.since_ms, until_ms: q.until_ms });
  return paginate(items, (e) => e.seq, { limit: q.limit, cursor: q.cursor });
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
