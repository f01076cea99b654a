// Snapshots (`/_sim/snapshots`): a snapshot is a structured copy of the world (engine/copy.ts: entity tables and
// indexes, lifecycle snapshots, event columns, transition log, idempotency records, conduct, RNG streams, id
// counters, clock, the scheduler's pending tasks, fault plan, webhook outbox records); restoring it copies that
// image again into a new world and puts it in the server's place. Chosen by measurement over replaying the
// journal up to the snapshot (docs/persistence.md#snapshots): a copy costs the world's size, not its history.
// What is outside the world (the journal, the webhook transport's sockets, the server's endpoint) is the
// server's and is never copied: the image keeps none of it and the restored world takes the server's.
// Outside work in flight (a held request, a webhook answer) cannot be copied: a snapshot waits for the clock's
// step in progress, then refuses with 409 `snapshot_busy` while any is still out.
// Both are journaled requests, so a journal holding restores replays as one run: replaying the snapshot's line
// takes the same copy, and the restore's line restores it. Unscoped, a snapshot is the server's default world
// (every organization without a clock of its own); scoped to an organization with its own world
// (`?organization_id=`), it is that world alone, restored in its place by the same `restoredWorld`.
import { defineStore, runTasksOf, type World } from '../world.ts';
import type { Runtime } from '../runtime.ts';
import { ApiError } from '../contract/errors.ts';
import { dropHeldRequests } from '../http/faults.ts';
import { webhookStore } from '../resources/webhooks/model.ts';
import { deepCopy, NotCopyable } from '../engine/copy.ts';
import { driveRealtime } from './realtime.ts';
import { driveOrgClock } from '../worlds.ts';

export interface Snapshot {
  snapshot_id: string;
  /** The request that took it: the world restored is the one right after that request took effect. */
  request_id: string;
  created_at_ms: number;
}

/** A snapshot as the world keeps it: its record and the image (never changed: a restore copies it). */
interface Kept extends Snapshot {
  image: World;
}

/** A world's snapshots live in the world: restoring one keeps those taken before it, and forgets later ones. */
const snapshotStore = defineStore('snapshots', () => ({ byId: new Map<string, Kept>() }));

const recordOf = ({ snapshot_id, request_id, created_at_ms }: Kept): Snapshot => ({ snapshot_id, request_id, created_at_ms });

/**
 * What stands in the copy for what the world holds of the outside: the server's journal and endpoint, its
 * webhook transport (sockets, and POSTs of the live world) and the profile every world of it shares, kept as
 * `into`'s; the snapshots store, copied shallowly (images are shared: they never change).
 */
function outsideOf(world: World, into: World): Map<object, unknown> {
  const replace = new Map<object, unknown>([
    [world.sim.journal, into.sim.journal],
    [world.endpoint, into.endpoint],
    [world.profile, into.profile],
  ]);
  if (world.stores.has('webhooks')) replace.set(webhookStore(world).transport, webhookStore(into).transport);
  if (world.stores.has('snapshots')) replace.set(snapshotStore(world), { byId: new Map(snapshotStore(world).byId) });
  return replace;
}

/** Outside work the world has in flight (a held request, a webhook answer or POST), by kind; empty when none. */
function inFlight(world: World): Record<string, number> {
  const busy = world.sim.scheduler.uncopyable();
  if (world.stores.has('webhooks')) {
    const { in_flight, queued } = webhookStore(world).transport.outbox.stats();
    if (in_flight + queued > 0) busy['webhook.post'] = in_flight + queued;
  }
  return busy;
}

/** Refuses (409 snapshot_busy) while the world has outside work in flight, naming it. */
function requireSettled(world: World): void {
  const busy = Object.entries(inFlight(world));
  if (busy.length > 0)
    throw new ApiError(
      'snapshot_busy',
      `outside work is in flight (${busy.map(([kind, n]) => `${n} ${kind}`).join(', ')}): a copy of the world cannot take it along; retry once it has landed`,
    );
}

/** A copy of `world` with the outside taken from `into` (the world itself, for an image; the server's, to restore). */
function copyWorld(world: World, into: World): World {
  let copy: World;
  try {
    copy = deepCopy(world, outsideOf(world, into));
  } catch (err) {
    if (err instanceof NotCopyable) throw new Error(`the world cannot be copied: ${err.message}`);
    throw err;
  }
  runTasksOf(copy);
  return copy;
}

/**
 * Takes a snapshot between two of the clock's steps (the scheduler's serialized section: no task is half run,
 * joined answers have landed).
 */
export function takeSnapshot(world: World, request_id: string): Promise<Snapshot> {
  return world.sim.scheduler.exclusive(() => {
    requireSettled(world);
    const snapshot_id = world.newId('snap');
    const kept: Kept = { snapshot_id, request_id, created_at_ms: world.sim.now_ms(), image: copyWorld(world, world) };
    snapshotStore(world).byId.set(snapshot_id, kept);
    return recordOf(kept);
  });
}

export function listSnapshots(world: World): Snapshot[] {
  return [...snapshotStore(world).byId.values()].map(recordOf);
}

export function deleteSnapshot(world: World, snapshot_id: string): boolean {
  return snapshotStore(world).byId.delete(snapshot_id);
}

function requireKept(world: World, snapshot_id: string): Kept {
  const s = snapshotStore(world).byId.get(snapshot_id);
  if (!s) throw new ApiError('not_found', `no snapshot ${snapshot_id}`, { param: 'snapshot_id' });
  return s;
}

export function requireSnapshot(world: World, snapshot_id: string): Snapshot {
  return recordOf(requireKept(world, snapshot_id));
}

/**
 * The world `current` was right after `snapshot`'s request: a copy of its image, journaling to `current`'s journal
 * and delivering through `current`'s transport (what it does next is this server's input). It keeps the snapshots
 * taken before this one, and this one.
 */
function restoredWorld(current: World, snapshot: Snapshot): World {
  const kept = requireKept(current, snapshot.snapshot_id);
  const world = copyWorld(kept.image, current);
  snapshotStore(world).byId.set(kept.snapshot_id, kept);
  return world;
}

/**
 * Puts the restored world in the runtime's place (as a reset does with a fresh one), between two clock steps. The
 * image had nothing in flight when it was taken; what the world it replaces has in flight goes with that world
 * (held requests are answered 503, as on a reset; a webhook answer still out lands in the world it came from).
 */
export function restoreSnapshot(runtime: Runtime, scoped: World, snapshot_id: string): Promise<World> {
  const hosted = [...runtime.worlds].find(([, h]) => h.world === scoped);
  if (hosted !== undefined) return restoreOrgWorld(runtime, hosted[0], snapshot_id);
  const current = runtime.world;
  const snapshot = requireSnapshot(current, snapshot_id);
  return current.sim.scheduler.exclusive(() => {
    const world = restoredWorld(current, snapshot);
    runtime.stopRealtime();
    dropHeldRequests(current);
    runtime.world = world;
    driveRealtime(runtime);
    return world;
  });
}

/**
 * The same for an organization's own world (a snapshot taken with its `organization_id` scope): the restored copy
 * takes that world's place, its keys route to it, its realtime driver restarts; the server's world and every other
 * organization's are untouched.
 */
function restoreOrgWorld(runtime: Runtime, organization_id: string, snapshot_id: string): Promise<World> {
  const hosted = runtime.worlds.get(organization_id)!;
  const current = hosted.world;
  const snapshot = requireSnapshot(current, snapshot_id);
  return current.sim.scheduler.exclusive(() => {
    const world = restoredWorld(current, snapshot);
    hosted.stop();
    dropHeldRequests(current);
    for (const org of current.orgs.values())
      for (const k of org.api_keys) if (runtime.keyWorlds.get(k) === current) runtime.keyWorlds.delete(k);
    // A follower's restored clock is behind the server's: the server's next movement brings it level.
    runtime.worlds.set(organization_id, { world, stop: driveOrgClock(world, organization_id, hosted.follows), follows: hosted.follows });
    for (const org of world.orgs.values()) for (const k of org.api_keys) runtime.keyWorlds.set(k, world);
    return world;
  });
}
