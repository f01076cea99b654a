// Market data request/response schemas and the price control body, declared once.
import { z } from 'zod';
import { INTERVALS } from './model.ts';

const msRequired = z
  .string()
  .regex(/^[0-9]{1,15}$/, 'must be an integer (ms since epoch)')
  .transform(Number);

export const market = z
  .object({
    market_id: z.string(),
    asset_key: z.string(),
    denom: z.literal('USD'),
    intervals: z.array(z.string()),
  })
  .meta({ id: 'Market' });
export const marketsReply = z.object({ request_id: z.string(), markets: z.array(market) });

// asset_key grammar and support, and the symbol alternative, are checked by resolveAssetRef.
export const candlesQuery = z.object({
  asset_key: z.string().optional(),
  symbol: z.string().optional(),
  // string first: a missing required enum must be parameter_missing, not invalid_enum.
  interval: z.enum(INTERVALS),
  start_ms: msRequired,
  end_ms: msRequired,
});

export const candle = z
  .object({ t_ms: z.number().int(), o: z.string(), h: z.string(), l: z.string(), c: z.string() })
  .meta({ id: 'Candle' });
export const candlesReply = z.object({
  request_id: z.string(),
  series: z.object({ asset_key: z.string(), denom: z.literal('USD'), interval: z.enum(INTERVALS), candles: z.array(candle) }),
});

/** Values are checked by the model (positive decimal text), so a bad one names its asset in `param`. */
export const setPricesBody = z.object({ prices: z.record(z.string(), z.unknown()) });
export const pricesReply = z.object({ request_id: z.string(), prices: z.record(z.string(), z.string()) });
