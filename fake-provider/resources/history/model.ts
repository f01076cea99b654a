// GET /accounts/{account_id}/history over whatever resource modules provide records: terminal records
// only, filtered, newest first (created_at_ms, then seq, descending), paged with opaque cursors.
import { ApiError } from '../../contract/errors.ts';
import { decodeCursor, encodeCursor, DEFAULT_LIMIT, type Page } from '../../contract/pagination.ts';
import type { HistoryRecord, HistorySource } from '../../resource-records.ts';
import type { World } from '../../world.ts';
import { HISTORY_STATUSES, type HistoryStatus, type HistoryType } from './schemas.ts';

export interface HistoryQuery {
  types?: HistoryType[];
  status?: HistoryStatus;
  asset_key?: string;
  since_ms?: number;
  until_ms?: number;
  limit?: number;
  cursor?: string;
}

const isTerminal = (r: HistoryRecord): boolean => (HISTORY_STATUSES as readonly string[]).includes(r.status);

/** Newest first: a before b when a is later, or as late and created after it. */
const newestFirst = (a: HistoryRecord, b: HistoryRecord): number => b.created_at_ms - a.created_at_ms || b.seq - a.seq;

/** Every terminal record of the account, newest first, from every module that implements `history`. */
export function historyOf(modules: readonly HistorySource[], world: World, account_id: string): HistoryRecord[] {
  const all: HistoryRecord[] = [];
  for (const m of modules) if (m.history) all.push(...m.history(world, account_id).filter(isTerminal));
  return all.sort(newestFirst);
}

function matches(r: HistoryRecord, q: HistoryQuery): boolean {
  return (
    (q.types === undefined || q.types.length === 0 || q.types.includes(r.type)) &&
    (q.status === undefined || r.status === q.status) &&
    (q.asset_key === undefined || r.asset_keys.includes(q.asset_key)) &&
    (q.since_ms === undefined || r.created_at_ms >= q.since_ms) &&
    (q.until_ms === undefined || r.created_at_ms <= q.until_ms)
  );
}

/**
 * The cursor names the last record served by its seq; paging resumes strictly after that record's
 * (created_at_ms, seq), so the order never depends on seq alone agreeing with created_at_ms.
 */
export function listHistory(modules: readonly HistorySource[], world: World, account_id: string, q: HistoryQuery): Page<HistoryRecord> {
  const all = historyOf(modules, world, account_id);
  let items = all.filter((r) => matches(r, q));
  if (q.cursor !== undefined) {
    const seq = decodeCursor(q.cursor, 'desc');
    const anchor = all.find((r) => r.seq === seq);
    if (!anchor) throw new ApiError('invalid_parameter', 'cursor is not a cursor this list returned', { param: 'cursor' });
    items = items.filter((r) => newestFirst(anchor, r) < 0);
  }
  const limit = q.limit ?? DEFAULT_LIMIT;
  const slice = items.slice(0, limit);
  const has_more = items.length > limit;
  return { items: slice, has_more, next_cursor: has_more ? encodeCursor(slice[slice.length - 1].seq, 'desc') : null };
}

export function serializeRecord(r: HistoryRecord): Record<string, unknown> {
  return r.body;
}
