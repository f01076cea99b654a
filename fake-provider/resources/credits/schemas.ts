// Credit and balance request and response schemas, declared once: validation, types and the OpenAPI document.
import { z } from 'zod';
import { cursorQuery, idString, limitQuery } from '../../contract/validate.ts';

const creditStatusEnum = z.enum(['open', 'consumed']);
export const creditSourceTypeEnum = z.enum(['deposit', 'trade_settlement', 'change']);

export const credit = z
  .object({
    credit_id: z.string(),
    account_id: z.string(),
    asset_key: z.string(),
    atoms: z.string(),
    status: creditStatusEnum,
    source_type: creditSourceTypeEnum,
    source_id: z.string(),
    created_at_ms: z.number().int(),
  })
  .meta({ id: 'Credit' });

export const balance = z
  .object({
    asset_key: z.string(),
    available_atoms: z.string(),
    pending_atoms: z.string(),
  })
  .meta({ id: 'Balance' });

export const accountParams = z.object({ account_id: idString });

const assetRef = {
  asset_key: z.string().max(256).optional(),
  symbol: z.string().max(64).optional(),
};

export const listCreditsQuery = z.object({
  ...assetRef,
  status: creditStatusEnum.optional(),
  limit: limitQuery,
  cursor: cursorQuery,
});

export const listBalancesQuery = z.object({
  ...assetRef,
  limit: limitQuery,
  cursor: cursorQuery,
});
