// The cancel lifecycle (spec: States → Cancel): pending → sent → confirmed, or failed. Deadlines are
// absolute sim timestamps in context (for poll_after_ms); effects are emitted, never performed.
import { assign, emit, setup } from 'xstate';
import type { FailureCodeOf } from '../../failure-codes.ts';

/** Every failure code a cancel can end with (spec: Cancel → failure_code), from the failure-code registry. */
export type CancelFailureCode = FailureCodeOf<'cancel'>;

export type CancelEffect = { type: 'created' } | { type: 'sent' } | { type: 'confirmed' } | { type: 'failed' };

export type CancelEvent =
  /** A `delay_ms` fault holds the broadcast back: the next step is now due at `due_ms`. */
  | { type: 'POSTPONE'; due_ms: number }
  | { type: 'BROADCAST'; tx_hash: string; at_ms: number; final_due_ms: number }
  | { type: 'CONFIRM'; at_ms: number }
  | { type: 'FAIL'; code: CancelFailureCode; at_ms: number };

export interface CancelContext {
  /** When the broadcast is expected (pending only). */
  broadcast_due_ms: number;
  /** When the chain's finality threshold is expected (sent only). */
  final_due_ms: number | null;
  tx_hash: string | null;
  sent_at_ms: number | null;
  confirmed_at_ms: number | null;
  failed_at_ms: number | null;
  failure_code: CancelFailureCode | null;
}

export const cancelMachine = setup({
  types: {
    context: {} as CancelContext,
    events: {} as CancelEvent,
    input: {} as { broadcast_due_ms: number },
    emitted: {} as CancelEffect,
  },
  guards: {
    // A broadcast that fails never reaches `sent` (the spec's table has no pending → failed row, but
    // lists broadcast_failed as a cancel failure code: this is where it can happen).
    broadcastFailure: ({ event }) => event.type === 'FAIL' && event.code === 'broadcast_failed',
    confirmationTimeout: ({ event }) => event.type === 'FAIL' && event.code === 'confirmation_timeout',
  },
  actions: {
    recordPostponement: assign({
      broadcast_due_ms: ({ context, event }) => (event.type === 'POSTPONE' ? event.due_ms : context.broadcast_due_ms),
    }),
    recordBroadcast: assign(({ context, event }) =>
      event.type === 'BROADCAST'
        ? { ...context, tx_hash: event.tx_hash, sent_at_ms: event.at_ms, final_due_ms: event.final_due_ms }
        : context,
    ),
    recordConfirmation: assign({ confirmed_at_ms: ({ event }) => (event.type === 'CONFIRM' ? event.at_ms : null) }),
    recordFailure: assign(({ context, event }) =>
      event.type === 'FAIL' ? { ...context, failure_code: event.code, failed_at_ms: event.at_ms } : context,
    ),
    emitSent: emit({ type: 'sent' }),
    emitConfirmed: emit({ type: 'confirmed' }),
    emitFailed: emit({ type: 'failed' }),
  },
}).createMachine({
  id: 'cancel',
  initial: 'pending',
  context: ({ input }) => ({
    broadcast_due_ms: input.broadcast_due_ms,
    final_due_ms: null,
    tx_hash: null,
    sent_at_ms: null,
    confirmed_at_ms: null,
    failed_at_ms: null,
    failure_code: null,
  }),
  entry: emit({ type: 'created' }),
  states: {
    pending: {
      on: {
        POSTPONE: { actions: 'recordPostponement' },
        BROADCAST: { target: 'sent', actions: ['recordBroadcast', 'emitSent'] },
        FAIL: { guard: 'broadcastFailure', target: 'failed', actions: ['recordFailure', 'emitFailed'] },
      },
    },
    sent: {
      on: {
        CONFIRM: { target: 'confirmed', actions: ['recordConfirmation', 'emitConfirmed'] },
        FAIL: { guard: 'confirmationTimeout', target: 'failed', actions: ['recordFailure', 'emitFailed'] },
      },
    },
    confirmed: { type: 'final' },
    failed: { type: 'final' },
  },
});

export type CancelStatus = 'pending' | 'sent' | 'confirmed' | 'failed';
