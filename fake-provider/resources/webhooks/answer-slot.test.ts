// Profile `webhook_answer_slot_ms`: a POST leaves when it falls due, the clock runs on, and its outcome is
// applied a fixed span of sim time later; a slow receiver's answers overlap in wall time (a burst of five
// is in flight at once, a duplicate's two copies together), and the log is the same whatever the wall latency.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { newWorld } from '../../app.ts';
import { createOrganization } from '../../organizations.ts';
import { publish } from '../../engine/index.ts';
import { DEFAULT_PROFILE } from '../../profile.ts';
import { createWebhook, deliveryStatus, webhookStore } from './model.ts';

let closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closing) await c();
  closing = [];
});

/** Answers each POST after `delay_ms` of wall time: 200, or 500 for events whose type ends in `.bad`. */
async function slowReceiver(delay_ms: number) {
  let inflight = 0;
  let peak = 0;
  const server = createServer((req, res) => {
    let body = '';
    req
      .on('data', (c) => (body += c))
      .on('end', () => {
        peak = Math.max(peak, ++inflight);
        setTimeout(() => {
          inflight--;
          res.writeHead(JSON.parse(body).type.endsWith('.bad') ? 500 : 200).end();
        }, delay_ms);
      });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closing.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, peak: () => peak };
}

async function burst(slot_ms: number, delay_ms: number, opts: { duplicate?: string } = {}) {
  const receiver = await slowReceiver(delay_ms);
  const world = newWorld({ seed: 'answer-slot', clock: 'virtual', profile: { ...DEFAULT_PROFILE, webhook_answer_slot_ms: slot_ms } });
  const org = createOrganization(world, { api_keys: ['sk_answer_slot_0123'] });
  createWebhook(world, org, { url: receiver.url });
  const t0 = world.sim.now_ms();
  if (opts.duplicate)
    world.sim.faults.add(
      { target: 'webhook', effect: { webhook: 'duplicate' }, match: { event_type: opts.duplicate }, probability: 1, times: 1 },
      'flt_dup',
      t0,
    );
  // One account's events 500 ms of sim time apart, as a trade's progress events are.
  for (const [i, type] of ['test.a', 'test.b', 'test.bad', 'test.c', 'test.d'].entries()) {
    world.sim.scheduler.scheduleCall(
      t0 + 1_000 + i * 500,
      'test.publish',
      () => void publish(world, org.organization_id, 'acct_a', type, {}),
    );
  }
  let during: string[] = [];
  world.sim.scheduler.scheduleCall(t0 + 5_000, 'test.observe', () => {
    during = [...webhookStore(world).deliveries.values()].map(deliveryStatus);
  });
  await world.sim.scheduler.advance(60_000);
  const deliveries = [...webhookStore(world).deliveries.values()];
  return {
    peak: receiver.peak(),
    during,
    log: deliveries.map((d) => [
      d.attempt_log.map((a) => [a.at_ms - t0, a.http_status]),
      d.snapshot.context.due_ms - t0,
      deliveryStatus(d),
    ]),
    copies: deliveries.map((d) => d.attempt_log.map((a) => a.copies)),
  };
}

describe('webhook answer slot', () => {
  it("sends one account's burst concurrently and applies each answer slot_ms later, deterministically", async () => {
    const slow = await burst(10_000, 300);
    expect(slow.peak).toBe(5); // all five in flight at once (one after another would peak at 1)
    // At +5 s no answer has landed yet: the attempts are in flight in sim time.
    expect(slow.during).toEqual(['pending', 'pending', 'pending', 'pending', 'pending']);
    // Attempt times are the send times; the failed one is retried 30 s after its attempt (the schedule's first delay).
    expect(slow.log).toEqual([
      [[[1_000, 200]], 1_000, 'success'],
      [[[1_500, 200]], 1_500, 'success'],
      [
        [
          [2_000, 500],
          [32_000, 500],
        ],
        152_000,
        'pending',
      ],
      [[[2_500, 200]], 2_500, 'success'],
      [[[3_000, 200]], 3_000, 'success'],
    ]);
    const fast = await burst(10_000, 1);
    expect(fast.log).toEqual(slow.log);
  });

  it("sends a duplicate's two copies together: both in flight at once, the outcome the same whatever the latency", async () => {
    // One event alone, duplicated: a sender that waited for the first copy's answer would peak at 1.
    const receiver = await slowReceiver(300);
    const world = newWorld({ seed: 'answer-slot-dup', clock: 'virtual', profile: { ...DEFAULT_PROFILE, webhook_answer_slot_ms: 10_000 } });
    const org = createOrganization(world, { api_keys: ['sk_answer_slot_dup_0123'] });
    createWebhook(world, org, { url: receiver.url });
    world.sim.faults.add(
      { target: 'webhook', effect: { webhook: 'duplicate' }, match: {}, probability: 1, times: 1 },
      'flt_dup',
      world.sim.now_ms(),
    );
    publish(world, org.organization_id, 'acct_a', 'test.a', {});
    await world.sim.scheduler.advance(60_000);
    expect(receiver.peak()).toBe(2);
    const [d] = [...webhookStore(world).deliveries.values()];
    expect(d.attempt_log.map((a) => [a.copies, a.http_status])).toEqual([[2, 200]]);
    expect(deliveryStatus(d)).toBe('success');

    // In a burst, a duplicated failing event: both copies answered 500, one retry; the log is latency-free.
    const slow = await burst(10_000, 300, { duplicate: 'test.bad' });
    const fast = await burst(10_000, 1, { duplicate: 'test.bad' });
    expect(slow.peak).toBe(6);
    expect(slow.copies).toEqual([[1], [1], [2, 1], [1], [1]]);
    expect(slow.log[2][0]).toEqual([
      [2_000, 500],
      [32_000, 500],
    ]);
    expect(fast.log).toEqual(slow.log);
    expect(fast.copies).toEqual(slow.copies);
  });

  it("at 0 (the default) keeps one account's POSTs one after another, each answered where it is sent", async () => {
    const r = await burst(0, 100);
    expect(r.peak).toBe(1);
    expect(r.during).toEqual(['success', 'success', 'pending', 'success', 'success']);
    expect(r.log[2][0]).toEqual([
      [2_000, 500],
      [32_000, 500],
    ]);
  });
});
