// Retention sweeps on the sim clock (profile `event_retention_ms`, `webhook_delivery_retention_ms`): events
// older than their retention leave the store, deliveries go a retention after they end (and with their
// event at the latest), and the transitions of what went with them. A sweep runs when an event is published
// once the clock has passed the next sweep point, so the same inputs sweep at the same points (a replay too).
import { defineStore, type World } from './world.ts';
import { sweepDeliveries } from './resources/webhooks/index.ts';

/** Sweeps per retention: a record outlives its retention by at most a sixteenth of it. */
const SWEEPS_PER_RETENTION = 16;
/** Sweeps are at least this far apart on the sim clock. */
const SWEEP_MIN_INTERVAL_MS = 1_000;

const retention = defineStore('retention', () => ({
  next_sweep_ms: Number.NEGATIVE_INFINITY,
  /** Events published before this were swept (-Infinity: the store holds every event still). */
  events_before_ms: Number.NEGATIVE_INFINITY,
  events_swept: 0,
  deliveries_swept: 0,
}));

/** The listener: a module-level function, one for every world (see SimScheduler in sim/scheduler.ts for why). */
function sweepIfDue(w: World): void {
  const now_ms = w.sim.now_ms();
  const state = retention(w);
  if (now_ms < state.next_sweep_ms) return;
  const shortest_ms = Math.min(w.profile.event_retention_ms, w.profile.webhook_delivery_retention_ms);
  state.next_sweep_ms = now_ms + Math.max(SWEEP_MIN_INTERVAL_MS, Math.floor(shortest_ms / SWEEPS_PER_RETENTION));
  sweepRetention(w);
}

/** Installed at world creation: every publication may run a sweep that is due. */
export function installRetention(world: World): void {
  world.hooks.eventPublished.push(sweepIfDue);
}

/** What the sweeps have dropped so far, and where the event store now begins (invariants read it). */
export function retentionState(world: World): { events_before_ms: number; events_swept: number; deliveries_swept: number } {
  const { events_before_ms, events_swept, deliveries_swept } = retention(world);
  return { events_before_ms, events_swept, deliveries_swept };
}

/** Runs one sweep now: events past `event_retention_ms`, deliveries past `webhook_delivery_retention_ms`. */
function sweepRetention(world: World): void {
  const state = retention(world);
  const now_ms = world.sim.now_ms();
  const events_before_ms = now_ms - world.profile.event_retention_ms;
  // The store is in publication order: nothing to sweep while its first event is recent (no rebuild then).
  const first_ms = world.events.firstCreatedAt_ms();
  let events_dropped = 0;
  if (first_ms !== undefined && first_ms < events_before_ms) {
    events_dropped = world.events.retain((_org, at_ms) => at_ms >= events_before_ms);
    if (events_dropped > 0) state.events_before_ms = Math.max(state.events_before_ms, events_before_ms);
    state.events_swept += events_dropped;
  }
  const gone = new Set<string>();
  state.deliveries_swept += sweepDeliveries(world, now_ms - world.profile.webhook_delivery_retention_ms, events_dropped > 0, gone);
  world.transitions.forget(gone);
}
