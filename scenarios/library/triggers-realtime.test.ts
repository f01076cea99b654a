// Triggers on a realtime clock (speed 20), on a real server with the app's receiver registered: short steps
// are waited for in wall time, long ones (the reorg's 30 s, the 11 min OTP expiry, the 73 h outage) jumped.
// In the e2e suite: about 12 s of wall time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../fake-provider/server.ts';
import { acceptedEventIds, startReceiver, type Receiver } from '../dsl/webhook-receiver.ts';
import { formatTrigger, request, runTrigger } from '../dsl/index.ts';
import { TRIGGERS } from './index.ts';
import type { ControlBody, V1Body } from '../../lib/api-types.ts';

const receivers: Receiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
});

describe('triggers on a realtime clock (speed 20)', () => {
  let rt: RunningServer;
  beforeAll(async () => {
    rt = await serve({ clock: 'realtime', speed: 20, seed: 'triggers-realtime', port: 0 });
  });
  afterAll(async () => {
    await rt.close();
  });

  const REALTIME = [
    'trade-reorg-out-leg',
    'deposit-partner-flagged',
    'deposit-partner-flag-too-late',
    'zap-expired',
    'recovery-expired-otp',
    'webhook-outage-recovered-from-feed',
    'webhook-duplicate-and-reordered',
    'lose-response-retry-same-key',
  ];
  it.each(REALTIME)(
    '%s',
    async (name) => {
      const s = TRIGGERS.find((x) => x.name === name)!;
      const settings = s.org?.partner_screening ? { partner_screening: true } : {};
      const org = (await request<ControlBody<'POST', '/organizations'>>(`${rt.control_url}/organizations`, 'POST', settings, {})).body
        .organization;
      const receiver = await startReceiver();
      receivers.push(receiver);
      const hook = await request<V1Body<'POST', '/webhooks'>>(
        `${rt.base_url}/webhooks`,
        'POST',
        { url: receiver.url },
        { authorization: `Bearer ${org.api_key}`, 'idempotency-key': 'hook' },
      );
      receiver.secret = hook.body.webhook.secret ?? '';
      const run = await runTrigger(s, { base_url: rt.base_url, api_key: org.api_key });
      if (!run.ok) console.log(formatTrigger(run));
      expect(run.clock_mode).toBe('realtime');
      expect(run.error).toBeUndefined();
      // Deliveries on a realtime clock are answered outside the scheduler: give the last ones a moment.
      for (let i = 0; i < 50 && run.events.some((e) => !acceptedEventIds(receiver).has(e.event_id)); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(run.events.filter((e) => !acceptedEventIds(receiver).has(e.event_id)).map((e) => e.type)).toEqual([]);
    },
    60_000,
  );
});
