// Asset, resolution and symbol request/response schemas, declared once: validation, types and OpenAPI.
// Formats with their own error codes (asset_key grammar, symbol format) are checked by the model.
import { z } from 'zod';
import { boolQuery, cursorQuery, limitQuery } from '../../contract/validate.ts';

export const asset = z
  .object({
    asset_key: z.string(),
    display_symbol: z.string(),
    name: z.string(),
    decimals: z.number().int(),
    verified: z.boolean(),
  })
  .meta({ id: 'Asset' });

export const listAssetsQuery = z.object({
  q: z.string().max(128).optional(),
  asset_key: z.string().optional(),
  symbol: z.string().optional(),
  verified: boolQuery.optional(),
  chain: z.string().max(32).optional(),
  limit: limitQuery,
  cursor: cursorQuery,
});

export const resolveQuery = z.object({
  // string first: a missing required enum must be parameter_missing, not invalid_enum.
  kind: z.enum(['erc20', 'spl', 'native']),
  chain_id: z.string().max(16).optional(),
  address: z.string().max(128).optional(),
  mint: z.string().max(64).optional(),
  chain: z.string().max(32).optional(),
});

export const resolvedAsset = z
  .object({ asset_key: z.string(), decimals: z.number().int(), verified: z.boolean() })
  .meta({ id: 'ResolvedAsset' });
export const resolveReply = z.object({ request_id: z.string(), asset: resolvedAsset });

export const symbolRecord = z.object({ symbol: z.string(), asset_key: z.string(), created_at_ms: z.number().int() }).meta({ id: 'Symbol' });

export const putSymbolsBody = z.object({
  symbols: z.array(z.object({ symbol: z.string(), asset_key: z.string() })),
});

export const putSymbolsReply = z.object({
  request_id: z.string(),
  created: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
});

export const listSymbolsQuery = z.object({
  q: z.string().max(64).optional(),
  limit: limitQuery,
  cursor: cursorQuery,
});

export const symbolParams = z.object({ symbol: z.string() });
