// The credit lifecycle (spec: States → Credit): open → consumed, once. A lock (the trade, zap or cancel
// now using the credit) is context on `open`, so a locked credit still counts as open and available.
import { assign, emit, setup } from 'xstate';

export type CreditEffect = { type: 'created' } | { type: 'consumed'; holder_id: string };

export type CreditEvent =
  | { type: 'LOCK'; holder_id: string }
  | { type: 'RELEASE'; holder_id: string }
  | { type: 'CONSUME'; holder_id: string };

export interface CreditContext {
  /** Who holds the credit right now (trade, zap, cancel or recovery id); null when free. */
  holder_id: string | null;
  /** Who consumed it; set once, on the way to `consumed`. */
  consumed_by: string | null;
}

export const creditMachine = setup({
  types: {
    context: {} as CreditContext,
    events: {} as CreditEvent,
    emitted: {} as CreditEffect,
  },
  guards: {
    free: ({ context }) => context.holder_id === null,
    heldBySender: ({ context, event }) => context.holder_id === event.holder_id,
    freeOrHeldBySender: ({ context, event }) => context.holder_id === null || context.holder_id === event.holder_id,
  },
  actions: {
    takeLock: assign({ holder_id: ({ event }) => event.holder_id }),
    dropLock: assign({ holder_id: () => null }),
    recordConsumer: assign({ holder_id: () => null, consumed_by: ({ event }) => event.holder_id }),
    emitConsumed: emit(({ event }) => ({ type: 'consumed' as const, holder_id: event.holder_id })),
  },
}).createMachine({
  id: 'credit',
  initial: 'open',
  context: { holder_id: null, consumed_by: null },
  entry: emit({ type: 'created' }),
  states: {
    open: {
      on: {
        LOCK: { guard: 'free', actions: 'takeLock' },
        RELEASE: { guard: 'heldBySender', actions: 'dropLock' },
        CONSUME: { guard: 'freeOrHeldBySender', target: 'consumed', actions: ['recordConsumer', 'emitConsumed'] },
      },
    },
    consumed: { type: 'final' },
  },
});

export type CreditStatus = 'open' | 'consumed';
