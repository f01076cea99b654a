// The /_sim liquidity control: parse → call the model → serialize. Nothing else.
import { defineRoute } from '../../contract/route.ts';
import { serializeLiquidity, setLiquidity } from './model.ts';
import { liquidityReply, setLiquidityBody } from './schemas.ts';

const tag = 'Control';

export const pricingControlRoutes = [
  defineRoute({
    auth: 'public',
    method: 'put',
    path: '/market/liquidity',
    tag,
    summary: 'Set per-pair liquidity (all or nothing; "0" closes a pair, null restores the default)',
    body: setLiquidityBody,
    response: liquidityReply,
    handler: ({ body }, { world }) => {
      setLiquidity(world, body.pairs);
      return { body: { liquidity: serializeLiquidity(world) } };
    },
  }),
  defineRoute({
    auth: 'public',
    method: 'get',
    path: '/market/liquidity',
    tag,
    summary: 'Read per-pair liquidity',
    response: liquidityReply,
    handler: (_i, { world }) => ({ body: { liquidity: serializeLiquidity(world) } }),
  }),
];
