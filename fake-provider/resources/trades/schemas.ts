// Trade response schemas, declared once (validation of params, types, OpenAPI).
import { z } from 'zod';
import { idString } from '../../contract/validate.ts';
import { failureCodesOf } from '../../failure-codes.ts';

export const tradeParams = z.object({ trade_id: idString });

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

export const trade = z
  .object({
    trade_id: z.string(),
    status: z.enum(['executing', 'filled', 'pending_settle', 'settled', 'failed']),
    quote_id: z.string(),
    client_order_id: z.string().nullable(),
    failure_code: z.enum(failureCodesOf('trade')).optional(),
    settlement: settlement.optional(),
    fees,
    poll_after_ms: z.number().int().optional(),
  })
  .meta({ id: 'Trade' });

export const tradeReply = z.object({ request_id: z.string(), trade });
