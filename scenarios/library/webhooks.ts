// Webhooks as an integrator's receiver sees them (a real endpoint that checks every signature): an outage
// longer than the 72 h retry window recovered from the feed and replay, duplicate and reordered
// deliveries, and a secret rotation.
import type { Scenario, ScenarioDsl } from '../dsl/index.ts';
import { ETH, HALF_ETH, ofType, USDC } from '../dsl/index.ts';
import { acceptedEventIds, verify, type Received } from '../../fake-provider/testing/webhook-receiver.ts';
import { funded } from './common.ts';

/** A settled trade on a funded account; returns its id and account. */
async function settledTrade(t: ScenarioDsl): Promise<{ account_id: string; trade_id: string }> {
  const f = await funded(t);
  const { trade_id } = await t.trade({ ...f, from: ETH, to: USDC, amount_in_atoms: HALF_ETH });
  await t.poll('trade', trade_id);
  return { account_id: f.account_id, trade_id };
}

const tradeDeliveries = (received: Received[], trade_id: string): Received[] => received.filter((r) => r.body.type.startsWith('trade.') && r.body.data.trade_id === trade_id);

export const webhookScenarios: Scenario[] = [
  {
    name: 'webhook-outage-recovered-from-feed',
    summary: 'The receiver is down for 73 h: deliveries are retried for 72 h then given up; the events are still in GET /events and a replay delivers them',
    tags: ['webhook', 'outage', 'feed'],
    async run(t) {
      const hook = await t.webhook();
      hook.receiver.answer = () => 503;
      const { account_id, trade_id } = await settledTrade(t);
      await t.settle();
      await t.advance('1h');
      const [settled] = ofType(await t.events({ account_id, types: 'trade.settled' }), 'trade.settled');
      await t.expect('trade.settled is in the feed', settled?.data.trade_id === trade_id);
      const deliveries = (await t.call('GET', `/webhooks/${hook.webhook_id}/deliveries?event_id=${settled.event_id}`)).body.deliveries;
      t.expectEqual('its delivery was given up (failed, no retry due)', deliveries.map((d: any) => [d.status, d.next_retry_at_ms]), [['failed', null]]);
      const attempts = hook.receiver.received.filter((r) => r.event_id === settled.event_id);
      await t.expect('it was attempted several times within 72 h', attempts.length > 3 && attempts.at(-1)!.timestamp_ms - attempts[0].timestamp_ms <= 72 * 3_600_000, `${attempts.length} attempts`);
      await t.expect('the receiver never accepted it', !acceptedEventIds(hook.receiver).has(settled.event_id));
      hook.receiver.answer = (r) => (r.signature_valid ? 200 : 401);
      await t.advance('1h');
      await t.expect('nothing is retried once the window has passed', !acceptedEventIds(hook.receiver).has(settled.event_id));
      const replay = await t.call('POST', `/webhooks/${hook.webhook_id}/replay`, { body: { since_ms: t.started_ms, types: ['trade.*'] }, idem: null });
      t.expectHttp('replay scheduled', replay, 200);
      await t.settle();
      const accepted = acceptedEventIds(hook.receiver);
      const tradeEvents = await t.events({ account_id, types: 'trade.*' });
      await t.expect('after replay every trade event was accepted', tradeEvents.every((e) => accepted.has(e.event_id)), `${tradeEvents.filter((e) => !accepted.has(e.event_id)).map((e) => e.type)}`);
      await t.expectInvariants();
    },
  },
  {
    name: 'webhook-duplicate-and-reordered',
    summary: 'trade.filled is delivered twice and trade.executing is held back past it: same event_id twice, executing after filled; deduped, the trade events are whole',
    tags: ['webhook', 'fault', 'ordering'],
    async run(t) {
      const hook = await t.webhook();
      await t.fault({ target: 'webhook', effect: { webhook: 'duplicate' }, match: { event_type: 'trade.filled' }, times: 1 });
      await t.fault({ target: 'webhook', effect: { webhook: 'reorder' }, match: { event_type: 'trade.executing' }, times: 1 });
      const { trade_id } = await settledTrade(t);
      await t.settle();
      const got = tradeDeliveries(hook.receiver.received, trade_id);
      const types = got.map((r) => r.body.type);
      const filled = got.filter((r) => r.body.type === 'trade.filled');
      t.expectEqual('trade.filled arrived twice, with one event_id', [filled.length, new Set(filled.map((r) => r.event_id)).size], [2, 1]);
      await t.expect('trade.executing arrived after trade.filled', types.indexOf('trade.executing') > types.indexOf('trade.filled'), types.join(' → '));
      await t.expect('every copy is correctly signed', got.every((r) => r.signature_valid));
      const deduped = [...new Map(got.map((r) => [r.event_id, r.body.type])).values()].sort();
      t.expectEqual('deduped by event_id', deduped, ['trade.executing', 'trade.filled', 'trade.pending_settle', 'trade.settled']);
      await t.expectInvariants();
    },
  },
  {
    name: 'webhook-secret-rotation',
    summary: 'After rotate-secret only the new secret signs: a receiver still on the old one answers 401 and the retries succeed once it switches',
    tags: ['webhook', 'signature'],
    async run(t) {
      const hook = await t.webhook();
      const account_id = await t.account();
      await t.settle();
      await t.expect('deliveries before rotation verify with the first secret', hook.receiver.received.length > 0 && hook.receiver.received.every((r) => r.signature_valid));
      const old_secret = hook.secret;
      const rotated = await t.call('POST', `/webhooks/${hook.webhook_id}/rotate-secret`, { idem: null });
      t.expectHttp('rotated', rotated, 200);
      const new_secret = rotated.body.webhook.secret ?? '';
      await t.expect('a new secret', new_secret.length > 0 && new_secret !== old_secret);
      const before = hook.receiver.received.length;
      await t.call('POST', `/accounts/${account_id}/deactivate`);
      await t.advance('1s');
      const after = hook.receiver.received.slice(before);
      await t.expect('the receiver on the old secret refuses the new deliveries', after.length > 0 && after.every((r) => !r.signature_valid && r.answered === 401));
      await t.expect('they verify with the new secret', after.every((r) => verify(new_secret, String(r.timestamp_ms), r.raw, r.headers['svc-signature'])));
      hook.receiver.secret = new_secret;
      await t.settle();
      const [deactivated] = await t.events({ account_id, types: 'account.deactivated' });
      await t.expect('the retry of account.deactivated was accepted', acceptedEventIds(hook.receiver).has(deactivated.event_id));
      const deliveries = (await t.call('GET', `/webhooks/${hook.webhook_id}/deliveries?event_id=${deactivated.event_id}`)).body.deliveries;
      t.expectEqual('delivery succeeded', deliveries.map((d: any) => d.status), ['success']);
    },
  },
];
