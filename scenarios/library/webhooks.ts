// Webhooks as an integrator's receiver sees them: an outage longer than the 72 h retry window recovered from
// the feed and replay, duplicate and reordered deliveries, and a secret rotation. In an organization made for
// the case the receiver is a real signature-checking endpoint; as a trigger it is the app's own webhook.
import type { Scenario, ScenarioDsl } from '../dsl/index.ts';
import { ETH, HALF_ETH, ofType, USDC } from '../dsl/index.ts';
import { acceptedEventIds, verify, type Received } from '../dsl/webhook-receiver.ts';
import { funded } from './common.ts';

interface Attempt {
  event_id: string;
  sim_ms: number;
  detail: string;
  ok: boolean;
}

/** The delivery attempts of the events naming `entity_id`, from the control plane's timeline, oldest first. */
async function attemptsFor(t: ScenarioDsl, entity_id: string): Promise<Attempt[]> {
  const r = await t.sim('GET', `/timeline?entity_id=${encodeURIComponent(entity_id)}`);
  return (r.body?.timeline ?? [])
    .filter((e) => e.kind === 'delivery')
    .map((e) => ({ event_id: String(e.detail).split(' ')[0], sim_ms: e.sim_ms, detail: String(e.detail), ok: e.ok === true }));
}

const tradeDeliveries = (received: Received[], trade_id: string): Received[] =>
  received.filter((r) => r.body.type.startsWith('trade.') && r.body.data.trade_id === trade_id);

export const webhookScenarios: Scenario[] = [
  {
    name: 'webhook-outage-recovered-from-feed',
    summary:
      "The webhook is unreachable for 73 h (every attempt for the trade's account dropped): deliveries are retried for 72 h then given up; the events are still in GET /events and a replay delivers them",
    tags: ['webhook', 'outage', 'feed'],
    async run(t) {
      const hook = await t.orgWebhook();
      const f = await funded(t);
      // An outage of the endpoint as the provider sees it: no attempt reaches it. Scoped to this case's
      // account, so the rest of a shared organization's traffic still arrives.
      const down = await t.fault({
        target: 'webhook',
        effect: { webhook: 'drop' },
        match: { ids: [hook.webhook_id], account_id: f.account_id },
      });
      const outage_ms = await t.clockNow();
      const { trade_id } = await t.trade({ ...f, from: ETH, to: USDC, amount_in_atoms: HALF_ETH });
      await t.poll('trade', trade_id);
      await t.advance('73h');
      const [settled] = ofType(await t.events({ account_id: f.account_id, types: 'trade.settled' }), 'trade.settled');
      await t.expect('trade.settled is in the feed', settled?.data.trade_id === trade_id);
      const deliveries = (await t.call('GET', `/webhooks/${hook.webhook_id}/deliveries?event_id=${settled.event_id}`)).body.deliveries;
      t.expectEqual(
        'its delivery was given up (failed, no retry due)',
        deliveries.map((d: any) => [d.status, d.next_retry_at_ms]),
        [['failed', null]],
      );
      const attempts = (await attemptsFor(t, trade_id)).filter((a) => a.event_id === settled.event_id);
      await t.expect(
        'it was attempted several times within 72 h, none answered',
        attempts.length > 3 && attempts.at(-1)!.sim_ms - attempts[0].sim_ms <= 72 * 3_600_000 && attempts.every((a) => !a.ok),
        `${attempts.length} attempts`,
      );
      if (hook.receiver) await t.expect('the receiver never got it', !hook.receiver.received.some((r) => r.event_id === settled.event_id));
      await t.unfault(down);
      await t.advance('1h');
      t.expectEqual(
        'nothing is retried once the window has passed',
        (await attemptsFor(t, trade_id)).filter((a) => a.event_id === settled.event_id).length,
        attempts.length,
      );
      // What the outage swallowed: the trade's events and the credits its settlement made.
      const replay = await t.call('POST', `/webhooks/${hook.webhook_id}/replay`, {
        body: { since_ms: outage_ms, types: ['trade.*', 'credit.*'] },
        idem: null,
      });
      t.expectHttp('replay scheduled', replay, 200);
      const missed = await t.events({ account_id: f.account_id, types: 'trade.*,credit.*', since_ms: outage_ms });
      let delivered = new Set<string>();
      await t.until(async () => {
        delivered = new Set((await attemptsFor(t, f.account_id)).filter((a) => a.ok).map((a) => a.event_id));
        return missed.every((e) => delivered.has(e.event_id));
      }, '1m');
      await t.expect(
        'after replay every trade and credit event of the outage was delivered (2xx)',
        missed.length >= 5 && missed.every((e) => delivered.has(e.event_id)),
        `${missed.filter((e) => !delivered.has(e.event_id)).map((e) => e.type)}`,
      );
      if (hook.receiver) {
        const accepted = acceptedEventIds(hook.receiver);
        await t.expect(
          'the receiver accepted every one',
          missed.every((e) => accepted.has(e.event_id)),
        );
      }
      await t.expectInvariants();
    },
  },
  {
    name: 'webhook-duplicate-and-reordered',
    summary:
      'trade.filled is delivered twice and trade.executing is held back past it: same event_id twice, executing after filled; deduped, the trade events are whole',
    tags: ['webhook', 'fault', 'ordering'],
    async run(t) {
      const hook = await t.orgWebhook();
      const f = await funded(t);
      await t.fault({
        target: 'webhook',
        effect: { webhook: 'duplicate' },
        match: { event_type: 'trade.filled', account_id: f.account_id },
        times: 1,
      });
      await t.fault({
        target: 'webhook',
        effect: { webhook: 'reorder' },
        match: { event_type: 'trade.executing', account_id: f.account_id },
        times: 1,
      });
      const { trade_id } = await t.trade({ ...f, from: ETH, to: USDC, amount_in_atoms: HALF_ETH });
      await t.poll('trade', trade_id);
      await t.advance('1m');
      const events = await t.events({ account_id: f.account_id, types: 'trade.*' });
      const byType = new Map(events.map((e) => [e.type, e]));
      t.expectEqual(
        'the feed has the four trade events once each',
        events.map((e) => e.type),
        ['trade.executing', 'trade.filled', 'trade.pending_settle', 'trade.settled'],
      );
      const attempts = await attemptsFor(t, trade_id);
      const filled = attempts.filter((a) => a.event_id === byType.get('trade.filled')?.event_id);
      const executing = attempts.filter((a) => a.event_id === byType.get('trade.executing')?.event_id);
      await t.expect(
        'trade.filled went out as two copies of one request',
        filled.some((a) => a.detail.includes('(2 sent, duplicate)')),
        filled.map((a) => a.detail).join('; '),
      );
      await t.expect(
        'trade.executing went out after trade.filled',
        executing.length > 0 && filled.length > 0 && executing[0].sim_ms > filled[0].sim_ms,
        `executing at ${executing[0]?.sim_ms}, filled at ${filled[0]?.sim_ms}`,
      );
      if (hook.receiver) {
        const got = tradeDeliveries(hook.receiver.received, trade_id);
        const types = got.map((r) => r.body.type);
        const copies = got.filter((r) => r.body.type === 'trade.filled');
        t.expectEqual(
          'trade.filled arrived twice, with one event_id',
          [copies.length, new Set(copies.map((r) => r.event_id)).size],
          [2, 1],
        );
        await t.expect(
          'trade.executing arrived after trade.filled',
          types.indexOf('trade.executing') > types.indexOf('trade.filled'),
          types.join(' → '),
        );
        await t.expect(
          'every copy is correctly signed',
          got.every((r) => r.signature_valid),
        );
        const deduped = [...new Map(got.map((r) => [r.event_id, r.body.type])).values()].sort();
        t.expectEqual('deduped by event_id', deduped, ['trade.executing', 'trade.filled', 'trade.pending_settle', 'trade.settled']);
      }
      await t.expectInvariants();
    },
  },
  {
    name: 'webhook-secret-rotation',
    summary:
      'After rotate-secret only the new secret signs: a receiver still on the old one answers 401 and the retries succeed once it switches',
    tags: ['webhook', 'signature'],
    trigger: { unavailable: "it rotates the webhook's secret, which would lock your app out until you deploy the new one" },
    async run(t) {
      const hook = await t.webhook();
      const account_id = await t.account();
      await t.settle();
      await t.expect(
        'deliveries before rotation verify with the first secret',
        hook.receiver.received.length > 0 && hook.receiver.received.every((r) => r.signature_valid),
      );
      const old_secret = hook.secret;
      const rotated = await t.call('POST', `/webhooks/${hook.webhook_id}/rotate-secret`, { idem: null });
      t.expectHttp('rotated', rotated, 200);
      const new_secret = rotated.body.webhook.secret ?? '';
      await t.expect('a new secret', new_secret.length > 0 && new_secret !== old_secret);
      const before = hook.receiver.received.length;
      await t.call('POST', `/accounts/${account_id}/deactivate`);
      await t.advance('1s');
      const after = hook.receiver.received.slice(before);
      await t.expect(
        'the receiver on the old secret refuses the new deliveries',
        after.length > 0 && after.every((r) => !r.signature_valid && r.answered === 401),
      );
      await t.expect(
        'they verify with the new secret',
        after.every((r) => verify(new_secret, String(r.timestamp_ms), r.raw, r.headers['svc-signature'])),
      );
      hook.receiver.secret = new_secret;
      await t.settle();
      const [deactivated] = await t.events({ account_id, types: 'account.deactivated' });
      await t.expect('the retry of account.deactivated was accepted', acceptedEventIds(hook.receiver).has(deactivated.event_id));
      const deliveries = (await t.call('GET', `/webhooks/${hook.webhook_id}/deliveries?event_id=${deactivated.event_id}`)).body.deliveries;
      t.expectEqual(
        'delivery succeeded',
        deliveries.map((d: any) => d.status),
        ['success'],
      );
    },
  },
];
