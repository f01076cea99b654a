// The zap lifecycle (spec: States → Zap): created → executing (credit-funded) or awaiting_deposit (deposit-
// funded); the deposit's outcome; then executing → filled → pending_settle → settled | failed, and the reorg
// of a settled leg (settled ⇄ settled_orphaned) as for trades. `failed` is final.
import { assign, emit, setup } from 'xstate';
import type { SwapEvent } from '../execution/index.ts';
import type { FailureCodeOf } from '../../failure-codes.ts';

/** Every failure code a zap can end with (spec: Zap → failure_code), from the failure-code registry. */
export type ZapFailureCode = FailureCodeOf<'zap'>;

/** The model publishes each one; zap.failed and zap.settled take their extra fields from the context. */
export type ZapEffect = { type: 'publish'; event_type: string };

export type ZapEvent =
  /** Creation with a credit: execution starts at once. */
  | { type: 'BEGIN' }
  /** Creation without a credit: a single-use deposit address is waiting. */
  | { type: 'AWAIT_DEPOSIT' }
  /** The deposit verified in the requested source asset (and its observed amount is executable). */
  | { type: 'DEPOSIT_VERIFIED' }
  | { type: 'MISMATCH' }
  | { type: 'FLAGGED' }
  | { type: 'DROPPED' }
  /** `expires_at_ms` reached before the fill. */
  | { type: 'EXPIRE' }
  | SwapEvent;

export interface ZapContext {
  failure_code: ZapFailureCode | null;
  settlement_credit_id: string | null;
  orphaned_leg: 'out' | 'in' | null;
}

// Parameterized actions declared once in `setup`, so the transitions below stay fully typed.
const publish = (event_type: string) => ({ type: 'publish', params: { event_type } }) as const;
const failWith = (code: ZapFailureCode) =>
  ({ target: 'failed', actions: [{ type: 'recordCode', params: { code } }, publish('zap.failed')] }) as const;
const failFromEvent = { target: 'failed', actions: ['recordFailure', publish('zap.failed')] } as const;

export const zapMachine = setup({
  types: { context: {} as ZapContext, events: {} as ZapEvent, emitted: {} as ZapEffect },
  actions: {
    publish: emit((_, params: { event_type: string }): ZapEffect => ({ type: 'publish', event_type: params.event_type })),
    recordCode: assign((_, params: { code: ZapFailureCode }) => ({ failure_code: params.code })),
    recordFailure: assign({ failure_code: ({ event }) => (event.type === 'FAIL' ? (event.code as ZapFailureCode) : null) }),
    recordCredit: assign({ settlement_credit_id: ({ event }) => (event.type === 'SETTLED' ? event.credit_id : null) }),
    recordOrphan: assign({ orphaned_leg: ({ event }) => (event.type === 'ORPHAN' ? event.leg : null) }),
    clearOrphan: assign({ orphaned_leg: null }),
  },
}).createMachine({
  id: 'zap',
  initial: 'created',
  context: { failure_code: null, settlement_credit_id: null, orphaned_leg: null },
  states: {
    // Left within the creating request: never visible on the wire.
    created: {
      on: {
        BEGIN: { target: 'executing', actions: publish('zap.executing') },
        AWAIT_DEPOSIT: { target: 'awaiting_deposit', actions: publish('zap.awaiting_deposit') },
      },
    },
    awaiting_deposit: {
      on: {
        DEPOSIT_VERIFIED: { target: 'executing', actions: publish('zap.executing') },
        MISMATCH: failWith('from_asset_mismatch'),
        FLAGGED: failWith('deposit_flagged'),
        DROPPED: failWith('deposit_insufficient_confirmations'),
        EXPIRE: failWith('zap_expired'),
        // Fault rules of the deposit stage, and an observed amount outside the size bounds (execution_failed).
        FAIL: failFromEvent,
      },
    },
    executing: {
      on: {
        FILL: { target: 'filled', actions: publish('zap.filled') },
        EXPIRE: failWith('zap_expired'),
        FAIL: failFromEvent,
      },
    },
    filled: {
      on: {
        SETTLE_INITIATED: { target: 'pending_settle', actions: publish('zap.pending_settle') },
        FAIL: failFromEvent,
      },
    },
    pending_settle: {
      on: {
        SETTLED: { target: 'settled', actions: ['recordCredit', 'clearOrphan', publish('zap.settled')] },
        // A confirmed leg dropped before settlement completes (the settlement_orphaned failure path).
        ORPHAN: { target: 'pending_settle', actions: ['recordOrphan', publish('zap.settlement_orphaned')] },
        FAIL: failFromEvent,
      },
    },
    settled: {
      on: { ORPHAN: { target: 'settled_orphaned', actions: ['recordOrphan', publish('zap.settlement_orphaned')] } },
    },
    settled_orphaned: {
      on: { RECONFIRM: { target: 'settled', actions: ['clearOrphan', publish('zap.settlement_reconfirmed')] } },
    },
    failed: { type: 'final' },
  },
});

export type ZapState =
  | 'created'
  | 'awaiting_deposit'
  | 'executing'
  | 'filled'
  | 'pending_settle'
  | 'settled'
  | 'settled_orphaned'
  | 'failed';
/** Statuses on the wire (spec: States → Zap). */
export const ZAP_STATUSES = ['awaiting_deposit', 'executing', 'filled', 'pending_settle', 'settled', 'failed'] as const;
export type ZapStatus = (typeof ZAP_STATUSES)[number];
