// Zap request and response schemas, declared once: validation, types and the OpenAPI document.
import { z } from 'zod';
import { atomsString, bpsString, cursorQuery, idString, limitQuery, uiString } from '../../contract/validate.ts';
import { ZAP_STATUSES } from './machine.ts';
import { failureCodesOf } from '../../failure-codes.ts';

const zapStatusEnum = z.enum(ZAP_STATUSES);

const text = z.string().min(1).max(256);
/** Asset references are graded by the asset resolver (invalid_asset_key / invalid_symbol), even when empty. */
const assetRef = z.string().max(256);

/** One-of pairs (asset, amounts) are resolved by the model, which knows the assets' decimals. */
export const createZapBody = z.object({
  account_id: idString,
  from_asset_key: assetRef.optional(),
  from_symbol: assetRef.optional(),
  to_asset_key: assetRef.optional(),
  to_symbol: assetRef.optional(),
  amount_in_atoms: atomsString.optional(),
  amount_in_ui: uiString.optional(),
  min_amount_out_atoms: atomsString.optional(),
  min_amount_out_ui: uiString.optional(),
  destination_id: idString,
  credit_id: idString.optional(),
  expires_at_ms: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  client_zap_id: text.optional(),
  integrator_fee_bps: bpsString.optional(),
  // The spec: "Side is always exact_in and is not a parameter". A client that sends one anyway is told
  // (invalid_enum) rather than silently getting exact_in for an exact_out it meant.
  side: z.enum(['exact_in']).optional(),
});
export type CreateZapBody = z.output<typeof createZapBody>;

export const zapParams = z.object({ zap_id: idString });

export const listZapsQuery = z.object({
  account_id: idString.optional(),
  status: zapStatusEnum.optional(),
  limit: limitQuery,
  cursor: cursorQuery,
});

const fees = z.object({
  platform_bps: z.string(),
  integrator_bps: z.string(),
  total_bps: z.string(),
  platform_atoms: z.string(),
  integrator_atoms: z.string(),
  total_atoms: z.string(),
});

const settlement = z.object({
  out_tx_hash: z.string(),
  out_confirmations: z.number().int(),
  out_finalized: z.boolean(),
  in_tx_hash: z.string(),
  in_confirmations: z.number().int(),
  in_finalized: z.boolean(),
});

const depositAddress = z.object({
  deposit_address_id: z.string(),
  asset_key: z.string(),
  address: z.string(),
  memo: z.string().nullable(),
  tag: z.string().nullable(),
});

export const zap = z
  .object({
    zap_id: z.string(),
    account_id: z.string().optional(),
    status: zapStatusEnum,
    client_zap_id: z.string().nullable(),
    expires_at_ms: z.number().int().optional(),
    requested_amount_in_atoms: z.string(),
    observed_amount_in_atoms: z.string().optional(),
    from_asset_key: z.string().optional(),
    to_asset_key: z.string().optional(),
    created_at_ms: z.number().int().optional(),
    deposit_address: depositAddress.optional(),
    failure_code: z.enum(failureCodesOf('zap')).optional(),
    recovery: z.object({ recovery_id: z.string(), credit_id: z.string() }).optional(),
    settlement: settlement.optional(),
    fees: fees.optional(),
    poll_after_ms: z.number().int().optional(),
  })
  .meta({ id: 'Zap' });

export const zapListItem = z
  .object({
    zap_id: z.string(),
    account_id: z.string(),
    status: zapStatusEnum,
    client_zap_id: z.string().nullable(),
    requested_amount_in_atoms: z.string(),
    from_asset_key: z.string(),
    to_asset_key: z.string(),
    created_at_ms: z.number().int(),
  })
  .meta({ id: 'ZapListItem' });

export const zapReply = z.object({ request_id: z.string(), zap });
