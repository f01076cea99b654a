// Outboxes sharing one InFlightBound (every world of a runtime): a freed slot goes to the waiting lane, of any
// outbox, with the fewest POSTs out; each outbox still reports only its own POSTs (a snapshot of one world must
// not wait on another's); a closed outbox gives its slots back at once. POSTs here are promises the test settles.
import { describe, expect, it } from 'vitest';
import { createOutbox, InFlightBound, type Sent } from './outbox.ts';

const LIMITS = { max_in_flight: 8, max_in_flight_total: 4, max_queued: 100 };

/** A POST the test answers: `started` lists what left its lane, `answer` settles one. */
function wire() {
  const started: string[] = [];
  const pending = new Map<string, (s: Sent) => void>();
  const run = (name: string) => () => {
    started.push(name);
    return new Promise<Sent>((resolve) => pending.set(name, resolve));
  };
  const answer = async (name: string): Promise<void> => {
    pending.get(name)!({ status: 200, timed_out: false });
    // The outbox starts what the freed slot allows once the POST's promise has settled.
    await new Promise((r) => setImmediate(r));
  };
  return { started, run, answer };
}

describe('outboxes sharing one bound', () => {
  it('a freed slot goes to the waiting lane with the fewest POSTs out, whichever outbox holds it', async () => {
    const bound = new InFlightBound();
    const [x, y, z] = [createOutbox(() => LIMITS, bound), createOutbox(() => LIMITS, bound), createOutbox(() => LIMITS, bound)];
    const { started, run, answer } = wire();
    // Within the bound of 4: C's one, B's one, A's two; then A's third and B's second wait (A first in line).
    void z.submit('C', 'c1', 0, run('c1'));
    void y.submit('B', 'b1', 0, run('b1'));
    void x.submit('A', 'a1', 0, run('a1'));
    void x.submit('A', 'a2', 0, run('a2'));
    void x.submit('A', 'a3', 0, run('a3'));
    void y.submit('B', 'b2', 0, run('b2'));
    expect(started).toEqual(['c1', 'b1', 'a1', 'a2']);
    expect(bound.in_flight).toBe(4);
    // Each outbox counts its own POSTs: a world's snapshot waits on its own, never on another world's.
    expect([x.stats().in_flight, y.stats().in_flight, z.stats().in_flight]).toEqual([2, 1, 1]);

    await answer('c1');
    // B has one out, A two: B's second goes, though A waited first.
    expect(started).toEqual(['c1', 'b1', 'a1', 'a2', 'b2']);
    expect([x.stats().queued, y.stats().queued, bound.in_flight]).toEqual([1, 0, 4]);

    // A closed outbox gives its slots back at once (its POSTs are being aborted): A's third goes now.
    y.close();
    expect(started).toEqual(['c1', 'b1', 'a1', 'a2', 'b2', 'a3']);
    expect([bound.in_flight, x.stats().in_flight, y.stats().in_flight]).toEqual([3, 3, 0]);
    // Its aborted POSTs settling later count nothing twice.
    await answer('b1');
    await answer('b2');
    expect(bound.in_flight).toBe(3);
    for (const name of ['a1', 'a2', 'a3']) await answer(name);
    expect([bound.in_flight, bound.starved.length]).toEqual([0, 0]);
  });
});
