// Webhook and delivery request/response schemas, declared once: validation, types and the OpenAPI document.
import { z } from 'zod';
import { cursorQuery, idString, limitQuery } from '../../contract/validate.ts';
import { typePattern } from '../events/index.ts';

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const u = new URL(text);
  return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
}

const webhookUrl = z.string().max(2048).refine(isHttpUrl, 'must be an absolute http(s) URL');

export const webhook = z
  .object({
    webhook_id: z.string(),
    url: z.string(),
    active: z.boolean(),
    created_at_ms: z.number().int(),
    secret: z.string().optional(),
  })
  .meta({ id: 'Webhook' });

export const webhookParams = z.object({ webhook_id: idString });

export const createWebhookBody = z.object({ url: webhookUrl, active: z.boolean().optional() });

export const patchWebhookBody = z
  .object({ url: webhookUrl.optional(), active: z.boolean().optional() })
  .refine((b) => b.url !== undefined || b.active !== undefined, {
    message: 'give url, active or both',
    params: { api_code: 'parameter_missing' },
  });

export const listWebhooksQuery = z.object({ limit: limitQuery, cursor: cursorQuery });

export const replayBody = z.object({
  since_ms: z.number().int().min(0).max(1e15),
  types: z.array(typePattern).max(100).optional(),
});

const deliveryStatusEnum = z.enum(['success', 'failed', 'pending']);

export const listDeliveriesQuery = z.object({
  event_id: idString.optional(),
  status: deliveryStatusEnum.optional(),
  limit: limitQuery,
  cursor: cursorQuery,
});

export const delivery = z
  .object({
    delivery_id: z.string(),
    event_id: z.string(),
    status: deliveryStatusEnum,
    http_status: z.number().int(),
    attempted_at_ms: z.number().int().nullable(),
    next_retry_at_ms: z.number().int().nullable(),
  })
  .meta({ id: 'Delivery' });

export const webhookReply = z.object({ request_id: z.string(), webhook });
export const replayReply = z.object({ request_id: z.string(), status: z.literal('scheduled') });
