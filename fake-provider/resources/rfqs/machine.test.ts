// The RFQ and quote machines on their own: every guard trips (late answers, early expiry, late accepts),
// and the states the wire never shows (expired, consumed) absorb.
import { describe, expect, it } from 'vitest';
import { initialTransition, transition, type AnyStateMachine } from 'xstate';
import { quoteMachine, rfqMachine, type QuoteEvent, type RfqEvent } from './machine.ts';

function run(
  machine: AnyStateMachine,
  input: unknown,
  events: Array<RfqEvent | QuoteEvent>,
): { value: unknown; refused: string[]; context: any } {
  let [snapshot] = initialTransition(machine, input);
  const refused: string[] = [];
  for (const e of events) {
    if (!snapshot.can(e)) {
      refused.push(e.type);
      continue;
    }
    [snapshot] = transition(machine, snapshot, e);
  }
  return { value: snapshot.value, refused, context: snapshot.context };
}

const RFQ = { created_at_ms: 1_000, expires_at_ms: 2_000 };

describe('rfq machine', () => {
  it('pending → ready → expired on time', () => {
    const r = run(rfqMachine, RFQ, [
      { type: 'SOLVED', quote_id: 'q1', at_ms: 1_100 },
      { type: 'EXPIRE', at_ms: 2_000 },
    ]);
    expect(r).toMatchObject({ value: 'expired', refused: [], context: { best_quote_id: 'q1' } });
  });

  it('beforeTtl: an answer at or after the TTL is refused, the RFQ stays pending until it expires', () => {
    const r = run(rfqMachine, RFQ, [
      { type: 'SOLVED', quote_id: 'late', at_ms: 2_000 },
      { type: 'EXPIRE', at_ms: 2_000 },
    ]);
    expect(r).toMatchObject({ value: 'expired', refused: ['SOLVED'], context: { best_quote_id: null } });
  });

  it('ttlElapsed: EXPIRE before the deadline is refused in pending and in ready', () => {
    expect(run(rfqMachine, RFQ, [{ type: 'EXPIRE', at_ms: 1_999 }])).toMatchObject({ value: 'pending', refused: ['EXPIRE'] });
    const ready = run(rfqMachine, RFQ, [
      { type: 'SOLVED', quote_id: 'q', at_ms: 1_040 },
      { type: 'EXPIRE', at_ms: 1_500 },
    ]);
    expect(ready).toMatchObject({ value: 'ready', refused: ['EXPIRE'] });
  });

  it('expired absorbs', () => {
    const r = run(rfqMachine, RFQ, [
      { type: 'EXPIRE', at_ms: 3_000 },
      { type: 'SOLVED', quote_id: 'q', at_ms: 1_500 },
      { type: 'EXPIRE', at_ms: 4_000 },
    ]);
    expect(r).toMatchObject({ value: 'expired', refused: ['SOLVED', 'EXPIRE'] });
  });
});

describe('quote machine', () => {
  const Q = { expires_at_ms: 2_000 };

  it('open → consumed records the trade; consumed absorbs (a second accept and the expiry are refused)', () => {
    const r = run(quoteMachine, Q, [
      { type: 'ACCEPT', trade_id: 't1', at_ms: 1_999 },
      { type: 'ACCEPT', trade_id: 't2', at_ms: 1_999 },
      { type: 'EXPIRE', at_ms: 2_000 },
    ]);
    expect(r).toMatchObject({ value: 'consumed', refused: ['ACCEPT', 'EXPIRE'], context: { trade_id: 't1' } });
  });

  it('beforeExpiry: an accept at expires_at_ms is refused; expiryReached: an early EXPIRE is refused', () => {
    expect(run(quoteMachine, Q, [{ type: 'ACCEPT', trade_id: 't', at_ms: 2_000 }])).toMatchObject({ value: 'open', refused: ['ACCEPT'] });
    expect(run(quoteMachine, Q, [{ type: 'EXPIRE', at_ms: 1_999 }])).toMatchObject({ value: 'open', refused: ['EXPIRE'] });
    expect(
      run(quoteMachine, Q, [
        { type: 'EXPIRE', at_ms: 2_000 },
        { type: 'ACCEPT', trade_id: 't', at_ms: 1_000 },
      ]),
    ).toMatchObject({ value: 'expired', refused: ['ACCEPT'] });
  });
});
