// Destination request and response schemas, declared once: validation, types and the OpenAPI document.
import { z } from 'zod';
import { cursorQuery, idString, limitQuery } from '../../contract/validate.ts';
import { isCanonicalAssetKey } from '../assets/index.ts';

export const destination = z
  .object({
    destination_id: z.string(),
    asset_key: z.string(),
    address: z.string(),
    memo: z.string().nullable(),
    tag: z.string().nullable(),
    label: z.string().nullable(),
    suspended_at_ms: z.number().int().nullable(),
    suspension_reason: z.string().nullable(),
  })
  .meta({ id: 'Destination' });

export const accountParams = z.object({ account_id: idString });
export const destinationParams = z.object({ account_id: idString, destination_id: idString });
export const controlParams = z.object({ destination_id: idString });

// Grammar, asset support and the one-of rule are checked by resolveAssetRef, with their own codes.
export const registerBody = z.object({
  asset_key: z.string().max(256).optional(),
  symbol: z.string().max(64).optional(),
  address: z.string().min(1).max(128),
  memo: z.string().max(256).optional(),
  tag: z.string().max(64).optional(),
  label: z.string().max(256).optional(),
});

export const listQuery = z.object({
  asset_key: z
    .string()
    .refine(isCanonicalAssetKey, {
      message: 'asset_key does not match the canonical asset_key grammar',
      params: { api_code: 'invalid_asset_key' },
    })
    .optional(),
  limit: limitQuery,
  cursor: cursorQuery,
});

export const suspendBody = z.object({ reason: z.string().min(1).max(256) });

export const destinationReply = z.object({ request_id: z.string(), destination });
