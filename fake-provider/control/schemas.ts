// Response schemas of the control plane's own routes (routes.ts): the /_sim OpenAPI document and the typed
// control clients (lib/api-types.ts) read them. Shapes as design.md gives them.
import { z } from 'zod';
import { faultBody } from './faults.ts';
import { FAULT_TARGETS } from '../../sim/faults.ts';

const clock = z.object({
  now_ms: z.number().int(),
  mode: z.enum(['virtual', 'realtime']),
  speed: z.number().describe('realtime: sim ms per wall ms (1 on a virtual clock)'),
});
const runReport = z.object({ ran: z.number().int(), kinds: z.record(z.string(), z.number().int()), truncated: z.boolean() });

export const clockReply = z.object({ request_id: z.string(), clock });
export const advanceReply = z.object({ request_id: z.string(), clock, ran: runReport });
export const settleReply = z.object({ request_id: z.string(), clock, ran: runReport, pending: z.number().int() });

const rateLimits = z.object({ reads: z.number(), writes: z.number(), indicative_rfqs: z.number(), firm_rfqs: z.number() });
const organization = z.object({
  organization_id: z.string(),
  api_key: z.string(),
  api_keys: z.array(z.string()),
  platform_fee_bps: z.string(),
  integrator_fee_bps: z.string(),
  recovery_enabled: z.boolean(),
  partner_screening: z.boolean(),
  forbidden_assets: z.array(z.string()),
  rate_limits: rateLimits,
  created_at_ms: z.number().int(),
  /** Present for an organization with a clock of its own (POST /_sim/organizations `clock`). */
  clock: clock.optional(),
});
export const organizationReply = z.object({ request_id: z.string(), organization });
export const organizationList = z.object({ request_id: z.string(), organizations: z.array(organization) });

/** A stored rule: what was posted, with its defaults filled in (`times: null` is unlimited). */
const faultRule = faultBody.extend({
  fault_id: z.string(),
  match: faultBody.shape.match.unwrap(),
  probability: z.number(),
  times: z.number().int().nullable(),
  created_at_ms: z.number().int(),
});
export const faultReply = z.object({ request_id: z.string(), fault: faultRule });
export const faultList = z.object({
  request_id: z.string(),
  faults: z.array(faultRule),
  fired: z.array(z.object({ fault_id: z.string(), target: z.enum(FAULT_TARGETS), at_ms: z.number().int(), subject: z.string() })),
});

export const invariantsReply = z.object({
  request_id: z.string(),
  ok: z.boolean(),
  checked: z.array(z.string()),
  violations: z.array(z.object({ invariant: z.string(), entity_id: z.string().optional(), message: z.string() })),
});

const email = z.object({
  account_id: z.string(),
  email: z.string(),
  purpose: z.enum(['recovery', 'export']),
  otp_code: z.string(),
  sent_at_ms: z.number().int(),
});
export const emailList = z.object({ request_id: z.string(), emails: z.array(email) });

/** One timeline row (reports/types.ts `TimelineEntry`). */
const timelineEntry = z.object({
  sim_ms: z.number().int(),
  entity_type: z.string(),
  entity_id: z.string(),
  kind: z.enum(['transition', 'event', 'fault', 'delivery', 'expectation', 'step']),
  from: z.string().optional(),
  to: z.string().optional(),
  event_type: z.string().optional(),
  detail: z.string().optional(),
  ok: z.boolean().optional(),
});
export const timelineReply = z.object({ request_id: z.string(), now_ms: z.number().int(), timeline: z.array(timelineEntry) });
