// What webhooks and deliveries stop holding: a deleted organization's go at once (no attempt of theirs runs
// again), and deliveries past `webhook_delivery_retention_ms` (or whose event was swept) go with their attempt logs.
import type { Organization, World } from '../../world.ts';
import type { ForgetScope } from '../../resource-records.ts';
import { webhookStore, type Delivery } from './model.ts';

/**
 * A deleted organization: its webhooks and deliveries go, no attempt of theirs runs again, and POSTs queued on
 * their lanes are dropped unsent (the answer-slot stagger checks the webhook is still there before sending).
 */
export function forgetOrganizationWebhooks(world: World, org: Organization, scope?: ForgetScope): void {
  const store = webhookStore(world);
  const gone = store.list.filter((w) => w.org_id === org.organization_id);
  if (gone.length === 0) return;
  store.transport.outbox.drop(org.organization_id);
  for (const w of gone) {
    store.byId.delete(w.webhook_id);
    for (const d of store.byWebhook.get(w.webhook_id) ?? []) {
      if (d.task_id !== null) world.sim.scheduler.cancel(d.task_id);
      d.task_id = null;
      store.deliveries.delete(d.delivery_id);
      scope?.gone.add(d.delivery_id);
    }
    store.byWebhook.delete(w.webhook_id);
  }
  store.list = store.list.filter((w) => w.org_id !== org.organization_id);
  store.deliveryList = store.deliveryList.filter((d) => d.org_id !== org.organization_id);
}

/**
 * Retention: drops the deliveries (with their attempt logs) that ended before `ended_before_ms`, and, when
 * the event store has just dropped events (`events_dropped`), every delivery whose event is gone (one still
 * retrying stops). Ids dropped go into `gone` (their transitions go next). Returns how many.
 */
export function sweepDeliveries(world: World, ended_before_ms: number, events_dropped: boolean, gone: Set<string>): number {
  if (!world.stores.has('webhooks')) return 0;
  const store = webhookStore(world);
  const expired = (d: Delivery): boolean =>
    (d.ended_at_ms !== null && d.ended_at_ms < ended_before_ms) || (events_dropped && !world.events.byId.has(d.event_id));
  const before = store.deliveryList.length;
  store.deliveryList = store.deliveryList.filter((d) => {
    if (!expired(d)) return true;
    if (d.task_id !== null) world.sim.scheduler.cancel(d.task_id);
    d.task_id = null;
    store.deliveries.delete(d.delivery_id);
    gone.add(d.delivery_id);
    return false;
  });
  if (store.deliveryList.length === before) return 0;
  for (const [webhook_id, list] of store.byWebhook)
    store.byWebhook.set(
      webhook_id,
      list.filter((d) => store.deliveries.get(d.delivery_id) === d),
    );
  return before - store.deliveryList.length;
}
