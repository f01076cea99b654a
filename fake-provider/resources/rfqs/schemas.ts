// RFQ, quote and accept request/response schemas, declared once: validation, types and the OpenAPI document.
import { z } from 'zod';
import { atomsString, bpsString, idString, uiString } from '../../contract/validate.ts';

// Asset one-of pairs, amount one-of pairs, firm-only fields and ttl/wait bounds (profile settings) are
// checked by the model, where the asset's decimals and the profile are known.
export const createRfqBody = z.object({
  account_id: idString.optional(),
  from_asset_key: z.string().optional(),
  from_symbol: z.string().optional(),
  to_asset_key: z.string().optional(),
  to_symbol: z.string().optional(),
  side: z.enum(['exact_in', 'exact_out']),
  amount_in_atoms: atomsString.optional(),
  amount_in_ui: uiString.optional(),
  amount_out_atoms: atomsString.optional(),
  amount_out_ui: uiString.optional(),
  mode: z.enum(['indicative', 'firm']),
  ttl_ms: z.number().int().optional(),
  wait_ms: z.number().int().optional(),
  destination_id: idString.optional(),
  credit_id: idString.optional(),
  integrator_fee_bps: bpsString.optional(),
});
export type CreateRfqBody = z.output<typeof createRfqBody>;

export const rfq = z
  .object({
    rfq_id: z.string(),
    status: z.enum(['pending', 'ready']),
    best_quote_id: z.string().optional(),
    poll_after_ms: z.number().int().optional(),
  })
  .meta({ id: 'Rfq' });
export const rfqReply = z.object({ request_id: z.string(), rfq });
export const rfqParams = z.object({ rfq_id: idString });

const fees = z.object({
  platform_bps: z.string(),
  integrator_bps: z.string(),
  total_bps: z.string(),
  platform_atoms: z.string(),
  integrator_atoms: z.string(),
  total_atoms: z.string(),
});

export const quote = z
  .object({
    quote_id: z.string(),
    rfq_id: z.string(),
    mode: z.enum(['indicative', 'firm']),
    expires_at_ms: z.number().int(),
    route_type: z.enum(['INTENTS_ONLY', 'HYBRID_SOLANA_TO_INTENTS', 'LOCAL_CHAIN_SWAP']),
    settlement_domains: z.array(z.string()),
    from_asset_key: z.string(),
    to_asset_key: z.string(),
    side: z.enum(['exact_in', 'exact_out']),
    amount_in_atoms: z.string(),
    expected_out_atoms: z.string(),
    fees,
    route_requirements: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'Quote' });
export const quoteReply = z.object({ request_id: z.string(), quote });
export const quoteParams = z.object({ quote_id: idString });

export const acceptBody = z.object({
  slippage_bps: bpsString,
  client_order_id: z.string().min(1).max(256).optional(),
});
export type AcceptBody = z.output<typeof acceptBody>;

// The trade itself is the trades resource's schema; here only the fields the accept answer promises.
export const acceptReply = z.object({
  request_id: z.string(),
  trade: z
    .object({
      trade_id: z.string(),
      status: z.string(),
      quote_id: z.string(),
      client_order_id: z.string().nullable(),
      poll_after_ms: z.number().int(),
    })
    .loose(),
});
