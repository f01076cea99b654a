// The order in which deliveries created at the same sim instant go out (profile `webhook_delivery_order`),
// within the spec's guarantees: no global order; within one account, best effort by created_at_ms.
// `deliveryOrder` is pure over the batch and a seeded stream; `startInOrder` applies it per instant.
import type { Rng } from '../../../sim/rng.ts';
import { defineStore, type World } from '../../world.ts';
import { defineTask } from '../../engine/index.ts';
import type { WebhookDeliveryOrder } from '../../profile.ts';

/** How often `best_effort` swaps two neighbouring deliveries of one account. */
const ADJACENT_SWAP_CHANCE = 0.25;

/** Each account's items, in batch order; accounts in order of first appearance. */
function byAccount<T>(batch: readonly T[], accountOf: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of batch) {
    const key = accountOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return [...groups.values()];
}

/** Occasional swaps of neighbours; an item moves at most one place, so the order stays close to created order. */
function swapNeighbours<T>(items: T[], rng: Rng): T[] {
  for (let i = 0; i + 1 < items.length; i++) {
    if (!rng.chance(ADJACENT_SWAP_CHANCE)) continue;
    [items[i], items[i + 1]] = [items[i + 1], items[i]];
    i++;
  }
  return items;
}

/** A uniformly random interleaving of the groups that keeps each group's own order. */
function interleave<T>(groups: T[][], rng: Rng): T[] {
  const out: T[] = [];
  const cursors = groups.map(() => 0);
  let left = groups.reduce((n, g) => n + g.length, 0);
  while (left > 0) {
    // Drawing a remaining item uniformly and taking its group's next one makes every interleaving equally likely.
    let k = rng.int(0, left - 1);
    let g = 0;
    for (let remaining = groups[0].length - cursors[0]; k >= remaining; remaining = groups[g].length - cursors[g]) {
      k -= remaining;
      g++;
    }
    out.push(groups[g][cursors[g]++]);
    left--;
  }
  return out;
}

/**
 * The send order of one batch of due deliveries (given in created order). `in_order` keeps it and draws
 * nothing; `shuffle_across_accounts` interleaves accounts at random, each account's deliveries in order;
 * `best_effort` also swaps neighbouring deliveries of one account now and then. Always a permutation.
 */
export function deliveryOrder<T>(batch: readonly T[], accountOf: (item: T) => string, setting: WebhookDeliveryOrder, rng: Rng): T[] {
  if (setting === 'in_order' || batch.length < 2) return batch.slice();
  const groups = byAccount(batch, accountOf);
  if (setting === 'best_effort') for (const g of groups) swapNeighbours(g, rng);
  return interleave(groups, rng);
}

/**
 * A delivery created at the current sim instant, waiting for that instant's ordering task: data, and `start`
 * a module-level function (the world copies with it, snapshots.ts), called with the delivery's id and effects.
 */
interface Fresh<E = unknown> {
  account_id: string;
  delivery_id: string;
  effects: E;
  start: (world: World, delivery_id: string, effects: E) => void;
}

const orderStore = defineStore('webhook-order', (world) => ({
  /** Its own stream, so reordering never shifts another consumer's draws. */
  rng: world.sim.rng.fork('webhook-order'),
  batch: [] as Fresh[],
  flush_scheduled: false,
}));

/**
 * Starts a new delivery: `start` schedules its first attempt. With `in_order` that happens at once, as it
 * always did. Otherwise the deliveries created in one sim instant are gathered and started by one task at
 * that same instant, in `deliveryOrder`: tasks due at one instant run in scheduling order, so that is the
 * order in which they go out. The event feed is untouched (it is the event store's order).
 */
export function startInOrder<E>(world: World, fresh: Fresh<E>): void {
  const setting = world.profile.webhook_delivery_order;
  if (setting === 'in_order') return fresh.start(world, fresh.delivery_id, fresh.effects);
  const store = orderStore(world);
  store.batch.push(fresh as Fresh);
  if (store.flush_scheduled) return;
  store.flush_scheduled = true;
  world.sim.scheduler.after(0, 'webhook.order');
}

defineTask('webhook.order', (world) => {
  const store = orderStore(world);
  const batch = store.batch;
  store.batch = [];
  store.flush_scheduled = false;
  const setting = world.profile.webhook_delivery_order;
  for (const f of deliveryOrder(batch, (x) => x.account_id, setting, store.rng)) f.start(world, f.delivery_id, f.effects);
});
