// The liquidity control's body and reply, declared once.
import { z } from 'zod';

// Asset keys and amounts are checked by the model, so a bad entry names its index in `param`.
const liquidityPair = z.object({
  from_asset_key: z.string(),
  to_asset_key: z.string(),
  max_notional_usd: z.string().nullable(),
});

export const setLiquidityBody = z.object({ pairs: z.array(liquidityPair).max(1000) });

export const liquidityReply = z.object({
  request_id: z.string(),
  liquidity: z.object({
    default_max_notional_usd: z.string(),
    pairs: z.array(z.object({ from_asset_key: z.string(), to_asset_key: z.string(), max_notional_usd: z.string() })),
  }),
});
