// What must hold over webhooks and deliveries: one active webhook per org, every delivery's event exists
// in its org, success means a 2xx answer, and nothing is attempted or scheduled once a delivery has ended.
import type { World } from '../../world.ts';
import type { Violation } from '../../resource.ts';
import { deliveryState, deliveryStatus, webhookStore } from './model.ts';

export function webhookInvariants(world: World): Violation[] {
  const out: Violation[] = [];
  const store = webhookStore(world);
  const activeByOrg = new Map<string, number>();
  for (const w of store.list) if (w.active) activeByOrg.set(w.org_id, (activeByOrg.get(w.org_id) ?? 0) + 1);
  for (const [org_id, n] of activeByOrg) {
    if (n > 1) out.push({ invariant: 'webhooks.one_active_per_org', entity_id: org_id, message: `${n} active webhooks` });
  }
  for (const d of store.deliveryList) {
    const v = (invariant: string, message: string): void =>
      void out.push({ invariant: `webhooks.${invariant}`, entity_id: d.delivery_id, message });
    const event = world.events.byId.get(d.event_id);
    if (!event) v('delivery_event_exists', `event ${d.event_id} does not exist`);
    else if (event.org_id !== d.org_id) v('delivery_same_org', `event ${d.event_id} belongs to another organization`);
    if (store.byId.get(d.webhook_id)?.org_id !== d.org_id)
      v('delivery_same_org', `webhook ${d.webhook_id} belongs to another organization`);
    const ctx = d.snapshot.context;
    if (deliveryStatus(d) === 'success' && !(ctx.http_status >= 200 && ctx.http_status <= 299))
      v('success_is_2xx', `success with http_status ${ctx.http_status}`);
    if (d.attempt_log.length !== ctx.attempts)
      v('attempts_recorded', `${d.attempt_log.length} attempts logged, machine counted ${ctx.attempts}`);
    const state = deliveryState(d);
    if (state === 'succeeded' || state === 'exhausted') {
      if (d.task_id !== null) v('no_attempt_after_end', 'an attempt is still scheduled after the delivery ended');
      if (d.ended_at_ms === null || d.attempt_log.some((a) => a.at_ms > d.ended_at_ms!))
        v('no_attempt_after_end', 'an attempt was made after the delivery ended');
    }
  }
  return out;
}
