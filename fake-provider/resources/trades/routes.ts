// /v1 trade routes: parse → call the model → serialize. Trades are created by accepting a quote (rfqs).
import { defineRoute } from '../../contract/route.ts';
import { requireTrade, serializeTradeRecord } from './model.ts';
import { tradeParams, tradeReply } from './schemas.ts';

export const tradeRoutes = [
  defineRoute({
    method: 'get',
    path: '/trades/:trade_id',
    tag: 'Trades',
    summary: 'Get a trade',
    params: tradeParams,
    response: tradeReply,
    handler: ({ params }, { world, org }) => ({
      body: { trade: serializeTradeRecord(world, requireTrade(world, org.organization_id, params.trade_id)) },
    }),
  }),
];
