// The recovery lifecycle (spec: States → Recovery): created (by the service, for a failed zap's open
// credit) → active (OTP emailed; activating again resends) → claimed, or failed for a refused claim attempt
// or a payout that failed on chain (the credit stays open either way, so activating again starts over).
import { emit, setup } from 'xstate';
import type { FailureCodeOf } from '../../failure-codes.ts';

const RECOVERY_STATUSES = ['created', 'active', 'claimed', 'failed'] as const;
export type RecoveryStatus = (typeof RECOVERY_STATUSES)[number];

/** Why a claim attempt ended `failed`: screening refused the destination, or the payout cancel failed (registry kind `recovery`). */
type RecoveryFailureCode = FailureCodeOf<'recovery'>;

/** The model applies each one: email an OTP, publish an event. */
export type RecoveryEffect = { type: 'otp' } | { type: 'claimed' } | { type: 'claim_failed'; failure_code: RecoveryFailureCode };

export type RecoveryEvent =
  /** POST /recoveries/{id}/activate: a fresh OTP each time. */
  | { type: 'ACTIVATE' }
  /** A claim that passed every check: the cancel-style transfer has started. */
  | { type: 'CLAIM' }
  /** A claim refused by destination screening; the credit stays open. */
  | { type: 'CLAIM_FAILED' }
  /** The claim's payout (a cancel) failed: nothing left the account, the credit is open again. */
  | { type: 'PAYOUT_FAILED'; failure_code: FailureCodeOf<'cancel'> };

export const recoveryMachine = setup({
  types: { context: {} as Record<string, never>, events: {} as RecoveryEvent, emitted: {} as RecoveryEffect },
  actions: {
    sendOtp: emit((): RecoveryEffect => ({ type: 'otp' })),
    claimed: emit((): RecoveryEffect => ({ type: 'claimed' })),
    claimFailed: emit(
      ({ event }): RecoveryEffect => ({
        type: 'claim_failed',
        failure_code: event.type === 'PAYOUT_FAILED' ? event.failure_code : 'destination_screening_failed',
      }),
    ),
  },
}).createMachine({
  id: 'recovery',
  initial: 'created',
  context: {},
  states: {
    created: { on: { ACTIVATE: { target: 'active', actions: 'sendOtp' } } },
    active: {
      on: {
        ACTIVATE: { target: 'active', actions: 'sendOtp' },
        CLAIM: { target: 'claimed', actions: 'claimed' },
        CLAIM_FAILED: { target: 'failed', actions: 'claimFailed' },
      },
    },
    // `failed` records the refused attempt; the credit is still open, so activating again starts a new one.
    failed: { on: { ACTIVATE: { target: 'active', actions: 'sendOtp' } } },
    // Claimed ends the recovery once its payout confirms; a failed payout moved nothing, so it is not final.
    claimed: { on: { PAYOUT_FAILED: { target: 'failed', actions: 'claimFailed' } } },
  },
});
