// The destination lifecycle (spec: States → Destination): usable ⇄ suspended by delta screening, and
// deleted (final) from either. Suspension fields live in context; effects are emitted, never performed.
import { assign, emit, setup } from 'xstate';

export type DestinationEffect = { type: 'publish'; event_type: 'destination.suspended' | 'destination.reactivated' };

export type DestinationEvent = { type: 'SUSPEND'; reason: string; at_ms: number } | { type: 'REACTIVATE' } | { type: 'DELETE' };

export interface DestinationContext {
  suspended_at_ms: number | null;
  suspension_reason: string | null;
}

export const destinationMachine = setup({
  types: {
    context: {} as DestinationContext,
    events: {} as DestinationEvent,
    emitted: {} as DestinationEffect,
  },
  actions: {
    recordSuspension: assign({
      suspended_at_ms: ({ event }) => (event.type === 'SUSPEND' ? event.at_ms : null),
      suspension_reason: ({ event }) => (event.type === 'SUSPEND' ? event.reason : null),
    }),
    clearSuspension: assign({ suspended_at_ms: null, suspension_reason: null }),
  },
}).createMachine({
  id: 'destination',
  initial: 'usable',
  context: { suspended_at_ms: null, suspension_reason: null },
  states: {
    usable: {
      on: {
        SUSPEND: { target: 'suspended', actions: ['recordSuspension', emit({ type: 'publish', event_type: 'destination.suspended' })] },
        DELETE: { target: 'deleted' },
      },
    },
    // A repeated SUSPEND is not accepted here: the model answers it idempotently, with no second event.
    suspended: {
      on: {
        REACTIVATE: { target: 'usable', actions: ['clearSuspension', emit({ type: 'publish', event_type: 'destination.reactivated' })] },
        DELETE: { target: 'deleted' },
      },
    },
    deleted: { type: 'final' },
  },
});

export type DestinationStatus = 'usable' | 'suspended' | 'deleted';
