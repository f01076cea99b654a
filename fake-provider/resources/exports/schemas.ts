// Key-export request and response schemas, declared once: validation, types and the OpenAPI document.
import { z } from 'zod';
import { idString } from '../../contract/validate.ts';
import { targetKeyProblem } from './hpke.ts';

/** Uncompressed P-256 public key: 130 hex characters, `04` prefix, a point on the curve; else invalid_parameter. */
const targetPublicKey = z.string().superRefine((hex, ctx) => {
  const problem = targetKeyProblem(hex);
  if (problem !== null) ctx.addIssue({ code: 'custom', message: problem, params: { api_code: 'invalid_parameter' } });
});

/** OTPs are compared, never parsed: a malformed one is simply not the right one (401 invalid_otp). */
const otpCode = z.string().min(1).max(64);

export const exportKeysParams = z.object({ account_id: idString });
export const exportKeysBody = z.object({ target_public_key: targetPublicKey });
export const initiateExportBody = z.object({ account_id: idString });
export const completeExportBody = z.object({ account_id: idString, otp_code: otpCode, target_public_key: targetPublicKey });
export const exportStatusQuery = z.object({ account_id: idString, otp_code: otpCode });

const exportingAccount = z.object({ account_id: z.string(), status: z.literal('export_initiated') });
const exportedKey = z.object({
  chain: z.string(),
  address: z.string(),
  /** base64 of HPKE `enc || ciphertext`; see hpke.ts. */
  export_bundle: z.string(),
});

export const exportAccountReply = z.object({ request_id: z.string(), account: exportingAccount });
export const initiateExportReply = z.object({ request_id: z.string(), initiated: z.literal(true) });
export const exportStatusReply = z.object({
  request_id: z.string(),
  status: z.enum(['export_initiated', 'exported']),
  poll_after_ms: z.number().int().optional(),
  keys: z.array(exportedKey).optional(),
});
