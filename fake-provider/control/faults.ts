// Fault rules as the control plane accepts them: which effects each target takes, which failure codes
// each resource can fail with (from the failure-code registry), and which (target, effect) pairs this
// version actually applies. A rule that would be accepted but do nothing is refused with `not_implemented`.
import { z } from 'zod';
import { ApiError } from '../contract/errors.ts';
import { faultCodesOf } from '../failure-codes.ts';
import { FAULT_TARGETS, type FaultEffect, type FaultTarget } from '../../sim/faults.ts';

/** The codes a `fail` rule may name, per target: the failure-code registry's codes of that kind that happen at a fault stage. */
export const FAIL_CODES = {
  trade: faultCodesOf('trade'),
  zap: faultCodesOf('zap'),
  cancel: faultCodesOf('cancel'),
  // A deposit "fails" by being dropped before finality: no credit, and a waiting zap fails with this code.
  deposit: faultCodesOf('deposit'),
  // A recovery's payout is a cancel-style transfer: it fails the way a cancel does.
  recovery: faultCodesOf('recovery'),
} as const satisfies Partial<Record<FaultTarget, readonly string[]>>;

const FLAG_REASONS = ['sanctions_match', 'high_risk_score', 'mixer_association', 'partner_flagged'] as const;

/** Each effect kind's shape, by kind (the rule's `effect` holds exactly one). */
const EFFECTS = {
  fail: z.object({ fail: z.string().min(1) }).strict(),
  reorg: z.object({ reorg: z.enum(['out', 'in']) }).strict(),
  delay_ms: z
    .object({
      delay_ms: z
        .number()
        .int()
        .min(0)
        .max(7 * 24 * 3_600_000),
    })
    .strict(),
  webhook: z.object({ webhook: z.enum(['drop', 'duplicate', 'reorder', 'bad_signature']) }).strict(),
  http_status: z
    .object({ http_status: z.union([z.literal(429), z.literal(500), z.literal(503)]), retry_after: z.boolean().optional() })
    .strict(),
  lose_response: z.object({ lose_response: z.literal(true), mode: z.enum(['error_500', 'reset']).optional() }).strict(),
  flag: z.object({ flag: z.enum(FLAG_REASONS) }).strict(),
};
type EffectKind = keyof typeof EFFECTS;

/** (target → effect kinds) applied by this version. Extend as lifecycles land. */
const IMPLEMENTED_EFFECTS = {
  deposit: ['fail', 'flag', 'delay_ms'],
  webhook: ['webhook', 'delay_ms'],
  trade: ['fail', 'reorg', 'delay_ms'],
  zap: ['fail', 'reorg', 'delay_ms'],
  cancel: ['fail', 'delay_ms'],
  recovery: ['fail', 'delay_ms'],
  http: ['http_status', 'lose_response', 'delay_ms'],
} as const satisfies Record<FaultTarget, readonly EffectKind[]>;

export const faultBody = z.object({
  target: z.enum(FAULT_TARGETS),
  effect: z.union([
    EFFECTS.fail,
    EFFECTS.reorg,
    EFFECTS.delay_ms,
    EFFECTS.webhook,
    EFFECTS.http_status,
    EFFECTS.lose_response,
    EFFECTS.flag,
  ]),
  match: z
    .object({
      ids: z.array(z.string().min(1)).max(100).optional(),
      account_id: z.string().min(1).optional(),
      asset_key: z.string().min(1).optional(),
      event_type: z.string().min(1).optional(),
      method: z.string().min(1).optional(),
      path: z.string().min(1).optional(),
    })
    .strict()
    .optional(),
  probability: z.number().min(0).max(1).optional(),
  times: z.number().int().min(1).optional(),
});

/** A target's effect as the type system sees it: the kinds it applies, and `fail` narrowed to its codes. */
type EffectFor<T extends FaultTarget> = {
  [K in (typeof IMPLEMENTED_EFFECTS)[T][number]]: K extends 'fail'
    ? { fail: T extends keyof typeof FAIL_CODES ? (typeof FAIL_CODES)[T][number] : never }
    : z.input<(typeof EFFECTS)[K]>;
}[(typeof IMPLEMENTED_EFFECTS)[T][number]];

/**
 * A fault rule as `POST /_sim/faults` takes it, as a union discriminated by `target`: each target with the
 * effects this version applies to it (`checkFault` refuses the rest at run time), derived from the schema
 * and the tables above.
 */
export type FaultRuleInput = {
  [T in FaultTarget]: Omit<z.input<typeof faultBody>, 'target' | 'effect'> & { target: T; effect: EffectFor<T> };
}[FaultTarget];

/** Semantic checks the schema cannot express. */
export function checkFault(target: FaultTarget, effect: FaultEffect, match: { path?: string; event_type?: string } = {}): void {
  // A `*` matches only at the end (a prefix): one elsewhere would be taken literally and never fire.
  for (const field of ['path', 'event_type'] as const) {
    const pattern = match[field];
    if (pattern?.slice(0, -1).includes('*')) {
      throw new ApiError(
        'invalid_parameter',
        `match.${field} may hold a * only at its end (a prefix match): ${JSON.stringify(pattern)} would never fire`,
        { param: `match.${field}` },
      );
    }
  }
  const kind = Object.keys(effect)[0];
  if (!(IMPLEMENTED_EFFECTS[target] as readonly string[]).includes(kind)) {
    throw new ApiError(
      'not_implemented',
      `fault effect ${kind} on target ${target} is not implemented in this swapsim version (see docs/LIMITATIONS.md)`,
      { param: 'effect' },
    );
  }
  if ('fail' in effect) {
    const codes: readonly string[] = (FAIL_CODES as Partial<Record<FaultTarget, readonly string[]>>)[target] ?? [];
    if (!codes.includes(effect.fail)) {
      throw new ApiError('invalid_enum', `${target} can fail with: ${codes.join(', ')}`, { param: 'effect.fail' });
    }
  }
}
