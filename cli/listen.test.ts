// `swapsim listen` in process against a real server (ephemeral port): the feed tailed one line an event, the
// --events filter, and --forward-to with a real receiver: the printed secret verifies what it receives, each
// delivery's answer is shown, and on stop the session's webhook is deactivated and the app's own is active again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../fake-provider/server.ts';
import { acceptedEventIds, startReceiver, type Receiver } from '../scenarios/dsl/webhook-receiver.ts';
import { request, runTrigger } from '../scenarios/dsl/index.ts';
import { TRIGGERS } from '../scenarios/library/index.ts';
import { answerOf, startListen } from './listen.ts';
import type { ControlBody, V1Body } from '../lib/api-types.ts';

let server: RunningServer;
const receivers: Receiver[] = [];
beforeAll(async () => {
  server = await serve({ clock: 'virtual', seed: 'listen', port: 0 });
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  await server.close();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

async function org(): Promise<{ api_key: string; get: (path: string) => Promise<any> }> {
  const o = (await request<ControlBody<'POST', '/organizations'>>(`${server.control_url}/organizations`, 'POST', {}, {})).body.organization;
  return {
    api_key: o.api_key,
    get: async (path) => (await request(`${server.base_url}${path}`, 'GET', undefined, { authorization: `Bearer ${o.api_key}` })).body,
  };
}

const trigger = (name: string, api_key: string) =>
  runTrigger(TRIGGERS.find((s) => s.name === name)!, { base_url: server.base_url, api_key });

describe('swapsim listen', () => {
  it('prints an attempt nothing answered as such, never as HTTP 0', () => {
    expect(answerOf(0)).toBe('no answer (timeout or refused)');
    expect(answerOf(503)).toBe('HTTP 503');
  });

  it('tails the feed from now, one line an event with its ids and codes; --events filters', async () => {
    const app = await org();
    await trigger('trade-exact-in', app.api_key); // before the session: not shown
    const all: string[] = [];
    const trades: string[] = [];
    const a = await startListen({ base_url: server.base_url, api_key: app.api_key, interval_ms: 60_000, print: (l) => all.push(l) });
    const b = await startListen({
      base_url: server.base_url,
      api_key: app.api_key,
      events: 'trade.*',
      interval_ms: 60_000,
      print: (l) => trades.push(l),
    });
    const run = await trigger('trade-fails-execution-failed', app.api_key);
    await a.poll();
    await b.poll();
    await a.stop();
    await b.stop();
    const trade_id = run.ids.trade[0];
    const eventLines = (lines: string[]) => lines.filter((l) => / evt_/.test(l));
    expect(eventLines(all).length).toBe(run.events.length);
    expect(eventLines(all).every((l, i) => l.includes(run.events[i].type) && l.includes(run.events[i].event_id))).toBe(true);
    expect(
      all.some(
        (l) =>
          l.includes('trade.failed') &&
          l.includes(trade_id) &&
          l.includes('failure_code=execution_failed') &&
          l.includes(`account=${run.ids.account[0]}`),
      ),
    ).toBe(true);
    expect(eventLines(trades).map((l) => l.split(/\s+/)[2])).toEqual(['trade.executing', 'trade.failed']);
  });

  it('--forward-to registers a webhook for the session, prints its secret and each answer, and hands back the app’s webhook on exit', async () => {
    const app = await org();
    const own = await receiver();
    const hook = (
      await request<V1Body<'POST', '/webhooks'>>(
        `${server.base_url}/webhooks`,
        'POST',
        { url: own.url },
        { authorization: `Bearer ${app.api_key}`, 'idempotency-key': 'own' },
      )
    ).body.webhook;
    own.secret = hook.secret ?? '';
    const forward = await receiver();
    // The forwarded-to app refuses trade.filled once (a 500), so an answer that is not 2xx shows too.
    let refused = false;
    forward.answer = (r) => {
      if (!r.signature_valid) return 401;
      if (r.body.type !== 'trade.filled' || refused) return 200;
      refused = true;
      return 500;
    };
    const lines: string[] = [];
    const session = await startListen({
      base_url: server.base_url,
      api_key: app.api_key,
      forward_to: forward.url,
      interval_ms: 60_000,
      print: (l) => lines.push(l),
    });
    const secret_line = lines.find((l) => l.startsWith('signing secret: '));
    expect(secret_line).toBe(`signing secret: ${session.webhook!.secret}`);
    expect(session.webhook!.replaced?.webhook_id).toBe(hook.webhook_id);
    forward.secret = session.webhook!.secret;
    const run = await trigger('trade-exact-in', app.api_key);
    await session.poll();
    // The refused trade.filled is retried 30 s later: the next round shows that answer too.
    await request(`${server.control_url}/clock/advance`, 'POST', { ms: 60_000 }, {});
    await session.poll();
    // The forward target got every event of the run, each signed with the printed secret; the app's own webhook none.
    const accepted = acceptedEventIds(forward);
    expect(run.events.filter((e) => !accepted.has(e.event_id)).map((e) => e.type)).toEqual([]);
    expect(forward.received.every((r) => r.signature_valid)).toBe(true);
    expect(own.received.filter((r) => run.events.some((e) => e.event_id === r.event_id))).toEqual([]);
    const deliveries = (await app.get(`/webhooks/${session.webhook!.webhook_id}/deliveries?limit=100`)).deliveries;
    for (const d of deliveries)
      expect(
        lines.some((l) => l.includes(d.delivery_id) && l.includes(`${answerOf(d.http_status)} ${d.status}`)),
        d.delivery_id,
      ).toBe(true);
    expect(lines.some((l) => l.includes('trade.filled') && l.includes('HTTP 500 pending, retry at'))).toBe(true);
    expect(lines.some((l) => l.includes('trade.filled') && l.includes('HTTP 200 success'))).toBe(true);

    await session.stop();
    const hooks = (await app.get('/webhooks')).webhooks;
    expect(hooks.map((w: any) => [w.webhook_id, w.active])).toEqual([
      [hook.webhook_id, true],
      [session.webhook!.webhook_id, false],
    ]);
    expect(lines.at(-1)).toContain(`POST /v1/webhooks/${hook.webhook_id}/replay`);
    // After the session the app's own webhook gets the events again, the forward target none.
    const before = forward.received.length;
    const after = await trigger('deposit-flagged-sanctions-match', app.api_key);
    expect(after.events.every((e) => acceptedEventIds(own).has(e.event_id))).toBe(true);
    expect(forward.received.length).toBe(before);
  });

  it('refuses a key the server does not know, and a forward URL the API refuses, changing nothing', async () => {
    const app = await org();
    await expect(startListen({ base_url: server.base_url, api_key: 'sk_nobody', print: () => undefined })).rejects.toThrow(/401/);
    await expect(
      startListen({ base_url: server.base_url, api_key: app.api_key, forward_to: 'not a url', print: () => undefined }),
    ).rejects.toThrow(/registering a webhook/);
    expect((await app.get('/webhooks')).webhooks).toEqual([]);
  });
});
