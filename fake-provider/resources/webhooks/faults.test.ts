// Webhook fault effects, each observed at a real receiver: drop, duplicate, reorder, bad_signature and
// delay_ms, matched by ids, event_type wildcards and account_id; firings show in GET /_sim/faults.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { publish } from '../../engine/index.ts';
import { startReceiver, type Receiver } from '../../../scenarios/dsl/webhook-receiver.ts';

let sim: TestSim;
const receivers: Receiver[] = [];
beforeAll(async () => {
  sim = await startTestSim();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await sim.close();
});

async function setup() {
  const org = await sim.newOrg();
  const rx = await startReceiver('', 'Svc', () => sim.running.runtime.world.sim.now_ms());
  receivers.push(rx);
  const webhook = (await sim.api('POST', '/webhooks', { key: org.api_key, body: { url: rx.url } })).body.webhook;
  rx.secret = webhook.secret;
  return {
    rx,
    webhook,
    deliveries: async (q = '') =>
      (await sim.api('GET', `/webhooks/${webhook.webhook_id}/deliveries${q}`, { key: org.api_key })).body.deliveries,
    emit: (type: string, account_id = 'acct_f') => publish(sim.running.runtime.world, org.organization_id, account_id, type, {}).envelope,
  };
}

async function fault(effect: unknown, match: unknown, times = 1) {
  const r = await sim.control('POST', '/faults', { target: 'webhook', effect, match, times });
  expect(r.status).toBe(200);
  return r.body.fault.fault_id as string;
}

describe('webhook faults', () => {
  it('drop: the receiver sees nothing, the attempt counts as failed (http_status 0), the retry delivers', async () => {
    const t = await setup();
    const e = t.emit('test.dropped');
    const fault_id = await fault({ webhook: 'drop' }, { ids: [e.event_id] });
    await sim.advance(0);
    expect(t.rx.received).toHaveLength(0);
    expect(await t.deliveries()).toEqual([
      expect.objectContaining({
        status: 'pending',
        http_status: 0,
        attempted_at_ms: e.created_at_ms,
        next_retry_at_ms: e.created_at_ms + 30_000,
      }),
    ]);
    await sim.advance(30_000);
    expect(t.rx.received.map((r) => [r.event_id, r.received_at_ms - e.created_at_ms])).toEqual([[e.event_id, 30_000]]);
    expect((await t.deliveries())[0]).toMatchObject({ status: 'success', http_status: 200 });
    const fired = (await sim.control('GET', '/faults')).body.fired;
    expect(fired.filter((f: any) => f.fault_id === fault_id)).toHaveLength(1);
  });

  it('duplicate: the same signed request arrives twice', async () => {
    const t = await setup();
    const e = t.emit('test.duplicated');
    await fault({ webhook: 'duplicate' }, { ids: [t.webhook.webhook_id] });
    await sim.advance(0);
    expect(t.rx.received).toHaveLength(2);
    const [a, b] = t.rx.received;
    expect(b.raw).toBe(a.raw);
    expect(b.headers['svc-signature']).toBe(a.headers['svc-signature']);
    expect([b.delivery_id, b.timestamp_ms, b.event_id]).toEqual([a.delivery_id, a.timestamp_ms, e.event_id]);
    expect(a.signature_valid && b.signature_valid).toBe(true);
    expect(await t.deliveries()).toEqual([expect.objectContaining({ status: 'success', http_status: 200 })]);
  });

  it('reorder: the delivery is overtaken by the next one due for the same webhook', async () => {
    const t = await setup();
    const first = t.emit('test.first');
    const second = t.emit('test.second');
    await fault({ webhook: 'reorder' }, { ids: [first.event_id] });
    await sim.advance(0);
    expect(t.rx.received.map((r) => r.event_id)).toEqual([second.event_id]);
    await sim.advance(5_000);
    expect(t.rx.received.map((r) => r.event_id)).toEqual([second.event_id, first.event_id]);
    expect(t.rx.received[1].received_at_ms).toBe(first.created_at_ms + 5_000);
    expect(t.rx.received.every((r) => r.signature_valid)).toBe(true);
  });

  it('bad_signature: the receiver answers 401, the retry is signed correctly and succeeds', async () => {
    const t = await setup();
    const e = t.emit('test.forged');
    await fault({ webhook: 'bad_signature' }, { event_type: 'test.forged' });
    await sim.advance(0);
    expect(t.rx.received.map((r) => [r.signature_valid, r.answered])).toEqual([[false, 401]]);
    expect((await t.deliveries())[0]).toMatchObject({ status: 'pending', http_status: 401, next_retry_at_ms: e.created_at_ms + 30_000 });
    await sim.advance(30_000);
    expect(t.rx.received.map((r) => [r.signature_valid, r.answered])).toEqual([
      [false, 401],
      [true, 200],
    ]);
    expect((await t.deliveries())[0]).toMatchObject({ status: 'success', http_status: 200 });
  });

  it('delay_ms: the attempt goes out that much later, not before', async () => {
    const t = await setup();
    const e = t.emit('test.delayed');
    await fault({ delay_ms: 60_000 }, { ids: [e.event_id] });
    await sim.advance(59_999);
    expect(t.rx.received).toHaveLength(0);
    // A postponed first attempt is not a retry: nothing attempted yet.
    expect((await t.deliveries())[0]).toMatchObject({ status: 'pending', attempted_at_ms: null, next_retry_at_ms: null, http_status: 0 });
    await sim.advance(1);
    expect(t.rx.received.map((r) => r.received_at_ms - e.created_at_ms)).toEqual([60_000]);
  });

  it('matches event_type wildcards and account_id, and leaves other events alone', async () => {
    const t = await setup();
    await fault({ webhook: 'drop' }, { event_type: 'test.*', account_id: 'acct_target' }, 5);
    const hit = t.emit('test.hit', 'acct_target');
    const otherAccount = t.emit('test.other_account', 'acct_else');
    const otherType = t.emit('sample.other_type', 'acct_target');
    await sim.advance(0);
    expect(t.rx.received.map((r) => r.event_id)).toEqual([otherAccount.event_id, otherType.event_id]);
    expect((await t.deliveries(`?event_id=${hit.event_id}`))[0]).toMatchObject({ status: 'pending', http_status: 0 });
  });

  it('keeps every invariant', async () => {
    for (const f of (await sim.control('GET', '/faults')).body.faults) await sim.control('DELETE', `/faults/${f.fault_id}`);
    await sim.settle();
    expect(await sim.invariants()).toMatchObject({ ok: true, violations: [] });
  });
});
