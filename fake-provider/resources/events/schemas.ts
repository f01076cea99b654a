// Event feed and activity schemas, declared once: the type-pattern grammar (shared with webhook replay),
// the two query shapes and the envelope as served.
import { z } from 'zod';
import { commaList, cursorQuery, idString, limitQuery, msQuery } from '../../http/validate.ts';
import { isCanonicalAssetKey } from '../assets/index.ts';

const WORD = '[a-z][a-z0-9_]*';
/** `*`, `<word>(.<word>)*.*`, or a dotted name such as `trade.settled`. */
export const TYPE_PATTERN = new RegExp(`^(\\*|${WORD}(\\.${WORD})*\\.\\*|${WORD}(\\.${WORD})+)$`);

export const typePattern = z.string().max(128).regex(TYPE_PATTERN, 'must be *, <word>.* or a dotted event type such as trade.settled');

/** `types=trade.*,zap.settled`: every entry must be a valid pattern. */
export const typesQuery = commaList
  .refine((list) => list.length <= 100, 'at most 100 entries')
  .refine((list) => list.every((t) => TYPE_PATTERN.test(t)), 'each entry must be *, <word>.* or a dotted event type such as trade.settled')
  .optional();

const sinceUntil = <T extends { since_ms?: number; until_ms?: number }>(q: T): boolean =>
  q.since_ms === undefined || q.until_ms === undefined || q.until_ms >= q.since_ms;
const untilIssue = { message: 'until_ms must not be before since_ms', path: ['until_ms'] };

export const eventsQuery = z
  .object({
    types: typesQuery,
    account_id: idString.optional(),
    since_ms: msQuery,
    until_ms: msQuery,
    limit: limitQuery,
    cursor: cursorQuery,
  })
  .refine(sinceUntil, untilIssue);

export const assetKeyQuery = z.string().max(256).refine(isCanonicalAssetKey, {
  message: 'does not match the canonical asset_key grammar',
  params: { api_code: 'invalid_asset_key' },
});

export const activityQuery = z
  .object({
    types: typesQuery,
    since_ms: msQuery,
    until_ms: msQuery,
    asset_key: assetKeyQuery.optional(),
    trade_id: idString.optional(),
    zap_id: idString.optional(),
    cancel_id: idString.optional(),
    credit_id: idString.optional(),
    limit: limitQuery,
    cursor: cursorQuery,
  })
  .refine(sinceUntil, untilIssue);

export const activityParams = z.object({ account_id: idString });

export const eventEnvelope = z.object({
  event_id: z.string(),
  type: z.string(),
  created_at_ms: z.number().int(),
  account_id: z.string(),
  data: z.record(z.string(), z.unknown()),
});
