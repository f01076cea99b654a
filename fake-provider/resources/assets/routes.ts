// /v1 asset catalog, resolution and symbol routes: parse → call the model → serialize. Nothing else.
import { defineRoute, listBody, listSchema } from '../../contract/route.ts';
import {
  deleteSymbol,
  listAssets,
  listSymbols,
  resolveChainAsset,
  serializeAsset,
  serializeResolved,
  serializeSymbol,
  upsertSymbols,
} from './model.ts';
import {
  asset,
  listAssetsQuery,
  listSymbolsQuery,
  putSymbolsBody,
  putSymbolsReply,
  resolveQuery,
  resolveReply,
  symbolParams,
  symbolRecord,
} from './schemas.ts';

export const assetRoutes = [
  defineRoute({
    method: 'get',
    path: '/assets',
    tag: 'Assets',
    summary: 'List the asset catalog',
    query: listAssetsQuery,
    response: listSchema('assets', asset),
    handler: ({ query }, { world, org }) => ({ body: listBody('assets', listAssets(world, org.organization_id, query), serializeAsset) }),
  }),
  defineRoute({
    method: 'get',
    path: '/resolve',
    tag: 'Assets',
    summary: 'Resolve a chain-native identity to a canonical asset',
    query: resolveQuery,
    response: resolveReply,
    handler: ({ query }, { world }) => ({ body: { asset: serializeResolved(resolveChainAsset(world, query)) } }),
  }),
  defineRoute({
    method: 'put',
    path: '/symbols',
    tag: 'Symbols',
    summary: 'Bulk upsert symbols (atomic)',
    body: putSymbolsBody,
    response: putSymbolsReply,
    handler: ({ body }, { world, org }) => ({ body: { ...upsertSymbols(world, org.organization_id, body.symbols) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/symbols',
    tag: 'Symbols',
    summary: 'List symbols',
    query: listSymbolsQuery,
    response: listSchema('symbols', symbolRecord),
    handler: ({ query }, { world, org }) => ({
      body: listBody('symbols', listSymbols(world, org.organization_id, query), serializeSymbol),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/symbols/:symbol',
    tag: 'Symbols',
    summary: 'Delete a symbol',
    status: 204,
    params: symbolParams,
    handler: ({ params }, { world, org }) => {
      deleteSymbol(world, org.organization_id, params.symbol);
      return { status: 204 };
    },
  }),
];
