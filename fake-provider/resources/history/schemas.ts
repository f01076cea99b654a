// History query and record schemas, declared once: validation, types and the OpenAPI document.
import { z } from 'zod';
import { commaList, cursorQuery, idString, limitQuery, msQuery } from '../../contract/validate.ts';
import { isCanonicalAssetKey } from '../assets/index.ts';

const HISTORY_TYPES = ['trade', 'zap', 'cancel'] as const;
export type HistoryType = (typeof HISTORY_TYPES)[number];
export const HISTORY_STATUSES = ['settled', 'failed', 'confirmed'] as const;
export type HistoryStatus = (typeof HISTORY_STATUSES)[number];

const isType = (t: string): t is HistoryType => (HISTORY_TYPES as readonly string[]).includes(t);

export const historyQuery = z
  .object({
    types: commaList
      .refine((list) => list.every(isType), {
        message: `each entry must be one of: ${HISTORY_TYPES.join(', ')}`,
        params: { api_code: 'invalid_enum' },
      })
      .transform((list) => list as HistoryType[])
      .optional(),
    status: z.enum(HISTORY_STATUSES).optional(),
    asset_key: z
      .string()
      .max(256)
      .refine(isCanonicalAssetKey, { message: 'does not match the canonical asset_key grammar', params: { api_code: 'invalid_asset_key' } })
      .optional(),
    since_ms: msQuery,
    until_ms: msQuery,
    limit: limitQuery,
    cursor: cursorQuery,
  })
  .refine((q) => q.since_ms === undefined || q.until_ms === undefined || q.until_ms >= q.since_ms, {
    message: 'until_ms must not be before since_ms',
    path: ['until_ms'],
  });

export const historyParams = z.object({ account_id: idString });

/** Records differ by type (spec: History records); the common fields are fixed, the rest pass through. */
export const historyRecord = z
  .object({
    type: z.enum(HISTORY_TYPES),
    status: z.enum(HISTORY_STATUSES),
    created_at_ms: z.number().int(),
  })
  .loose()
  .meta({ id: 'HistoryRecord' });
