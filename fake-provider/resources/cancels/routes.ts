// /v1 cancel routes: parse → call the model → serialize. Nothing else. (The spec has no cancel list.)
import { defineRoute } from '../../contract/route.ts';
import { createCancel, requireCancel, serializeCancel } from './model.ts';
import { cancelParams, cancelReply, createCancelBody } from './schemas.ts';

const tag = 'Cancels';

export const cancelRoutes = [
  defineRoute({
    method: 'post',
    path: '/cancels',
    tag,
    summary: 'Cancel a whole credit to a registered destination',
    idempotent: true,
    body: createCancelBody,
    response: cancelReply,
    handler: ({ body }, { world, org }) => ({ body: { cancel: serializeCancel(world, createCancel(world, org.organization_id, body)) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/cancels/:cancel_id',
    tag,
    summary: 'Get a cancel',
    params: cancelParams,
    response: cancelReply,
    handler: ({ params }, { world, org }) => ({
      body: { cancel: serializeCancel(world, requireCancel(world, org.organization_id, params.cancel_id)) },
    }),
  }),
];
