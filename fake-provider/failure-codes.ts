// The one registry of lifecycle codes (spec: Error codes; Trade, Zap and Cancel `failure_code`): each code once,
// with what it can fail, the stages at which it happens and the HTTP status the profile gives it. Every list of
// codes is derived from it: the profile's `lifecycle_error_status`, the fault rules' codes per target, the
// execution driver's and the zap's stage lists, the `failure_code` enums of the response and event schemas
// (so OpenAPI and lib/api-types), the scenario library's failure scenarios and what swapsim verify must reach.
// Data only: it imports nothing, so the profile and every resource can read it. The spec oracle keeps its own
// table (oracle/spec-failure-codes.ts), written from the spec apart from this one; failure-codes.test.ts
// compares the two. Adding a code: docs/failure-codes.md.

/** What a code can fail: an entity whose `failure_code` carries it, or (`deposit`) a fault target only. */
export type FailureKind = 'trade' | 'zap' | 'cancel' | 'recovery' | 'deposit';

/**
 * Where in a lifecycle a code happens. Each stage but `request` and `screening` is one point where the fake
 * applies the `fail` fault rules for its codes. `from`: the wire status of the swap or transfer that fails
 * there; `phase`: the spec's words for that part of the lifecycle (what the oracle's table is compared on);
 * `faults`: whether `fail` rules are applied there.
 */
export const FAILURE_STAGES = {
  /** Answered to a request (an RFQ, a quote accept, a trade or zap on a busy credit): an HTTP error, nothing fails. */
  request: { from: null, phase: null, faults: false },
  /** A zap's deposit resolves (verified, flagged, dropped): from awaiting_deposit. A deposit rule drops the deposit. */
  deposit: { from: 'awaiting_deposit', phase: 'deposit', faults: true },
  /** When the market maker would commit (trades and zaps): from executing. */
  fill: { from: 'executing', phase: 'execution', faults: true },
  /** The settlement transactions cannot be initiated: from filled. */
  settlement_initiation: { from: 'filled', phase: 'settlement', faults: true },
  /** The legs go on chain and never reach finality; the service gives up `settlement_timeout_ms` after it. */
  settlement_finality: { from: 'pending_settle', phase: 'settlement', faults: true },
  /** The out leg confirms, a reorg drops it (`*.settlement_orphaned`), the resubmission never confirms. */
  settlement_reorg: { from: 'pending_settle', phase: 'settlement', faults: true },
  /** A cancel or a recovery's payout (a cancel-style transfer) is never broadcast: from pending, no tx_hash. */
  broadcast: { from: 'pending', phase: 'broadcast', faults: true },
  /** Broadcast, never final: from sent, when finality would have come. */
  confirmation: { from: 'sent', phase: 'confirmation', faults: true },
  /** A recovery claim's destination fails screening: 403 to the claim and `recovery.failed`, from active. */
  screening: { from: 'active', phase: 'screening', faults: false },
} as const;

export type FailureStage = keyof typeof FAILURE_STAGES;

interface Entry {
  readonly kinds: readonly FailureKind[];
  readonly stages: readonly FailureStage[];
  /** The default of `profile.lifecycle_error_status[code]`; null: the spec fixes the status (contract/errors.ts). */
  readonly status: number | null;
}

/**
 * Every lifecycle code, in the order of the spec's error-code table (the profile lists its statuses in this
 * order). To add one: docs/failure-codes.md.
 */
export const FAILURE_CODES = {
  rfq_expired: { kinds: [], stages: ['request'], status: 410 },
  quote_expired: { kinds: [], stages: ['request'], status: 410 },
  quote_not_firm: { kinds: [], stages: ['request'], status: 422 },
  insufficient_balance: { kinds: [], stages: ['request'], status: 422 },
  insufficient_liquidity: { kinds: [], stages: ['request'], status: 422 },
  // swapsim's (spec: not shown): a credit another trade, zap or cancel holds; an account whose status refuses the operation.
  credit_in_use: { kinds: [], stages: ['request'], status: 409 },
  account_not_operable: { kinds: [], stages: ['request'], status: 409 },
  execution_failed: { kinds: ['trade', 'zap'], stages: ['fill'], status: 422 },
  settlement_failed: { kinds: ['trade', 'zap'], stages: ['settlement_initiation'], status: 422 },
  settlement_timeout: { kinds: ['trade', 'zap'], stages: ['settlement_finality'], status: 422 },
  settlement_orphaned: { kinds: ['trade', 'zap'], stages: ['settlement_reorg'], status: 422 },
  // A trade's or zap's deposit never reached finality; as a deposit rule, the deposit is dropped before it.
  deposit_insufficient_confirmations: { kinds: ['trade', 'zap', 'deposit'], stages: ['deposit', 'fill'], status: 422 },
  deposit_flagged: { kinds: ['zap'], stages: ['deposit'], status: 422 },
  min_amount_out_not_met: { kinds: ['zap'], stages: ['fill'], status: 422 },
  // "expires_at_ms reached before execution begins": while awaiting the deposit or before the fill.
  zap_expired: { kinds: ['zap'], stages: ['deposit', 'fill'], status: 422 },
  from_asset_mismatch: { kinds: ['zap'], stages: ['deposit'], status: 422 },
  // Server-side failures by default (a bad gateway, a timeout).
  broadcast_failed: { kinds: ['cancel', 'recovery'], stages: ['broadcast'], status: 502 },
  confirmation_timeout: { kinds: ['cancel', 'recovery'], stages: ['confirmation'], status: 504 },
  destination_screening_failed: { kinds: ['recovery'], stages: ['screening'], status: null },
} as const satisfies Record<string, Entry>;

type Registry = typeof FAILURE_CODES;
export type FailureCode = keyof Registry;

/** The codes whose HTTP status the profile sets (the spec leaves it open). */
export type LifecycleErrorCode = { [C in FailureCode]: Registry[C]['status'] extends number ? C : never }[FailureCode];
/** The codes an entity (or fault target) of this kind can fail with. */
export type FailureCodeOf<K extends FailureKind> = {
  [C in FailureCode]: K extends Registry[C]['kinds'][number] ? C : never;
}[FailureCode];
type FaultStage = { [S in FailureStage]: (typeof FAILURE_STAGES)[S]['faults'] extends true ? S : never }[FailureStage];
type AtFaultStage<C extends FailureCode> = [Extract<Registry[C]['stages'][number], FaultStage>] extends [never] ? never : C;
/** The codes a `fail` fault rule on this target may name: the kind's codes that happen at a fault stage. */
export type FaultCodeOf<K extends FailureKind> = {
  [C in FailureCode]: K extends Registry[C]['kinds'][number] ? AtFaultStage<C> : never;
}[FailureCode];

/** A non-empty list, as z.enum takes it. */
type Codes<C extends string> = readonly [C, ...C[]];

const ALL = Object.keys(FAILURE_CODES) as FailureCode[];
const entry = (code: FailureCode): Entry => FAILURE_CODES[code];

function nonEmpty<C extends string>(codes: C[], what: string): Codes<C> {
  if (codes.length === 0) throw new Error(`the failure-code registry lists no ${what}`);
  return codes as unknown as Codes<C>;
}

/** Every code whose status the profile sets, in registry order. */
export const LIFECYCLE_ERROR_CODES: Codes<LifecycleErrorCode> = nonEmpty(
  ALL.filter((c) => entry(c).status !== null) as LifecycleErrorCode[],
  'profile status',
);

/** The default `lifecycle_error_status`, code by code in registry order. */
export const DEFAULT_LIFECYCLE_STATUS = Object.fromEntries(LIFECYCLE_ERROR_CODES.map((c) => [c, entry(c).status])) as Record<
  LifecycleErrorCode,
  number
>;

/** The codes this kind can fail with, in registry order. */
export function failureCodesOf<K extends FailureKind>(kind: K): Codes<FailureCodeOf<K>> {
  return nonEmpty(ALL.filter((c) => entry(c).kinds.includes(kind)) as FailureCodeOf<K>[], `${kind} code`);
}

/** The codes a `fail` rule on this target may name, in registry order. */
export function faultCodesOf<K extends FailureKind>(kind: K): Codes<FaultCodeOf<K>> {
  const atFaultStage = (c: FailureCode) => entry(c).stages.some((s) => FAILURE_STAGES[s].faults);
  return nonEmpty(failureCodesOf(kind).filter(atFaultStage) as FaultCodeOf<K>[], `${kind} fault code`);
}

/** This kind's codes that happen at one of these stages, in registry order (a choke point's `fail_codes`). */
export function failureCodesAt<K extends FailureKind>(kind: K, ...stages: FailureStage[]): Codes<FailureCodeOf<K>> {
  const codes = failureCodesOf(kind).filter((c) => entry(c).stages.some((s) => stages.includes(s)));
  return nonEmpty(codes, `${kind} code at ${stages.join(' or ')}`);
}

/** The stage at which a fault rule's code takes effect among the given ones (the first the code lists). */
export function stageOf(code: string, among: readonly FailureStage[]): FailureStage | null {
  const e = (FAILURE_CODES as Record<string, Entry | undefined>)[code];
  return e?.stages.find((s) => among.includes(s)) ?? null;
}
