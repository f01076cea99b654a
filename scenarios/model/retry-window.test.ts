// Property: the webhook retry window on its exact ticks. Spec (Webhooks): failed deliveries are "retried with
// exponential backoff for up to 72 hours"; swapsim measures the window from the delivery's first attempt (the
// instant its event is published, here) and retries while the next attempt falls within it, the 72 h mark
// included. Each run draws a retry schedule (the profile's webhook_retry_schedule_ms: one to three delays,
// then a last one that repeats) whose attempts land exactly one tick before, on, or one tick after the 72 h
// mark (every run all three), runs a sim on each against a receiver that always answers 500, and requires every delivery's attempts
// to arrive exactly at the schedule's offsets that lie within the window: the one on the mark or one tick
// before it is made, the one a tick after it never is; the delivery ends failed at its last attempt, and the
// invariants (the spec oracle's retry_window check among them) hold.
// Runs: SWAPSIM_RETRY_RUNS (default 4, each over the three ticks); SWAPSIM_RETRY_SEED (+ SWAPSIM_RETRY_PATH) reruns a seed; a failure
// prints seed, path and the counterexample.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim } from '../../fake-provider/testing/harness.ts';
import { DEFAULT_PROFILE } from '../../fake-provider/profile.ts';
import { startReceiver, type Receiver } from '../dsl/webhook-receiver.ts';

const RUNS = Number(process.env.SWAPSIM_RETRY_RUNS ?? 4);
const SEED = process.env.SWAPSIM_RETRY_SEED ? Number(process.env.SWAPSIM_RETRY_SEED) : undefined;
const PATH = process.env.SWAPSIM_RETRY_PATH;

const HOUR_MS = 3_600_000;
const WINDOW_MS = 72 * HOUR_MS;

let receiver: Receiver;
let now_ms: () => number = () => 0;
beforeAll(async () => {
  receiver = await startReceiver('', 'Svc', () => now_ms());
});
afterAll(() => receiver.close());

/**
 * A schedule whose attempt offsets (cumulative delays from the first attempt) reach exactly WINDOW_MS + tick:
 * `prefix` delays, then `last` repeated `repeats` times. Its delays sum to at most the window (the profile's
 * own rule), since the last one repeats rather than being listed again.
 */
const shapeArb = fc.record({
  repeats: fc.integer({ min: 2, max: 3 }),
  last_share: fc.integer({ min: 5, max: 30 }),
  cuts: fc.array(fc.integer({ min: 1, max: 999 }), { minLength: 0, maxLength: 2 }),
});

function scheduleFor(tick: number, { repeats, last_share, cuts }: { repeats: number; last_share: number; cuts: number[] }) {
  const last = Math.floor((WINDOW_MS * last_share) / 100 / repeats) + 7;
  const prefix_total = WINDOW_MS + tick - repeats * last;
  const points = [...new Set(cuts.map((c) => Math.floor((prefix_total * c) / 1000)))]
    .filter((p) => p > 0 && p < prefix_total)
    .sort((a, b) => a - b);
  const prefix = [...points, prefix_total].map((p, i, all) => p - (i === 0 ? 0 : all[i - 1]));
  return { schedule: [...prefix, last], repeats };
}

/** Offsets from the first attempt of every attempt the schedule makes within the window (the first is 0). */
function expectedOffsets(schedule: number[], repeats: number): number[] {
  const delays = [...schedule, ...Array(repeats - 1).fill(schedule[schedule.length - 1]), schedule[schedule.length - 1]];
  const out = [0];
  for (const d of delays) {
    const next = out[out.length - 1] + d;
    if (next > WINDOW_MS) break;
    out.push(next);
  }
  return out;
}

async function runTick(tick: number, { schedule, repeats }: { schedule: number[]; repeats: number }): Promise<void> {
  const sim = await startTestSim({
    seed: 'retry-window',
    profile: { ...DEFAULT_PROFILE, name: 'retry-ticks', webhook_retry_schedule_ms: schedule },
  });
  try {
    now_ms = () => sim.running.runtime.world.sim.now_ms();
    receiver.received = [];
    receiver.answer = () => 500;
    const hook = await sim.api('POST', '/webhooks', { body: { url: receiver.url } });
    expect(hook.status, JSON.stringify(hook.body)).toBe(200);
    receiver.secret = hook.body.webhook.secret;
    const account = await sim.api('POST', '/accounts', { body: { label: 'retry' } });
    expect(account.status, JSON.stringify(account.body)).toBe(200);
    await sim.settle(80 * HOUR_MS);
    const expected = expectedOffsets(schedule, repeats);
    // The schedule was built so that its last attempt falls on the mark plus the tick.
    expect(expected[expected.length - 1] === WINDOW_MS + tick, `schedule ${schedule} reaches ${WINDOW_MS + tick}`).toBe(tick <= 0);
    const byDelivery = new Map<string, number[]>();
    for (const x of receiver.received) byDelivery.set(x.delivery_id, [...(byDelivery.get(x.delivery_id) ?? []), x.received_at_ms]);
    expect(byDelivery.size, 'deliveries attempted').toBeGreaterThan(0);
    const deliveries = (await sim.api('GET', `/webhooks/${hook.body.webhook.webhook_id}/deliveries?limit=100`)).body.deliveries as Array<
      Record<string, any>
    >;
    for (const [delivery_id, times] of byDelivery) {
      // The first attempt is made as the event is published, so the window measured from it is the event's 72 h.
      const first = receiver.received.find((x) => x.delivery_id === delivery_id)!;
      expect(times[0], `delivery ${delivery_id}: first attempt against its event's created_at_ms`).toBe(first.body.created_at_ms);
      const offsets = times.map((t) => t - times[0]);
      expect(
        offsets,
        `delivery ${delivery_id}: attempts after the first (window ${WINDOW_MS} ms, the schedule's mark ${WINDOW_MS + tick}: ${tick === 0 ? 'on the mark' : tick < 0 ? 'one tick before it' : 'one tick after it'})`,
      ).toEqual(expected);
      const d = deliveries.find((x) => x.delivery_id === delivery_id);
      expect(d, `delivery ${delivery_id} listed`).toBeDefined();
      expect([d!.status, d!.attempted_at_ms, d!.next_retry_at_ms ?? null], `delivery ${delivery_id} once the window closed`).toEqual([
        'failed',
        times[times.length - 1],
        null,
      ]);
    }
    const inv = await sim.invariants();
    expect(inv.violations, JSON.stringify(inv.violations)).toEqual([]);
  } finally {
    await sim.close();
  }
}

describe('webhook retry window', () => {
  it(`retries on the 72 h mark and one tick before it, never one tick after (${RUNS} runs)`, { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(shapeArb, async (shape) => {
        // Every run hits all three ticks with the same shape of schedule: one tick before the mark, on it, one after.
        for (const tick of [-1, 0, 1]) await runTick(tick, scheduleFor(tick, shape));
      }),
      { numRuns: RUNS, seed: SEED, path: PATH, verbose: 1, includeErrorInReport: true },
    );
  });
});
