// The seed-data file (`serve --init FILE`, `POST /_sim/init`): organizations with their webhook and accounts,
// each account's balances (deposits taken to finality) and open deposits (landed, left in flight). Strict: an
// unknown field is refused, as every control-plane body is.
import { z } from 'zod';
import { assetByKey, isCanonicalAssetKey } from '../resources/assets/catalog.ts';

const atoms = z.string().regex(/^[1-9][0-9]{0,77}$/, 'must be a positive whole number of atoms, as a decimal string');
const assetKey = z
  .string()
  .refine(isCanonicalAssetKey, { message: 'must be a canonical asset_key', params: { api_code: 'invalid_asset_key' } })
  .refine((k) => assetByKey(k) !== undefined, { message: 'is not a supported asset', params: { api_code: 'asset_not_supported' } });
const holding = z.strictObject({ asset_key: assetKey, atoms });

const seedAccount = z.strictObject({
  label: z.string().min(1).max(256),
  external_id: z.string().min(1).max(256).optional(),
  /** Attached with PATCH /accounts/{id} (recovery and export OTPs go there). */
  email: z.string().email().max(320).optional(),
  /** Spendable credits: each lands as a deposit and is taken through screening and finality. */
  balances: z.array(holding).max(50).default([]),
  /** Deposits that land after the balances and are left in flight (an open lifecycle the world goes on with). */
  pending_deposits: z.array(holding).max(50).default([]),
});

const seedOrganization = z.strictObject({
  /** An organization holding this key already is used as it is; otherwise one is created with it. */
  api_key: z.string().min(8).max(256),
  recovery_enabled: z.boolean().optional(),
  partner_screening: z.boolean().optional(),
  rate_limits: z
    .strictObject({
      reads: z.number().int().min(1).max(1_000_000).optional(),
      writes: z.number().int().min(1).max(1_000_000).optional(),
      indicative_rfqs: z.number().int().min(1).max(1_000_000).optional(),
      firm_rfqs: z.number().int().min(1).max(1_000_000).optional(),
    })
    .optional(),
  /** The organization's active webhook (its secret is in the answer). */
  webhook: z.strictObject({ url: z.string().min(1).max(2048) }).optional(),
  accounts: z.array(seedAccount).max(1_000).default([]),
});

export const seedBody = z.strictObject({
  organizations: z.array(seedOrganization).min(1).max(100),
});

export type SeedInput = z.input<typeof seedBody>;
export type Seed = z.output<typeof seedBody>;

export const seedReply = z.object({
  request_id: z.string(),
  organizations: z.array(
    z.object({
      organization_id: z.string(),
      api_key: z.string(),
      created: z.boolean(),
      webhook: z.object({ webhook_id: z.string(), secret: z.string() }).nullable(),
      accounts: z.array(
        z.object({ account_id: z.string(), label: z.string(), deposit_ids: z.array(z.string()), pending_deposit_ids: z.array(z.string()) }),
      ),
    }),
  ),
  clock: z.object({ now_ms: z.number().int(), advanced_ms: z.number().int() }),
});
