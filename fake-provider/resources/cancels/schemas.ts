// Cancel request and response schemas, declared once: validation, types and the OpenAPI document.
import { z } from 'zod';
import { idString } from '../../contract/validate.ts';
import { failureCodesOf } from '../../failure-codes.ts';

const cancelStatusEnum = z.enum(['pending', 'sent', 'confirmed', 'failed']);

export const cancel = z
  .object({
    cancel_id: z.string(),
    status: cancelStatusEnum,
    credit_id: z.string(),
    /** Present as null when the create request gave none. */
    client_cancel_id: z.string().nullable(),
    tx_hash: z.string().optional(),
    failure_code: z.enum(failureCodesOf('cancel')).optional(),
    poll_after_ms: z.number().int().optional(),
  })
  .meta({ id: 'Cancel' });

export const createCancelBody = z.object({
  account_id: idString,
  credit_id: idString,
  destination_id: idString,
  client_cancel_id: z.string().min(1).max(256).optional(),
});

export const cancelParams = z.object({ cancel_id: idString });

export const cancelReply = z.object({ request_id: z.string(), cancel });
