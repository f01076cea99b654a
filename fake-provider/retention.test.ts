// Retention sweeps (profile event_retention_ms, webhook_delivery_retention_ms) on the sim clock: each sweep is
// tripped and counted (events, deliveries, their transitions), what is inside the retention stays, a delivery
// still retrying goes with its event, the same inputs sweep the same way, and invariants stay green.
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, startTestSim, type TestSim } from './testing/harness.ts';
import { startReceiver } from '../scenarios/dsl/webhook-receiver.ts';
import { destination, firmQuote, fund, readyAccount } from './testing/flows.ts';
import { DEFAULT_PROFILE, type Profile } from './profile.ts';
import { webhookStore } from './resources/webhooks/model.ts';
import { retentionState } from './retention.ts';

const opened = closeAfterEach(afterEach);
const sim = async (profile: Partial<Profile>): Promise<TestSim> =>
  opened(await startTestSim({ profile: { ...DEFAULT_PROFILE, ...profile } }));
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ETH = 'native.evm:42161';
const USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';

/** A settled trade with a webhook receiving its events (answering 200). */
async function tradeWithDeliveries(s: TestSim): Promise<{ account_id: string; webhook_id: string }> {
  const rx = opened(await startReceiver());
  const webhook_id = (await s.api('POST', '/webhooks', { body: { url: rx.url } })).body.webhook.webhook_id;
  const account_id = await readyAccount(s);
  const credit_id = await fund(s, account_id, ETH, '1000000000000000000');
  const destination_id = await destination(s, account_id, USDC);
  const { quote_id } = await firmQuote(s, {
    account_id,
    credit_id,
    destination_id,
    from: ETH,
    to: USDC,
    amount_in_atoms: '500000000000000000',
  });
  expect((await s.api('POST', `/quotes/${quote_id}/accept`, { body: { slippage_bps: '100' } })).status).toBe(200);
  await s.settle();
  return { account_id, webhook_id };
}

const feed = async (s: TestSim) =>
  (await s.api('GET', '/events?limit=100')).body.events as Array<{ event_id: string; created_at_ms: number }>;
const deliveries = async (s: TestSim, webhook_id: string) =>
  (await s.api('GET', `/webhooks/${webhook_id}/deliveries?limit=100`)).body.deliveries as unknown[];

describe('retention sweeps', () => {
  it('events past event_retention_ms leave the feed, their deliveries and transitions go; newer ones stay; invariants stay green', async () => {
    const R = 30 * DAY;
    const s = await sim({ event_retention_ms: R, webhook_delivery_retention_ms: 60 * DAY });
    const world = s.running.runtime.world;
    const { webhook_id } = await tradeWithDeliveries(s);
    const old = await feed(s);
    const oldDeliveries = (await deliveries(s, webhook_id)).length;
    expect(old.length).toBeGreaterThan(5);
    expect(oldDeliveries).toBe(old.length);
    const t_old = Math.min(...old.map((e) => e.created_at_ms));
    const t_new = Math.max(...old.map((e) => e.created_at_ms));
    const transitionsBefore = world.transitions.length;

    // Inside the retention of the oldest event: a publication sweeps nothing.
    await s.advance(t_old + R - HOUR - world.sim.now_ms());
    expect((await s.api('POST', '/accounts', { body: { label: 'inside' } })).status).toBe(200);
    expect(await feed(s)).toHaveLength(old.length + 1);
    expect(retentionState(world).events_swept).toBe(0);

    // Past the newest one's (and the sweep interval, R/16): the next publication sweeps them all.
    await s.advance(t_new + R + R / 16 + 1 - world.sim.now_ms());
    const trigger = await s.api('POST', '/accounts', { body: { label: 'after' } });
    expect(trigger.status).toBe(200);
    const now = await feed(s);
    expect(now.map((e) => e.event_id)).not.toContain(old[0].event_id);
    expect(now.every((e) => e.created_at_ms >= world.sim.now_ms() - R)).toBe(true);
    expect(now.length).toBeGreaterThanOrEqual(2);
    expect(retentionState(world).events_swept).toBe(old.length);
    // The swept events' deliveries went with them (the new events' stay), and their transitions.
    const left = (await deliveries(s, webhook_id)) as Array<{ event_id: string }>;
    expect(left.map((d) => d.event_id).sort()).toEqual(now.map((e) => e.event_id).sort());
    expect(retentionState(world).deliveries_swept).toBe(oldDeliveries);
    expect(world.transitions.records.some((r) => r.kind === 'webhook_delivery' && !webhookStore(world).deliveries.has(r.entity_id))).toBe(
      false,
    );
    expect(world.transitions.length).toBeLessThan(transitionsBefore);
    // Checks against the whole event history are skipped (and say why); the others run and hold.
    const inv = (await s.control('GET', '/invariants')).body;
    expect(inv.violations).toEqual([]);
    expect(inv.skipped.map((k: { invariant: string }) => k.invariant)).toContain('spec.*');
    expect(inv.checked).toContain('lifecycle_paths');
    expect(inv.checked.some((c: string) => c.startsWith('spec.'))).toBe(false);
    expect(s.running.runtime.bugs).toEqual([]);
  });

  it('deliveries go webhook_delivery_retention_ms after they end, while their events stay; a pending one stays', async () => {
    const s = await sim({ event_retention_ms: 30 * 24 * HOUR, webhook_delivery_retention_ms: HOUR });
    const world = s.running.runtime.world;
    const { webhook_id } = await tradeWithDeliveries(s);
    const ended = webhookStore(world).deliveryList.filter((d) => d.webhook_id === webhook_id && d.ended_at_ms !== null).length;
    expect(ended).toBeGreaterThan(5);
    const events = (await feed(s)).length;
    // A delivery that will keep failing: a second webhook answering 500, made active.
    const failing = opened(await startReceiver());
    failing.answer = () => 500;
    const w2 = (await s.api('POST', '/webhooks', { body: { url: failing.url } })).body.webhook.webhook_id;
    expect((await s.api('POST', '/accounts', { body: {} })).status).toBe(200);
    await s.advance(1);
    await s.advance(2 * HOUR);
    expect((await s.api('POST', '/accounts', { body: {} })).status).toBe(200);
    await s.advance(1);
    expect(await deliveries(s, webhook_id)).toHaveLength(0);
    // Every one of the first webhook's (all ended); none of the second's (still retrying).
    expect(retentionState(world).deliveries_swept).toBeGreaterThanOrEqual(ended);
    expect(webhookStore(world).deliveryList.every((d) => d.webhook_id === w2 && d.ended_at_ms === null)).toBe(true);
    expect(webhookStore(world).deliveryList.every((d) => d.ended_at_ms === null || d.ended_at_ms >= world.sim.now_ms() - HOUR)).toBe(true);
    // Still retrying (72 h window): kept, with its attempts.
    const retrying = (await s.api('GET', `/webhooks/${w2}/deliveries?limit=10`)).body.deliveries as Array<{ status: string }>;
    expect(retrying.length).toBeGreaterThanOrEqual(1);
    expect(retrying.some((d) => d.status === 'pending')).toBe(true);
    // The events stay: the setup's, the first account's (created, 5 wallets) and the trigger's.
    expect((await feed(s)).length).toBe(events + 7);
    expect(retentionState(world).events_swept).toBe(0);
    expect((await s.invariants()).violations).toEqual([]);
  });

  it('a delivery still retrying when its event is swept goes with it: its retries stop', async () => {
    const s = await sim({ event_retention_ms: HOUR, webhook_delivery_retention_ms: 30 * 24 * HOUR });
    const world = s.running.runtime.world;
    const rx = opened(await startReceiver());
    rx.answer = () => 500;
    const webhook_id = (await s.api('POST', '/webhooks', { body: { url: rx.url } })).body.webhook.webhook_id;
    expect((await s.api('POST', '/accounts', { body: {} })).status).toBe(200);
    await s.advance(1);
    const first = rx.received.length;
    expect(first).toBeGreaterThanOrEqual(1);
    await s.advance(2 * HOUR);
    const during = rx.received.length;
    expect((await s.api('POST', '/accounts', { body: {} })).status).toBe(200);
    await s.advance(1);
    const mine = (await deliveries(s, webhook_id)) as Array<{ event_id: string }>;
    const live = new Set((await feed(s)).map((e) => e.event_id));
    expect(mine.every((d) => live.has(d.event_id))).toBe(true);
    // The old delivery's retries (it would retry for 72 h) never go out again: only the new event's do.
    const swept = new Set(
      rx.received
        .slice(0, during)
        .map((r) => r.body.event_id)
        .filter((id) => !live.has(id)),
    );
    expect(swept.size).toBeGreaterThanOrEqual(1);
    const afterSweep = rx.received.length;
    await s.advance(24 * HOUR);
    const newOnes = rx.received.slice(afterSweep).map((r) => r.body.event_id);
    expect(newOnes.length).toBeGreaterThan(0);
    expect(newOnes.filter((id) => swept.has(id))).toEqual([]);
    expect(during).toBeGreaterThan(first);
    expect(world.sim.scheduler.pending()).toBeLessThan(10);
    expect((await s.invariants()).violations).toEqual([]);
  });

  it('the same inputs sweep the same way: two runs give the same feed and counts', async () => {
    const run = async () => {
      const s = await sim({ event_retention_ms: 2 * HOUR, webhook_delivery_retention_ms: HOUR });
      await tradeWithDeliveries(s);
      await s.advance(3 * HOUR);
      await s.api('POST', '/accounts', { body: { label: 'x' } });
      return { feed: await feed(s), state: retentionState(s.running.runtime.world) };
    };
    const a = await run();
    const b = await run();
    expect(b).toEqual(a);
  });
});
