// Deposit address, partner flag and /_sim/deposits schemas, declared once: validation, types and OpenAPI.
import { z } from 'zod';
import { atomsString, cursorQuery, idString, limitQuery } from '../../contract/validate.ts';

export const depositAddress = z
  .object({
    deposit_address_id: z.string(),
    asset_key: z.string(),
    address: z.string(),
    memo: z.string().nullable(),
    tag: z.string().nullable(),
  })
  .meta({ id: 'DepositAddress' });

export const accountParams = z.object({ account_id: idString });
export const depositAddressParams = z.object({ deposit_address_id: idString });

export const createDepositAddressBody = z.object({
  asset_key: z.string().max(256).optional(),
  symbol: z.string().max(64).optional(),
});

export const listDepositAddressesQuery = z.object({
  asset_key: z.string().max(256).optional(),
  limit: limitQuery,
  cursor: cursorQuery,
});

export const depositAddressReply = z.object({ request_id: z.string(), deposit_address: depositAddress });

// The spec answers 422 (not 400) for missing or invalid flag fields, so each field names its own code.
const flagField = (name: string, max: number) =>
  z
    .unknown()
    .superRefine((v, ctx) => {
      if (typeof v !== 'string' || v.length === 0 || v.length > max) {
        ctx.addIssue({
          code: 'custom',
          message: v === undefined ? `${name} is required` : `${name} must be a non-empty string of at most ${max} characters`,
          params: { api_code: 'invalid_flag_request' },
        });
      }
    })
    .transform((v) => v as string);

export const partnerFlagBody = z.object({
  tx_hash: flagField('tx_hash', 256),
  flag_category: flagField('flag_category', 256),
  flag_message: flagField('flag_message', 4096),
});

export const partnerFlagReply = z.object({
  request_id: z.string(),
  flag: z.object({
    deposit_address_id: z.string(),
    tx_hash: z.string(),
    flag_reason: z.literal('partner_flagged'),
    accepted: z.literal(true),
  }),
});

const positiveAtoms = atomsString.refine((s) => s !== '0', 'must be a positive integer string');

export const landDepositBody = z.object({
  deposit_address_id: idString,
  atoms: positiveAtoms,
  asset_key: z.string().max(256).optional(),
  source_address: z.string().min(1).max(256).optional(),
  tx_hash: z.string().min(1).max(256).optional(),
});

export const listDepositsQuery = z.object({
  account_id: idString.optional(),
  deposit_address_id: idString.optional(),
});

/** A landed deposit as the control plane shows it (`POST`/`GET /_sim/deposits`). */
export const simDeposit = z
  .object({
    deposit_id: z.string(),
    tx_hash: z.string(),
    deposit_address_id: z.string(),
    account_id: z.string(),
    asset_key: z.string(),
    atoms: z.string(),
    source_address: z.string(),
    status: z.enum(['pending', 'verified', 'flagged', 'dropped']),
    confirmations: z.number().int(),
    required_confirmations: z.number().int(),
    screened: z.boolean(),
    screening_deadline_ms: z.number().int().nullable(),
    credit_id: z.string().nullable(),
    flag_reason: z.enum(['sanctions_match', 'high_risk_score', 'mixer_association', 'partner_flagged']).nullable(),
    flagged_by: z.enum(['routes', 'partner']).nullable(),
    repeat_on_single_use: z.boolean(),
    landed_at_ms: z.number().int(),
    resolved_at_ms: z.number().int().nullable(),
  })
  .meta({ id: 'SimDeposit' });
export const simDepositReply = z.object({ request_id: z.string(), deposit: simDeposit });
export const simDepositList = z.object({ request_id: z.string(), deposits: z.array(simDeposit) });
