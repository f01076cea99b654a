// Failure codes as the spec writes them (api-v1.md: Trade, Zap and Cancel `failure_code`; States and
// transitions; Failure handling guidance; Events), independent of the fake's failure-code registry
// (fake-provider/failure-codes.ts), which failure-codes.test.ts holds against this table: what each code can
// fail, and the part of the lifecycle it comes from. The oracle's checks read the statuses a failure may
// leave from out of it.
import type { LifecycleKind } from './spec-lifecycles.ts';

/** The spec's parts of a lifecycle at which something fails. */
type SpecPhase = 'deposit' | 'execution' | 'settlement' | 'broadcast' | 'confirmation' | 'screening';

interface SpecFailureCode {
  /** The entities whose failure_code (or `<kind>.failed` event) may carry it. */
  kinds: readonly Extract<LifecycleKind, 'trade' | 'zap' | 'cancel' | 'recovery'>[];
  phases: readonly SpecPhase[];
}

export const SPEC_FAILURE_CODES: Readonly<Record<string, SpecFailureCode>> = {
  // Trade → failure_code, repeated for Zap; Error codes: "trade and zap failure codes".
  execution_failed: { kinds: ['trade', 'zap'], phases: ['execution'] },
  settlement_failed: { kinds: ['trade', 'zap'], phases: ['settlement'] },
  settlement_timeout: { kinds: ['trade', 'zap'], phases: ['settlement'] },
  settlement_orphaned: { kinds: ['trade', 'zap'], phases: ['settlement'] },
  // "wait for confirmations": before execution, and for a zap also as its deposit resolves (a dropped deposit).
  deposit_insufficient_confirmations: { kinds: ['trade', 'zap'], phases: ['deposit', 'execution'] },
  // Zap → failure_code; States → Zap: "awaiting_deposit | deposit flagged | failed (deposit_flagged)".
  deposit_flagged: { kinds: ['zap'], phases: ['deposit'] },
  min_amount_out_not_met: { kinds: ['zap'], phases: ['execution'] },
  // "awaiting_deposit or executing | expires_at_ms reached before execution begins".
  zap_expired: { kinds: ['zap'], phases: ['deposit', 'execution'] },
  // "awaiting_deposit | deposit verified | deposited asset differs | failed (from_asset_mismatch)".
  from_asset_mismatch: { kinds: ['zap'], phases: ['deposit'] },
  // Cancel → failure_code; a recovery's payout is "a cancel-style transfer" and recovery.failed adds failure_code.
  broadcast_failed: { kinds: ['cancel', 'recovery'], phases: ['broadcast'] },
  confirmation_timeout: { kinds: ['cancel', 'recovery'], phases: ['confirmation'] },
  // POST /public/recover-funds: "403 destination_screening_failed (credit stays open)".
  destination_screening_failed: { kinds: ['recovery'], phases: ['screening'] },
};

/** The trade, zap and cancel statuses a failure in each phase may leave from. */
const PHASE_FROM: Readonly<Record<SpecPhase, readonly string[]>> = {
  deposit: ['awaiting_deposit'],
  // Before the market maker commits; a deposit-funded zap whose observed amount is not executable (outside
  // the size bounds or below the floor) "fails with an existing failure code" before it executes.
  execution: ['awaiting_deposit', 'executing'],
  // Settlement: initiated from filled, confirmed in pending_settle.
  settlement: ['filled', 'pending_settle'],
  // Never broadcast (swapsim's pending → failed extra) or, as the spec's Cancel table reads, from sent.
  broadcast: ['pending', 'sent'],
  confirmation: ['sent'],
  // A recovery's claim: recoveries are not walked by status here.
  screening: [],
};

const FROM: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries(SPEC_FAILURE_CODES).map(([code, spec]) => [code, [...new Set(spec.phases.flatMap((p) => PHASE_FROM[p]))]]),
);

/** The statuses a failure with this code may leave from (undefined: not a spec failure code). */
export const failureFrom = (code: string): readonly string[] | undefined => FROM.get(code);
