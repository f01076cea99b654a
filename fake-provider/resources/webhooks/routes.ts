// /v1 webhook routes: parse → call the model → serialize. Nothing else.
import { defineRoute, listBody, listSchema } from '../../contract/route.ts';
import {
  createWebhook,
  listDeliveries,
  listWebhooks,
  replay,
  requireWebhook,
  rotateSecret,
  serializeDelivery,
  serializeWebhook,
  updateWebhook,
} from './model.ts';
import {
  createWebhookBody,
  delivery,
  listDeliveriesQuery,
  listWebhooksQuery,
  patchWebhookBody,
  replayBody,
  replayReply,
  webhook,
  webhookParams,
  webhookReply,
} from './schemas.ts';

const tag = 'Webhooks';

export const webhookRoutes = [
  defineRoute({
    method: 'post',
    path: '/webhooks',
    tag,
    summary: 'Create a webhook (its secret is shown once)',
    body: createWebhookBody,
    response: webhookReply,
    handler: ({ body }, { world, org }) => ({ body: { webhook: serializeWebhook(createWebhook(world, org, body), { secret: true }) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/webhooks',
    tag,
    summary: 'List webhooks (without secrets)',
    query: listWebhooksQuery,
    response: listSchema('webhooks', webhook),
    handler: ({ query }, { world, org }) => ({
      body: listBody('webhooks', listWebhooks(world, org.organization_id, query), (w) => serializeWebhook(w, { secret: false })),
    }),
  }),
  defineRoute({
    method: 'patch',
    path: '/webhooks/:webhook_id',
    tag,
    summary: 'Change the url or activate/deactivate a webhook',
    params: webhookParams,
    body: patchWebhookBody,
    response: webhookReply,
    handler: ({ params, body }, { world, org }) => {
      const w = requireWebhook(world, org.organization_id, params.webhook_id);
      return { body: { webhook: serializeWebhook(updateWebhook(world, w, body), { secret: false }) } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/webhooks/:webhook_id/rotate-secret',
    tag,
    summary: 'Issue a new secret (shown once)',
    params: webhookParams,
    response: webhookReply,
    handler: ({ params }, { world, org }) => {
      const w = requireWebhook(world, org.organization_id, params.webhook_id);
      return { body: { webhook: serializeWebhook(rotateSecret(world, w), { secret: true }) } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/webhooks/:webhook_id/replay',
    tag,
    summary: 'Deliver past events again',
    params: webhookParams,
    body: replayBody,
    response: replayReply,
    handler: ({ params, body }, { world, org }) => {
      replay(world, requireWebhook(world, org.organization_id, params.webhook_id), body);
      return { body: { status: 'scheduled' } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/webhooks/:webhook_id/deliveries',
    tag,
    summary: "A webhook's deliveries, newest first",
    params: webhookParams,
    query: listDeliveriesQuery,
    response: listSchema('deliveries', delivery),
    handler: ({ params, query }, { world, org }) => {
      const w = requireWebhook(world, org.organization_id, params.webhook_id);
      return { body: listBody('deliveries', listDeliveries(world, w, query), serializeDelivery) };
    },
  }),
];
