// The trade lifecycle (spec: States → Trade): executing → filled → pending_settle → settled | failed, and
// the reorg of a settled leg (settled ⇄ settled_orphaned: settlement_orphaned, then _reconfirmed).
// `failed` is final; `settled` is terminal on the wire but a reorg can still orphan and reconfirm a leg.
import { assign, emit, setup } from 'xstate';
import type { SwapEvent } from '../execution/index.ts';
import type { FailureCodeOf } from '../../failure-codes.ts';

export type TradeEffect = { type: 'publish'; event_type: string; extra?: Record<string, unknown> };

export interface TradeContext {
  failure_code: FailureCodeOf<'trade'> | null;
  settlement_credit_id: string | null;
  orphaned_leg: 'out' | 'in' | null;
}

const publish = (event_type: string) => ({ type: 'publishEvent', params: { event_type } }) as const;

export const tradeMachine = setup({
  types: { context: {} as TradeContext, events: {} as SwapEvent, emitted: {} as TradeEffect },
  actions: {
    publishEvent: emit((_, params: { event_type: string }) => ({ type: 'publish', event_type: params.event_type }) as TradeEffect),
    recordFailure: assign({ failure_code: ({ event }) => (event.type === 'FAIL' ? (event.code as FailureCodeOf<'trade'>) : null) }),
    recordCredit: assign({ settlement_credit_id: ({ event }) => (event.type === 'SETTLED' ? event.credit_id : null) }),
    recordOrphan: assign({ orphaned_leg: ({ event }) => (event.type === 'ORPHAN' ? event.leg : null) }),
    clearOrphan: assign({ orphaned_leg: null }),
    publishFailed: emit(
      ({ event }) =>
        ({
          type: 'publish',
          event_type: 'trade.failed',
          extra: { failure_code: event.type === 'FAIL' ? event.code : null },
        }) as TradeEffect,
    ),
    publishOrphaned: emit(
      ({ event }) =>
        ({
          type: 'publish',
          event_type: 'trade.settlement_orphaned',
          extra: { leg: event.type === 'ORPHAN' ? event.leg : null },
        }) as TradeEffect,
    ),
    publishReconfirmed: emit(
      ({ event }) =>
        ({
          type: 'publish',
          event_type: 'trade.settlement_reconfirmed',
          extra: { leg: event.type === 'RECONFIRM' ? event.leg : null },
        }) as TradeEffect,
    ),
  },
}).createMachine({
  id: 'trade',
  initial: 'executing',
  context: { failure_code: null, settlement_credit_id: null, orphaned_leg: null },
  entry: publish('trade.executing'),
  states: {
    executing: {
      on: {
        FILL: { target: 'filled', actions: publish('trade.filled') },
        FAIL: { target: 'failed', actions: ['recordFailure', 'publishFailed'] },
      },
    },
    filled: {
      on: {
        SETTLE_INITIATED: { target: 'pending_settle', actions: publish('trade.pending_settle') },
        FAIL: { target: 'failed', actions: ['recordFailure', 'publishFailed'] },
      },
    },
    pending_settle: {
      on: {
        SETTLED: { target: 'settled', actions: ['recordCredit', 'clearOrphan', publish('trade.settled')] },
        // A confirmed leg dropped before settlement completes (the settlement_orphaned failure path).
        ORPHAN: { target: 'pending_settle', actions: ['recordOrphan', 'publishOrphaned'] },
        FAIL: { target: 'failed', actions: ['recordFailure', 'publishFailed'] },
      },
    },
    settled: {
      on: { ORPHAN: { target: 'settled_orphaned', actions: ['recordOrphan', 'publishOrphaned'] } },
    },
    settled_orphaned: {
      on: { RECONFIRM: { target: 'settled', actions: ['clearOrphan', 'publishReconfirmed'] } },
    },
    failed: { type: 'final' },
  },
});

export type TradeState = 'executing' | 'filled' | 'pending_settle' | 'settled' | 'settled_orphaned' | 'failed';
