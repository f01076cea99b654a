// List pages with opaque cursors. Every stored record carries a world sequence number; a cursor names
// the last one served, so inserts made between pages never shift or repeat items.
import { ApiError } from './errors.ts';

export interface Page<T> {
  items: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export const DEFAULT_LIMIT = 50;

export function encodeCursor(seq: number, order: 'asc' | 'desc'): string {
  return Buffer.from(`c1:${order}:${seq}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, order: 'asc' | 'desc'): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const m = /^c1:(asc|desc):([0-9]{1,15})$/.exec(text);
  if (!m || m[1] !== order) throw new ApiError('invalid_parameter', 'cursor is not a cursor this list returned', { param: 'cursor' });
  return Number(m[2]);
}

/**
 * Pages `items`, which must already be filtered and sorted by `seqOf` in `order`.
 * For newest-first lists pass order 'desc'.
 */
export function paginate<T>(
  items: readonly T[],
  seqOf: (t: T) => number,
  opts: { limit?: number; cursor?: string; order?: 'asc' | 'desc' },
): Page<T> {
  const order = opts.order ?? 'asc';
  const limit = opts.limit ?? DEFAULT_LIMIT;
  let start = 0;
  if (opts.cursor !== undefined) {
    const after = decodeCursor(opts.cursor, order);
    start = items.findIndex((t) => (order === 'asc' ? seqOf(t) > after : seqOf(t) < after));
    if (start < 0) start = items.length;
  }
  const slice = items.slice(start, start + limit);
  const has_more = start + limit < items.length;
  return { items: slice, has_more, next_cursor: has_more ? encodeCursor(seqOf(slice[slice.length - 1]), order) : null };
}
