// /v1 zap routes: parse → call the model → serialize. Nothing else.
import { defineRoute, listBody, listSchema } from '../../contract/route.ts';
import { createZap } from './model.ts';
import { listZaps, requireZap, serializeCreated, serializeZap, serializeZapItem } from './read.ts';
import { createZapBody, listZapsQuery, zapListItem, zapParams, zapReply } from './schemas.ts';

const tag = 'Zaps';

export const zapRoutes = [
  defineRoute({
    method: 'post',
    path: '/zaps',
    tag,
    summary: 'Create a zap (credit-funded, or deposit-funded through a single-use deposit address)',
    idempotent: true,
    body: createZapBody,
    response: zapReply,
    handler: ({ body }, { world, org }) => ({ body: { zap: serializeCreated(world, createZap(world, org, body)) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/zaps',
    tag,
    summary: 'List the organization’s zaps, newest first',
    query: listZapsQuery,
    response: listSchema('zaps', zapListItem),
    handler: ({ query }, { world, org }) => ({
      body: listBody('zaps', listZaps(world, org.organization_id, query), (z) => serializeZapItem(world, z)),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/zaps/:zap_id',
    tag,
    summary: 'Get a zap',
    params: zapParams,
    response: zapReply,
    handler: ({ params }, { world, org }) => ({
      body: { zap: serializeZap(world, requireZap(world, org.organization_id, params.zap_id)) },
    }),
  }),
];
