// /v1 market data routes and the /_sim price control: parse → call the model → serialize. Nothing else.
import { defineRoute } from '../../contract/route.ts';
import { resolveAssetRef } from '../assets/index.ts';
import { candles, currentPrices, listMarkets, serializeCandle, serializeMarket, setUsdPrices } from './model.ts';
import { candlesQuery, candlesReply, marketsReply, pricesReply, setPricesBody } from './schemas.ts';

const tag = 'Market data';

export const marketRoutes = [
  defineRoute({
    method: 'get',
    path: '/markets',
    tag,
    summary: 'List USD markets',
    response: marketsReply,
    handler: (_i, { world }) => ({ body: { markets: listMarkets(world).map(serializeMarket) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/markets/candles',
    tag,
    summary: 'USD candles of one asset',
    query: candlesQuery,
    response: candlesReply,
    handler: ({ query }, { world, org }) => {
      const asset = resolveAssetRef(world, org.organization_id, { asset_key: query.asset_key, symbol: query.symbol }, { required: true });
      const series = candles(world, asset, query);
      return {
        body: { series: { asset_key: asset.asset_key, denom: 'USD', interval: query.interval, candles: series.map(serializeCandle) } },
      };
    },
  }),
];

export const marketControlRoutes = [
  defineRoute({
    auth: 'public',
    method: 'put',
    path: '/market/prices',
    tag: 'Control',
    summary: 'Set USD prices (all or nothing); the walk continues from them',
    body: setPricesBody,
    response: pricesReply,
    handler: ({ body }, { world }) => {
      setUsdPrices(world, body.prices);
      return { body: { prices: currentPrices(world) } };
    },
  }),
  defineRoute({
    auth: 'public',
    method: 'get',
    path: '/market/prices',
    tag: 'Control',
    summary: 'Read the current USD prices',
    response: pricesReply,
    handler: (_i, { world }) => ({ body: { prices: currentPrices(world) } }),
  }),
];
