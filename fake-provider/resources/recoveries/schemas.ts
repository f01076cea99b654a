// Recovery request and response schemas, declared once: validation, types and the OpenAPI document.
import { z } from 'zod';
import { idString } from '../../contract/validate.ts';

/** OTPs are compared, never parsed: a malformed one is simply not the right one (401 invalid_otp). */
const otpCode = z.string().min(1).max(64);
const text = z.string().min(1).max(256);

export const recoveryParams = z.object({ recovery_id: idString });
export const activateRecoveryBody = z.object({ account_id: idString, credit_id: idString });
export const recoverFundsBody = z.object({
  account_id: idString,
  credit_id: idString,
  otp_code: otpCode,
  destination: z.object({ address: text, memo: text.optional(), tag: text.optional() }),
});

export const activatedRecovery = z
  .object({
    recovery_id: z.string(),
    account_id: z.string(),
    credit_id: z.string(),
    status: z.literal('active'),
    otp_sent: z.literal(true),
    activated_at_ms: z.number().int(),
  })
  .meta({ id: 'ActivatedRecovery' });

export const claimedRecovery = z
  .object({
    recovery_id: z.string(),
    account_id: z.string(),
    credit_id: z.string(),
    status: z.literal('claimed'),
    asset_key: z.string(),
    amount_atoms: z.string(),
    cancel_id: z.string(),
    poll_after_ms: z.number().int(),
  })
  .meta({ id: 'ClaimedRecovery' });

export const activateRecoveryReply = z.object({ request_id: z.string(), recovery: activatedRecovery });
export const recoverFundsReply = z.object({ request_id: z.string(), recovery: claimedRecovery });
