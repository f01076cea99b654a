// The failure-code registry against the spec oracle's own table, and every list derived from it against the
// registry: the profile's statuses, the fault rules' codes per target, the response and event schemas'
// failure_code enums, the error catalog, the scenario library; and the adversarial profile's per-code streams.
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  FAILURE_CODES,
  FAILURE_STAGES,
  failureCodesOf,
  faultCodesOf,
  LIFECYCLE_ERROR_CODES,
  type FailureCode,
  type FailureCodeOf,
  type FailureKind,
  type FailureStage,
} from './failure-codes.ts';
import { SPEC_FAILURE_CODES } from './oracle/spec-failure-codes.ts';
import { DEFAULT_PROFILE } from './profile.ts';
import { profileSchema } from './profiles/schema.ts';
import { adversarialProfile } from './profiles/adversarial.ts';
import { checkFault, FAIL_CODES } from './control/faults.ts';
import { ApiError, ERROR_CODES, statusOf } from './contract/errors.ts';
import { trade } from './resources/trades/schemas.ts';
import { zap } from './resources/zaps/schemas.ts';
import { cancel } from './resources/cancels/schemas.ts';
import { eventEnvelope } from './resources/events/schemas.ts';
import { SCENARIOS } from '../scenarios/library/index.ts';
import type { Cancel, EventOf, Trade, Zap } from '../lib/types.ts';
import type { FaultRuleInput } from '../index.ts';

const ALL = Object.keys(FAILURE_CODES) as FailureCode[];
const ENTITY_KINDS = ['trade', 'zap', 'cancel', 'recovery'] as const;
const sorted = <T>(xs: Iterable<T>): T[] => [...xs].sort();

describe("the failure-code registry against the oracle's table (written from the spec apart from it)", () => {
  /** The registry as the oracle sees it: entity kinds (not the deposit fault target) and spec phases. */
  const asSpec = (code: FailureCode) => {
    const e = FAILURE_CODES[code];
    return {
      kinds: sorted((e.kinds as readonly FailureKind[]).filter((k) => k !== 'deposit')),
      phases: sorted(new Set((e.stages as readonly FailureStage[]).map((s) => FAILURE_STAGES[s].phase).filter((p) => p !== null))),
    };
  };

  it('lists the same failure codes, each failing the same kinds in the same phases', () => {
    const failing = ALL.filter((c) => asSpec(c).kinds.length > 0);
    expect(sorted(failing)).toEqual(sorted(Object.keys(SPEC_FAILURE_CODES)));
    for (const code of failing) {
      const spec = SPEC_FAILURE_CODES[code];
      expect(asSpec(code), code).toEqual({ kinds: sorted(spec.kinds), phases: sorted(spec.phases) });
    }
  });

  it('docs/failure-codes.md: its table of the codes is the registry, row by row', () => {
    const page = readFileSync(new URL('../docs/failure-codes.md', import.meta.url), 'utf8');
    const list = (cell: string) => (cell === '—' ? [] : cell.split(', '));
    const rows = [...page.matchAll(/^\| `([a-z_]+)` \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$/gm)].map(([, code, kinds, stages, status]) => ({
      code,
      kinds: list(kinds.trim()),
      stages: list(stages.trim()),
      status: status.trim(),
    }));
    expect(rows).toEqual(
      ALL.map((code) => {
        const e = FAILURE_CODES[code];
        const status = e.status === null ? expect.stringMatching(/^fixed: \d{3}$/) : String(e.status);
        return { code, kinds: [...e.kinds], stages: [...e.stages], status };
      }),
    );
  });

  it('a code fails something exactly when it is not a request-time code, and each has a stage', () => {
    for (const code of ALL) {
      const e = FAILURE_CODES[code];
      expect(e.stages.length, code).toBeGreaterThan(0);
      expect((e.stages as readonly string[]).includes('request'), code).toBe(e.kinds.length === 0);
    }
  });

  it('every (kind, stage) a code lists is one where the fake applies fault rules or fails that kind itself', () => {
    // The choke points: the execution driver (trade, zap fill and settlement), the zap's deposit and fill, the
    // cancel's broadcast and finality (recovery payouts are cancels), a deposit's landing, a recovery claim's screening.
    const settlement = ['settlement_initiation', 'settlement_finality', 'settlement_reorg'];
    const handled: Record<FailureKind, readonly string[]> = {
      trade: ['fill', ...settlement],
      zap: ['deposit', 'fill', ...settlement],
      cancel: ['broadcast', 'confirmation'],
      recovery: ['broadcast', 'confirmation', 'screening'],
      deposit: ['deposit'],
    };
    for (const code of ALL) {
      for (const kind of FAILURE_CODES[code].kinds as readonly FailureKind[]) {
        const stages = (FAILURE_CODES[code].stages as readonly string[]).filter((s) => handled[kind].includes(s));
        expect(stages, `${code} on a ${kind}: no stage where a ${kind} can fail`).not.toEqual([]);
      }
    }
  });
});

describe('lists derived from the registry', () => {
  it("the profile: one status setting per lifecycle code, its default the registry's, in registry order", () => {
    const withStatus = ALL.filter((c) => FAILURE_CODES[c].status !== null);
    expect(LIFECYCLE_ERROR_CODES).toEqual(withStatus);
    expect(Object.entries(DEFAULT_PROFILE.lifecycle_error_status)).toEqual(withStatus.map((c) => [c, FAILURE_CODES[c].status]));
    expect(Object.keys(profileSchema.shape.lifecycle_error_status.shape)).toEqual(withStatus);
  });

  it("the error catalog: every code once; a code without a profile status has the spec's fixed one", () => {
    for (const code of ALL)
      expect(
        ERROR_CODES.filter((c) => c === code),
        code,
      ).toHaveLength(1);
    const all599 = Object.fromEntries(LIFECYCLE_ERROR_CODES.map((c) => [c, 599]));
    const other = { ...DEFAULT_PROFILE, lifecycle_error_status: all599 } as typeof DEFAULT_PROFILE;
    for (const code of ALL) {
      const fixed = FAILURE_CODES[code].status === null;
      expect(statusOf(code, other) === 599, code).toBe(!fixed);
    }
  });

  it('fault rules: each target names exactly its registry codes at a fault stage, and no other', () => {
    for (const [target, codes] of Object.entries(FAIL_CODES)) {
      const kind = target as FailureKind;
      const ofKind = (c: FailureCode) => (FAILURE_CODES[c].kinds as readonly string[]).includes(kind);
      const want = ALL.filter((c) => ofKind(c) && FAILURE_CODES[c].stages.some((s) => FAILURE_STAGES[s].faults));
      expect(codes, target).toEqual(want);
      expect(faultCodesOf(kind)).toEqual(want);
      for (const code of ALL) {
        const refused = (() => {
          try {
            checkFault(kind, { fail: code });
            return null;
          } catch (e) {
            return e instanceof ApiError ? e.code : e;
          }
        })();
        expect(refused, `${target} {fail: ${code}}`).toBe(want.includes(code) ? null : 'invalid_enum');
      }
    }
    expect(sorted(Object.keys(FAIL_CODES))).toEqual(sorted(['trade', 'zap', 'cancel', 'deposit', 'recovery']));
  });

  it("response schemas (so OpenAPI and the typed clients): failure_code is the enum of the kind's codes", () => {
    const enumOf = (schema: typeof trade | typeof zap | typeof cancel) =>
      (z.toJSONSchema(schema.shape.failure_code.unwrap()) as { enum?: string[] }).enum;
    expect(enumOf(trade)).toEqual(failureCodesOf('trade'));
    expect(enumOf(zap)).toEqual(failureCodesOf('zap'));
    expect(enumOf(cancel)).toEqual(failureCodesOf('cancel'));
  });

  it("the library's types (checked by the typecheck): failure_code is the kind's codes, a fault rule its target's", () => {
    expectTypeOf<NonNullable<Trade['failure_code']>>().toEqualTypeOf<FailureCodeOf<'trade'>>();
    expectTypeOf<NonNullable<Zap['failure_code']>>().toEqualTypeOf<FailureCodeOf<'zap'>>();
    expectTypeOf<NonNullable<Cancel['failure_code']>>().toEqualTypeOf<FailureCodeOf<'cancel'>>();
    expectTypeOf<EventOf<'recovery.failed'>['data']['failure_code']>().toEqualTypeOf<FailureCodeOf<'recovery'>>();
    // @ts-expect-error: zap_expired is not a trade code
    const wrong: FaultRuleInput = { target: 'trade', effect: { fail: 'zap_expired' } };
    expect(wrong.target).toBe('trade');
  });

  it("event schemas: <kind>.failed takes exactly the kind's codes", () => {
    const data = {
      trade: { trade_id: 'trd_1', quote_id: 'qt_1' },
      zap: { zap_id: 'zap_1' },
      cancel: { cancel_id: 'cxl_1', credit_id: 'cred_1' },
      recovery: { recovery_id: 'rec_1', credit_id: 'cred_1', asset_key: 'evm:42161/erc20:0xaf88d065e77c8cc2239327c5edb3a432268e5831' },
    };
    for (const kind of ENTITY_KINDS) {
      for (const code of ALL) {
        const event = {
          event_id: 'evt_1',
          type: `${kind}.failed`,
          created_at_ms: 0,
          account_id: 'acct_1',
          data: { ...data[kind], failure_code: code },
        };
        const accepted = (failureCodesOf(kind) as readonly string[]).includes(code);
        expect(eventEnvelope.safeParse(event).success, `${kind}.failed with ${code}`).toBe(accepted);
      }
    }
  });

  it('the scenario library: a fault scenario per trade code, and per code trades and zaps share', () => {
    const names = new Set(SCENARIOS.map((s) => s.name));
    const kebab = (s: string) => s.replace(/_/g, '-');
    for (const code of faultCodesOf('trade')) {
      expect(names.has(`trade-fails-${kebab(code)}`), code).toBe(true);
      if ((faultCodesOf('zap') as readonly string[]).includes(code)) expect(names.has(`zap-fails-${kebab(code)}`), code).toBe(true);
    }
  });
});

describe("the adversarial profile draws each code's status from a stream of its own", () => {
  it('keeps every other setting what it was before the per-code streams (seeds 1-3), and draws the statuses per code', () => {
    // Taken from the profile as it was drawn before (statuses from the profile's own stream), seeds 1-3.
    const before = {
      1: {
        delete_destination_status: 200,
        otp_max_attempts: 5,
        rate_limit_algorithm: 'token_bucket',
        webhook_body_style: 'escaped',
        reorg_after_ms: 86_000,
        cancel_broadcast_ms: 4392,
        error_type_by_status: { '403': 'forbidden', '5xx': 'server_error' },
      },
      2: {
        delete_destination_status: 204,
        otp_max_attempts: 3,
        rate_limit_algorithm: 'token_bucket',
        webhook_body_style: 'mixed',
        reorg_after_ms: 116_000,
        cancel_broadcast_ms: 3310,
        error_type_by_status: { '401': 'unauthorized', '5xx': 'internal_error' },
      },
      3: {
        delete_destination_status: 200,
        otp_max_attempts: 5,
        rate_limit_algorithm: 'fixed_window',
        webhook_body_style: 'escaped',
        reorg_after_ms: 104_000,
        cancel_broadcast_ms: 1369,
        error_type_by_status: { '429': 'invalid_request', '422': 'validation_error' },
      },
    } as const;
    for (const [seed, settings] of Object.entries(before)) expect(adversarialProfile(Number(seed)), `seed ${seed}`).toMatchObject(settings);
    const statuses = { rfq_expired: 400, execution_failed: 410, broadcast_failed: 503, confirmation_timeout: 422 };
    expect(adversarialProfile(1).lifecycle_error_status).toMatchObject(statuses);
  });
});
