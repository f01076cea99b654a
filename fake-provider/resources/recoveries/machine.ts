// The recovery lifecycle (spec: States → Recovery): created (by the service, for a failed zap's open
// credit) → active (OTP emailed; activating again resends) → claimed, or failed for a refused claim attempt.
import { emit, setup } from 'xstate';

export const RECOVERY_STATUSES = ['created', 'active', 'claimed', 'failed'] as const;
export type RecoveryStatus = (typeof RECOVERY_STATUSES)[number];

/** The model applies each one: email an OTP, publish an event. */
export type RecoveryEffect = { type: 'otp' } | { type: 'claimed' } | { type: 'claim_failed' };

export type RecoveryEvent =
  /** POST /recoveries/{id}/activate: a fresh OTP each time. */
  | { type: 'ACTIVATE' }
  /** A claim that passed every check: the cancel-style transfer has started. */
  | { type: 'CLAIM' }
  /** A claim refused by destination screening; the credit stays open. */
  | { type: 'CLAIM_FAILED' };

export const recoveryMachine = setup({
  types: { context: {} as Record<string, never>, events: {} as RecoveryEvent, emitted: {} as RecoveryEffect },
  actions: {
    sendOtp: emit((): RecoveryEffect => ({ type: 'otp' })),
    claimed: emit((): RecoveryEffect => ({ type: 'claimed' })),
    claimFailed: emit((): RecoveryEffect => ({ type: 'claim_failed' })),
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
    claimed: { type: 'final' },
  },
});
