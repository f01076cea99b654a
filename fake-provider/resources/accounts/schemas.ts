// Account request and response schemas, declared once: validation, types and the OpenAPI document.
import { z } from 'zod';
import { cursorQuery, idString, limitQuery } from '../../contract/validate.ts';

const accountStatusEnum = z.enum(['active', 'deactivated', 'export_initiated', 'exported']);

export const account = z
  .object({
    account_id: z.string(),
    label: z.string().nullable(),
    external_id: z.string().nullable(),
    email: z.string().optional(),
    status: accountStatusEnum,
    created_at_ms: z.number().int(),
  })
  .meta({ id: 'Account' });

export const accountParams = z.object({ account_id: idString });

export const createAccountBody = z.object({
  label: z.string().max(256).optional(),
  external_id: z.string().max(256).optional(),
});

export const listAccountsQuery = z.object({
  status: accountStatusEnum.optional(),
  external_id: z.string().max(256).optional(),
  limit: limitQuery,
  cursor: cursorQuery,
});

export const patchAccountBody = z.object({
  email: z.email({ message: 'must be an email address' }).max(254).optional(),
});

export const accountReply = z.object({ request_id: z.string(), account });

/** POST /accounts/{id}/deactivate answers the id and the new status only. */
export const deactivateReply = z.object({ request_id: z.string(), account: account.pick({ account_id: true, status: true }) });
