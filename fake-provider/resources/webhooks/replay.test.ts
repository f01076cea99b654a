// Webhooks over real HTTP with a real receiver: replay of past events, the deliveries list, and the profile
// settings (callbacks during a delivery, inactive webhooks keeping retries, the signature header prefix).
// Directly published events use types outside the spec's namespaces so other resources' invariants ignore them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { publish } from '../../engine/index.ts';
import { DEFAULT_PROFILE } from '../../profile.ts';
import { webhookFixtures } from '../../testing/fixtures/webhooks.ts';
import { startReceiver } from '../../../scenarios/dsl/webhook-receiver.ts';

let sim: TestSim;
const { receivers, setup, closeReceivers } = webhookFixtures(() => sim);
beforeAll(async () => {
  sim = await startTestSim();
});
afterAll(async () => {
  await closeReceivers();
  await sim.close();
});

describe('replay', () => {
  it('delivers the matching events since since_ms again, in publication order, with new delivery ids', async () => {
    const t = await setup();
    const e1 = t.emit('test.settled', { trade_id: 'trd_1' });
    await sim.advance(1_000);
    const e2 = t.emit('sample.settled', { zap_id: 'zap_1' });
    const e3 = t.emit('test.failed', { trade_id: 'trd_2' });
    const e4 = t.emit('other.deactivated', {});
    await sim.advance(0);
    expect(t.rx.received.map((r) => r.event_id)).toEqual([e1, e2, e3, e4].map((e) => e.event_id));
    const r = await t.api('POST', `/webhooks/${t.webhook.webhook_id}/replay`, {
      since_ms: e2.created_at_ms,
      types: ['test.*', 'other.deactivated'],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ request_id: expect.any(String), status: 'scheduled' });
    await sim.advance(0);
    const again = t.rx.received.slice(4);
    expect(again.map((x) => x.event_id)).toEqual([e3.event_id, e4.event_id]);
    expect(again.every((x) => x.signature_valid)).toBe(true);
    const firstIds = new Set(t.rx.received.slice(0, 4).map((x) => x.delivery_id));
    expect(again.some((x) => firstIds.has(x.delivery_id))).toBe(false);
    const forE3 = (await t.api('GET', `/webhooks/${t.webhook.webhook_id}/deliveries?event_id=${e3.event_id}`)).body.deliveries;
    expect(forE3).toHaveLength(2);
    expect(forE3.every((d: any) => d.status === 'success')).toBe(true);
    // No types: everything since since_ms.
    await t.api('POST', `/webhooks/${t.webhook.webhook_id}/replay`, { since_ms: 0 });
    await sim.advance(0);
    expect(t.rx.received.slice(6).map((x) => x.event_id)).toEqual([e1, e2, e3, e4].map((e) => e.event_id));
  });

  it('validates the body, refuses an inactive webhook, and 404s unknown ids', async () => {
    const t = await setup();
    const replay = (body: unknown, id = t.webhook.webhook_id) => t.api('POST', `/webhooks/${id}/replay`, body);
    expect((await replay({})).body.error).toMatchObject({ code: 'parameter_missing', param: 'since_ms' });
    expect((await replay({ since_ms: 'yesterday' })).body.error).toMatchObject({ code: 'invalid_parameter', param: 'since_ms' });
    expect((await replay({ since_ms: 1.5 })).body.error).toMatchObject({ code: 'invalid_parameter', param: 'since_ms' });
    expect((await replay({ since_ms: 0, types: 'test.*' })).body.error).toMatchObject({ code: 'invalid_parameter', param: 'types' });
    expect((await replay({ since_ms: 0, types: ['test.*', 'Bad Type'] })).body.error).toMatchObject({
      code: 'invalid_parameter',
      param: 'types.1',
    });
    const unknown = await replay({ since_ms: 0 }, 'wh_nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('webhook_not_found');
    await t.api('PATCH', `/webhooks/${t.webhook.webhook_id}`, { active: false });
    t.emit('test.settled', {});
    const inactive = await replay({ since_ms: 0 });
    expect(inactive.status).toBe(400);
    expect(inactive.body.error).toMatchObject({ code: 'invalid_parameter', param: 'webhook_id' });
    await sim.advance(0);
    expect(t.rx.received).toHaveLength(0);
    expect((await t.api('GET', `/webhooks/${t.webhook.webhook_id}/deliveries`)).body.deliveries).toEqual([]);
  });
});

describe('deliveries list', () => {
  it('filters by status and event_id, pages newest first, and validates its query', async () => {
    const t = await setup();
    const events = [0, 1, 2, 3, 4].map((i) => t.emit('test.credit', { credit_id: `cr_${i}` }));
    const failing = events[2].event_id;
    t.rx.answer = (r) => (r.event_id === failing ? 500 : 200);
    await sim.advance(0);
    const path = `/webhooks/${t.webhook.webhook_id}/deliveries`;
    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await t.api('GET', `${path}?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.deliveries);
      cursor = r.body.next_cursor;
      expect(r.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen.map((d) => d.event_id)).toEqual(events.map((e) => e.event_id).reverse());
    expect(new Set(seen.map((d) => d.delivery_id)).size).toBe(5);
    expect(
      seen.every((d) => Object.keys(d).sort().join() === 'attempted_at_ms,delivery_id,event_id,http_status,next_retry_at_ms,status'),
    ).toBe(true);
    const byStatus = async (s: string) => (await t.api('GET', `${path}?status=${s}`)).body.deliveries.map((d: any) => d.event_id);
    expect(await byStatus('pending')).toEqual([failing]);
    expect(await byStatus('success')).toHaveLength(4);
    expect(await byStatus('failed')).toEqual([]);
    expect((await t.api('GET', `${path}?event_id=${events[0].event_id}`)).body.deliveries).toHaveLength(1);
    expect((await t.api('GET', `${path}?event_id=evt_none`)).body.deliveries).toEqual([]);
    expect((await t.api('GET', `${path}?status=bogus`)).body.error).toMatchObject({ code: 'invalid_enum', param: 'status' });
    expect((await t.api('GET', `${path}?limit=101`)).body.error).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
    expect((await t.api('GET', `${path}?cursor=junk`)).body.error).toMatchObject({ code: 'invalid_parameter', param: 'cursor' });
    expect((await t.api('GET', '/webhooks/wh_nope/deliveries')).status).toBe(404);
  });
});

describe('profile settings and callbacks', () => {
  it('lets a receiver call the API back while its delivery is in flight', async () => {
    const t = await setup();
    t.rx.answer = async (r) => {
      const feed = await t.api('GET', `/events?types=${r.body.type}`);
      return feed.status === 200 && feed.body.events.some((e: any) => e.event_id === r.event_id) ? 204 : 500;
    };
    const e = t.emit('test.callback', {});
    await sim.advance(0);
    expect(t.rx.received.map((r) => [r.event_id, r.answered])).toEqual([[e.event_id, 204]]);
    expect((await t.api('GET', `/webhooks/${t.webhook.webhook_id}/deliveries`)).body.deliveries[0]).toMatchObject({
      status: 'success',
      http_status: 204,
    });
  });

  it('webhook_inactive_abandons=false: an inactive webhook keeps its retries and accepts replays', async () => {
    const s = await startTestSim({ profile: { ...DEFAULT_PROFILE, webhook_inactive_abandons: false } });
    try {
      const t = await setup(s);
      t.rx.answer = () => (t.rx.received.length === 1 ? 500 : 200);
      const e = t.emit('test.kept', {});
      await s.advance(0);
      await t.api('PATCH', `/webhooks/${t.webhook.webhook_id}`, { active: false });
      await s.advance(30_000);
      expect(t.rx.received.map((r) => [r.event_id, r.answered])).toEqual([
        [e.event_id, 500],
        [e.event_id, 200],
      ]);
      const r = await t.api('POST', `/webhooks/${t.webhook.webhook_id}/replay`, { since_ms: 0 });
      expect(r.body.status).toBe('scheduled');
      await s.advance(0);
      expect(t.rx.received.map((x) => x.event_id)).toEqual([e.event_id, e.event_id, e.event_id]);
      expect(await s.invariants()).toMatchObject({ ok: true });
    } finally {
      await s.close();
    }
  });

  it('signs with the profile header prefix', async () => {
    const s = await startTestSim({ profile: { ...DEFAULT_PROFILE, webhook_header_prefix: 'Acme' } });
    try {
      const org = await s.newOrg();
      const rx = await startReceiver('', 'Acme');
      receivers.push(rx);
      const w = (await s.api('POST', '/webhooks', { key: org.api_key, body: { url: rx.url } })).body.webhook;
      rx.secret = w.secret;
      const e = publish(s.running.runtime.world, org.organization_id, 'acct_p', 'test.prefixed', {}).envelope;
      await s.advance(0);
      expect(rx.received).toHaveLength(1);
      expect(rx.received[0]).toMatchObject({ event_id: e.event_id, webhook_id: w.webhook_id, signature_valid: true });
      expect(rx.received[0].headers['acme-signature']).toMatch(/^v1=/);
      expect(rx.received[0].headers['svc-signature']).toBeUndefined();
    } finally {
      await s.close();
    }
  });
});

describe('invariants', () => {
  it('hold after all of the above', async () => {
    expect(await sim.invariants()).toMatchObject({ ok: true, violations: [] });
  });
});
