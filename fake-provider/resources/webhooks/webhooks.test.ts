// Webhooks over real HTTP with a real receiver: CRUD, one active per org, signed deliveries, retries on the
// sim clock, exhaustion, timeouts, rotation (replay, the deliveries list and profile settings are
// replay.test.ts). Directly published events use types outside the spec's namespaces (test.*, sample.*,
// other.*) so other resources' invariants ignore them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { DEFAULT_PROFILE } from '../../profile.ts';
import { webhookFixtures } from '../../testing/fixtures/webhooks.ts';
import { startReceiver, verify } from '../../../scenarios/dsl/webhook-receiver.ts';

const HOUR = 3_600_000;
let sim: TestSim;
const { receiver, setup, closeReceivers } = webhookFixtures(() => sim);
beforeAll(async () => {
  sim = await startTestSim();
});
afterAll(async () => {
  await closeReceivers();
  await sim.close();
});

describe('webhook CRUD', () => {
  it('creates with a one-time secret, lists without it', async () => {
    const org = await sim.newOrg();
    const r = await sim.api('POST', '/webhooks', { key: org.api_key, body: { url: 'https://example.com/hooks' } });
    expect(r.status).toBe(200);
    expect(r.body.request_id).toMatch(/^req_/);
    expect(r.body.webhook).toMatchObject({
      url: 'https://example.com/hooks',
      active: true,
      created_at_ms: sim.running.runtime.world.sim.now_ms(),
    });
    expect(r.body.webhook.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(Object.keys(r.body.webhook).sort()).toEqual(['active', 'created_at_ms', 'secret', 'url', 'webhook_id']);
    const list = await sim.api('GET', '/webhooks', { key: org.api_key });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(list.body.webhooks).toEqual([
      {
        webhook_id: r.body.webhook.webhook_id,
        url: 'https://example.com/hooks',
        active: true,
        created_at_ms: r.body.webhook.created_at_ms,
      },
    ]);
  });

  it('rejects bad bodies with the right codes and changes nothing', async () => {
    const org = await sim.newOrg();
    const post = (body: unknown) => sim.api('POST', '/webhooks', { key: org.api_key, body });
    expect((await post({})).body.error).toMatchObject({ code: 'parameter_missing', param: 'url', type: 'invalid_request' });
    for (const url of ['not a url', 'ftp://example.com/x', '/relative/path', 'https://', 42]) {
      const r = await post({ url });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_parameter', param: 'url' });
    }
    expect((await post({ url: 'https://example.com', active: 'yes' })).body.error).toMatchObject({
      code: 'invalid_parameter',
      param: 'active',
    });
    expect((await sim.api('GET', '/webhooks', { key: org.api_key })).body.webhooks).toEqual([]);
    expect((await sim.api('GET', '/webhooks?limit=0', { key: org.api_key })).body.error).toMatchObject({
      code: 'invalid_parameter',
      param: 'limit',
    });
  });

  it('keeps at most one active webhook per organization', async () => {
    const org = await sim.newOrg();
    const api = (method: string, path: string, body?: unknown) => sim.api(method, path, { key: org.api_key, body });
    const a = (await api('POST', '/webhooks', { url: 'https://a.example.com/h' })).body.webhook;
    const b = (await api('POST', '/webhooks', { url: 'https://b.example.com/h' })).body.webhook;
    const c = (await api('POST', '/webhooks', { url: 'https://c.example.com/h', active: false })).body.webhook;
    expect(c.active).toBe(false);
    const actives = async () => (await api('GET', '/webhooks')).body.webhooks.filter((w: any) => w.active).map((w: any) => w.webhook_id);
    expect(await actives()).toEqual([b.webhook_id]);
    const p = await api('PATCH', `/webhooks/${a.webhook_id}`, { active: true });
    expect(p.status).toBe(200);
    expect(p.body.webhook).toEqual({
      webhook_id: a.webhook_id,
      url: 'https://a.example.com/h',
      active: true,
      created_at_ms: a.created_at_ms,
    });
    expect(await actives()).toEqual([a.webhook_id]);
    expect((await api('PATCH', `/webhooks/${a.webhook_id}`, { url: 'http://a2.example.com:8080/x' })).body.webhook).toMatchObject({
      url: 'http://a2.example.com:8080/x',
      active: true,
    });
    expect((await api('PATCH', `/webhooks/${a.webhook_id}`, { active: false })).body.webhook.active).toBe(false);
    expect(await actives()).toEqual([]);
    // Other organizations are untouched and cannot see these webhooks.
    const other = await sim.newOrg();
    expect((await sim.api('GET', '/webhooks', { key: other.api_key })).body.webhooks).toEqual([]);
  });

  it('answers PATCH errors: parameter_missing, invalid_parameter, webhook_not_found (unknown and other org)', async () => {
    const org = await sim.newOrg();
    const w = (await sim.api('POST', '/webhooks', { key: org.api_key, body: { url: 'https://example.com/h' } })).body.webhook;
    const patch = (id: string, body: unknown, key = org.api_key) => sim.api('PATCH', `/webhooks/${id}`, { key, body });
    const empty = await patch(w.webhook_id, {});
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('parameter_missing');
    expect((await patch(w.webhook_id, { url: 'nope' })).body.error).toMatchObject({ code: 'invalid_parameter', param: 'url' });
    expect((await patch(w.webhook_id, { active: 1 })).body.error).toMatchObject({ code: 'invalid_parameter', param: 'active' });
    const unknown = await patch('wh_nope', { active: true });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'webhook_not_found', param: 'webhook_id', type: 'invalid_request' });
    const other = await sim.newOrg();
    expect((await patch(w.webhook_id, { active: false }, other.api_key)).status).toBe(404);
    expect((await sim.api('POST', `/webhooks/${w.webhook_id}/rotate-secret`, { key: other.api_key })).body.error.code).toBe(
      'webhook_not_found',
    );
    expect((await sim.api('GET', `/webhooks/${w.webhook_id}/deliveries`, { key: other.api_key })).body.error.code).toBe(
      'webhook_not_found',
    );
    expect((await sim.api('POST', `/webhooks/${w.webhook_id}/replay`, { key: other.api_key, body: { since_ms: 0 } })).body.error.code).toBe(
      'webhook_not_found',
    );
    // Nothing changed.
    expect((await sim.api('GET', '/webhooks', { key: org.api_key })).body.webhooks[0]).toMatchObject({
      url: 'https://example.com/h',
      active: true,
    });
  });

  it('answers 401 without a key', async () => {
    expect((await sim.api('GET', '/webhooks', { key: null })).body.error.code).toBe('unauthorized');
    expect((await sim.api('POST', '/webhooks', { key: null, body: { url: 'https://x.example.com' } })).status).toBe(401);
  });
});

describe('deliveries', () => {
  it('delivers account events, signed, with all five headers, once the clock moves', async () => {
    const t = await setup();
    const acct = (await t.api('POST', '/accounts', {})).body.account;
    expect(t.rx.received).toHaveLength(0); // nothing moves until the clock does
    await sim.advance(0);
    expect(t.rx.received).toHaveLength(1);
    const first = t.rx.received[0];
    for (const h of ['svc-webhook-id', 'svc-event-id', 'svc-delivery-id', 'svc-timestamp', 'svc-signature'])
      expect(first.headers[h]).toBeTruthy();
    expect(first.headers['content-type']).toBe('application/json');
    expect(first.signature_valid).toBe(true);
    expect(first.headers['svc-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(first.webhook_id).toBe(t.webhook.webhook_id);
    const feed = (await t.api('GET', '/events')).body.events;
    expect(feed).toHaveLength(1);
    // The body is the envelope byte for byte as the feed serves it.
    expect(first.raw).toBe(JSON.stringify(feed[0]));
    expect(first.body).toMatchObject({ type: 'account.created', account_id: acct.account_id, event_id: first.event_id });
    expect(first.received_at_ms).toBe(feed[0].created_at_ms);
    const d = (await t.api('GET', `/webhooks/${t.webhook.webhook_id}/deliveries`)).body.deliveries;
    expect(d).toEqual([
      {
        delivery_id: first.delivery_id,
        event_id: first.event_id,
        status: 'success',
        http_status: 200,
        attempted_at_ms: first.received_at_ms,
        next_retry_at_ms: null,
      },
    ]);
    await sim.advance(DEFAULT_PROFILE.wallet_derivation_ms + 1_000);
    const wallets = t.rx.received.filter((r) => r.body.type === 'account.wallet_created');
    expect(wallets).toHaveLength(5);
    expect(wallets.every((r) => r.signature_valid && r.body.account_id === acct.account_id)).toBe(true);
    expect(new Set(t.rx.received.map((r) => r.delivery_id)).size).toBe(6);
  });

  it('retries a 500-answering receiver on the schedule, then succeeds when it recovers', async () => {
    const t = await setup();
    t.rx.answer = () => (t.rx.received.length <= 4 ? 500 : 200);
    const e = t.emit('test.settled', { trade_id: 'trd_1' });
    const t0 = e.created_at_ms;
    await sim.advance(0);
    const list = async () => (await t.api('GET', `/webhooks/${t.webhook.webhook_id}/deliveries`)).body.deliveries;
    expect(await list()).toEqual([
      {
        delivery_id: t.rx.received[0].delivery_id,
        event_id: e.event_id,
        status: 'pending',
        http_status: 500,
        attempted_at_ms: t0,
        next_retry_at_ms: t0 + 30_000,
      },
    ]);
    await sim.advance(2 * HOUR);
    // Schedule 30 s, 2 min, 10 min, 1 h: attempts at 0, 30 s, 2.5 min, 12.5 min, 72.5 min.
    expect(t.rx.received.map((r) => r.received_at_ms - t0)).toEqual([0, 30_000, 150_000, 750_000, 4_350_000]);
    expect(t.rx.received.map((r) => r.answered)).toEqual([500, 500, 500, 500, 200]);
    expect(new Set(t.rx.received.map((r) => r.delivery_id)).size).toBe(1);
    expect(t.rx.received.every((r) => r.signature_valid && r.event_id === e.event_id)).toBe(true);
    expect(await list()).toEqual([
      {
        delivery_id: t.rx.received[0].delivery_id,
        event_id: e.event_id,
        status: 'success',
        http_status: 200,
        attempted_at_ms: t0 + 4_350_000,
        next_retry_at_ms: null,
      },
    ]);
  });

  it('gives up after the 72 h window: status failed, and nothing more is sent', async () => {
    const t = await setup();
    t.rx.answer = () => 503;
    const e = t.emit('sample.failed', { zap_id: 'zap_1', failure_code: 'execution_failed' });
    const t0 = e.created_at_ms;
    await sim.settle();
    const expected = [0];
    for (const delay of DEFAULT_PROFILE.webhook_retry_schedule_ms) expected.push(expected[expected.length - 1] + delay);
    expect(t.rx.received.map((r) => r.received_at_ms - t0)).toEqual(expected);
    expect(expected[expected.length - 1]).toBeLessThanOrEqual(72 * HOUR);
    const d = (await t.api('GET', `/webhooks/${t.webhook.webhook_id}/deliveries?status=failed`)).body.deliveries;
    expect(d).toEqual([
      {
        delivery_id: t.rx.received[0].delivery_id,
        event_id: e.event_id,
        status: 'failed',
        http_status: 503,
        attempted_at_ms: t0 + expected[expected.length - 1],
        next_retry_at_ms: null,
      },
    ]);
    expect((await t.api('GET', `/webhooks/${t.webhook.webhook_id}/deliveries?status=pending`)).body.deliveries).toEqual([]);
    await sim.advance(100 * HOUR);
    expect(t.rx.received).toHaveLength(expected.length);
    // The event stays in the feed for recovery.
    expect((await t.api('GET', '/events')).body.events.map((x: any) => x.event_id)).toEqual([e.event_id]);
  });

  it('counts a refused connection as a failed attempt with http_status 0', async () => {
    const t = await setup();
    const closed = await startReceiver();
    await closed.close();
    await t.api('PATCH', `/webhooks/${t.webhook.webhook_id}`, { url: closed.url });
    const e = t.emit('test.credit', { credit_id: 'cr_1' });
    await sim.advance(0);
    const d = (await t.api('GET', `/webhooks/${t.webhook.webhook_id}/deliveries?event_id=${e.event_id}`)).body.deliveries[0];
    expect(d).toMatchObject({
      status: 'pending',
      http_status: 0,
      attempted_at_ms: e.created_at_ms,
      next_retry_at_ms: e.created_at_ms + 30_000,
    });
    // A fixed url applies to the pending retry.
    await t.api('PATCH', `/webhooks/${t.webhook.webhook_id}`, { url: t.rx.url });
    await sim.advance(30_000);
    expect(t.rx.received.map((r) => r.event_id)).toEqual([e.event_id]);
    expect((await t.api('GET', `/webhooks/${t.webhook.webhook_id}/deliveries?event_id=${e.event_id}`)).body.deliveries[0]).toMatchObject({
      status: 'success',
      http_status: 200,
    });
  });

  it('times out a receiver that hangs (profile webhook_timeout_ms) and retries', async () => {
    const s = await startTestSim({ profile: { ...DEFAULT_PROFILE, webhook_timeout_ms: 200 } });
    try {
      const t = await setup(s);
      t.rx.answer = () => (t.rx.received.length === 1 ? 'hang' : 200);
      const e = t.emit('test.failed', { trade_id: 'trd_h' });
      await s.advance(0);
      expect(t.rx.received).toHaveLength(1);
      const d = (await t.api('GET', `/webhooks/${t.webhook.webhook_id}/deliveries`)).body.deliveries[0];
      expect(d).toMatchObject({ event_id: e.event_id, status: 'pending', http_status: 0, next_retry_at_ms: e.created_at_ms + 30_000 });
      await s.advance(30_000);
      expect(t.rx.received.map((r) => r.answered)).toEqual(['hang', 200]);
      expect((await t.api('GET', `/webhooks/${t.webhook.webhook_id}/deliveries`)).body.deliveries[0].status).toBe('success');
    } finally {
      await s.close();
    }
  });

  it('sends new events to the active webhook only; an inactive webhook gets no retries', async () => {
    const t = await setup();
    t.rx.answer = () => 500;
    const e1 = t.emit('test.executing', { trade_id: 'trd_a' });
    await sim.advance(0);
    expect(t.rx.received.map((r) => r.event_id)).toEqual([e1.event_id]);
    // Creating B deactivates A: A's pending retry is abandoned, B gets the new events.
    const rxB = await receiver();
    const b = (await t.api('POST', '/webhooks', { url: rxB.url })).body.webhook;
    rxB.secret = b.secret;
    const e2 = t.emit('test.filled', { trade_id: 'trd_a' });
    await sim.advance(60_000);
    expect(t.rx.received.map((r) => r.event_id)).toEqual([e1.event_id]);
    expect(rxB.received.map((r) => [r.event_id, r.webhook_id, r.signature_valid])).toEqual([[e2.event_id, b.webhook_id, true]]);
    expect((await t.api('GET', `/webhooks/${t.webhook.webhook_id}/deliveries`)).body.deliveries).toEqual([
      expect.objectContaining({ event_id: e1.event_id, status: 'failed', http_status: 500, next_retry_at_ms: null }),
    ]);
    // Re-activating A switches new events back to A.
    t.rx.answer = () => 200;
    await t.api('PATCH', `/webhooks/${t.webhook.webhook_id}`, { active: true });
    const e3 = t.emit('test.pending_settle', { trade_id: 'trd_a' });
    await sim.advance(0);
    expect(t.rx.received.map((r) => r.event_id)).toEqual([e1.event_id, e3.event_id]);
    expect(rxB.received).toHaveLength(1);
    // No webhook at all: events are only in the feed.
    await t.api('PATCH', `/webhooks/${t.webhook.webhook_id}`, { active: false });
    t.emit('test.settled', { trade_id: 'trd_a' });
    await sim.advance(0);
    expect(t.rx.received).toHaveLength(2);
    expect(rxB.received).toHaveLength(1);
  });

  it('rotate-secret: a new one-time secret, and later deliveries are signed with it only', async () => {
    const t = await setup();
    const old = t.rx.secret;
    const r = await t.api('POST', `/webhooks/${t.webhook.webhook_id}/rotate-secret`);
    expect(r.status).toBe(200);
    expect(r.body.webhook).toMatchObject({ webhook_id: t.webhook.webhook_id, url: t.rx.url, active: true });
    expect(r.body.webhook.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(r.body.webhook.secret).not.toBe(old);
    expect((await t.api('GET', '/webhooks')).body.webhooks[0]).not.toHaveProperty('secret');
    t.rx.secret = r.body.webhook.secret;
    t.emit('test.cancel', { cancel_id: 'can_1', credit_id: 'cr_1' });
    await sim.advance(0);
    const got = t.rx.received[0];
    expect(got.signature_valid).toBe(true);
    expect(verify(old, String(got.timestamp_ms), got.raw, got.headers['svc-signature'])).toBe(false);
    expect((await t.api('POST', '/webhooks/wh_nope/rotate-secret')).status).toBe(404);
  });
});

describe('invariants', () => {
  it('hold after all of the above', async () => {
    expect(await sim.invariants()).toMatchObject({ ok: true, violations: [] });
  });
});
