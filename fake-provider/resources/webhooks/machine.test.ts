// The delivery machine on its own (pure transitions) and the webhook invariants tripping on corrupted
// state: the retry schedule's last value repeats, the window edge is inclusive, finals absorb.
import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { createSimKernel } from '../../../sim/index.ts';
import { createWorld } from '../../world.ts';
import { DEFAULT_PROFILE } from '../../profile.ts';
import { publish } from '../../engine/index.ts';
import { createOrganization } from '../../organizations.ts';
import { deliveryMachine, nextRetryAt, retryAllowed, type DeliveryContext } from './machine.ts';
import { createWebhook, webhookStore } from './model.ts';
import { webhooksResource } from './index.ts';

const input = { due_ms: 0, retry_schedule_ms: [10, 20], retry_window_ms: 50 };

function run(events: Parameters<typeof transition<typeof deliveryMachine>>[2][]) {
  let [snap] = initialTransition(deliveryMachine, input);
  for (const e of events) [snap] = transition(deliveryMachine, snap, e);
  return snap;
}

describe('webhook_delivery machine', () => {
  it('repeats the last delay and stops at the window, inclusive', () => {
    const ctx = (attempts: number): DeliveryContext => ({ ...input, attempts, first_attempt_at_ms: 0, attempted_at_ms: 0, http_status: 0 });
    expect([1, 2, 3, 4].map((n) => nextRetryAt(ctx(n), 100))).toEqual([110, 120, 120, 120]);
    expect(retryAllowed(ctx(2), 30)).toBe(true); // 30 + 20 = 50: on the edge
    expect(retryAllowed(ctx(2), 31)).toBe(false);
    // Attempts at 0, 10, 30, 50 (the edge); the fourth failure would retry at 70 > 50: exhausted.
    const fail = (at_ms: number) => [
      { type: 'ATTEMPT' as const, at_ms },
      { type: 'FAILED' as const, at_ms, http_status: 500 },
    ];
    const three = run([...fail(0), ...fail(10), ...fail(30)]);
    expect([three.value, three.context.due_ms]).toEqual(['pending', 50]);
    const done = run([...fail(0), ...fail(10), ...fail(30), ...fail(50)]);
    expect([done.value, done.status, done.context.attempts]).toEqual(['exhausted', 'done', 4]);
  });

  it('accepts each event only where it belongs', () => {
    const [pending] = initialTransition(deliveryMachine, input);
    expect(pending.can({ type: 'SUCCEEDED', http_status: 200 })).toBe(false);
    expect(pending.can({ type: 'ABANDON' })).toBe(true);
    const inFlight = run([{ type: 'ATTEMPT', at_ms: 0 }]);
    expect(inFlight.can({ type: 'ATTEMPT', at_ms: 1 })).toBe(false);
    expect(inFlight.can({ type: 'ABANDON' })).toBe(false);
    const ok = run([
      { type: 'ATTEMPT', at_ms: 0 },
      { type: 'SUCCEEDED', http_status: 204 },
    ]);
    expect([ok.value, ok.context.http_status]).toEqual(['succeeded', 204]);
    expect(ok.can({ type: 'ATTEMPT', at_ms: 5 })).toBe(false);
  });
});

describe('webhook invariants', () => {
  it('trip on corrupted deliveries and on two active webhooks', () => {
    const world = createWorld({ sim: createSimKernel({ seed: 7 }), profile: DEFAULT_PROFILE });
    webhooksResource.install!(world);
    const org = createOrganization(world);
    const w = createWebhook(world, org, { url: 'http://127.0.0.1:9/h' });
    publish(world, org.organization_id, 'acct_i', 'test.inv', {});
    expect(webhooksResource.invariants!(world)).toEqual([]);
    const d = webhookStore(world).deliveryList[0];
    d.event_id = 'evt_missing';
    d.attempt_log.push({ at_ms: 1, http_status: 500, copies: 1, effects: [], state: 'pending' });
    createWebhook(world, org, { url: 'http://127.0.0.1:9/b' });
    w.active = true;
    const names = webhooksResource.invariants!(world)
      .map((v) => v.invariant)
      .sort();
    expect(names).toEqual(['webhooks.attempts_recorded', 'webhooks.delivery_event_exists', 'webhooks.one_active_per_org']);
  });
});
