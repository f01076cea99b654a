// Snapshots (`/_sim/snapshots`): a snapshot is a position in the server's journal (the request that took it);
// restoring it rebuilds the world the journal's prefix up to that request describes and puts it in the
// server's place. Chosen by measurement over a structured copy (which the scheduler's closures rule out today):
// correct for any world, cost proportional to its history (docs/persistence.md#snapshots). Whole-server for
// now; `restoredWorld` is a function of one world and its journal, so a per-organization scope (organizations
// as worlds of their own) restores an organization's world the same way.
import { readFileSync } from 'node:fs';
import type { Journal } from '../../sim/index.ts';
import { defineStore, type World } from '../world.ts';
import type { Runtime, ServeWorld } from '../runtime.ts';
import { ApiError } from '../contract/errors.ts';
import { dropHeldRequests } from '../http/faults.ts';
import { parseJournal, replayInto, type ParsedJournal } from '../replay/replay.ts';
import { ReplayTape } from '../replay/tape.ts';
import { driveRealtime } from './realtime.ts';

export interface Snapshot {
  snapshot_id: string;
  /** The request that took it: the world restored is the one right after that request took effect. */
  request_id: string;
  created_at_ms: number;
}

/** A world's snapshots live in the world: restoring one keeps those taken before it, and forgets later ones. */
const snapshotStore = defineStore('snapshots', () => ({ byId: new Map<string, Snapshot>() }));

/** The journal a world's inputs go to, as lines a restore can replay; null when there is none to read. */
function journalOf(journal: Journal): ParsedJournal | null {
  if (journal instanceof ReplayTape) {
    if (journal.mode === 'replay') return journal.source ? { ...journal.source, partial_line: false } : null;
    return journal.sinkPath ? parseJournal(readFileSync(journal.sinkPath, 'utf8')) : null;
  }
  return journal.mode === 'record' && journal.path ? parseJournal(readFileSync(journal.path, 'utf8')) : null;
}

function requireJournal(world: World): void {
  if (
    world.sim.journal.mode === 'off' ||
    (world.sim.journal instanceof ReplayTape && world.sim.journal.mode === 'record' && !world.sim.journal.sinkPath)
  ) {
    throw new ApiError(
      'journal_required',
      'snapshots are positions in the journal: start the server with --journal FILE or --state DIR (createSim({ journal_path }))',
    );
  }
}

export function takeSnapshot(world: World, request_id: string): Snapshot {
  requireJournal(world);
  const snapshot = { snapshot_id: world.newId('snap'), request_id, created_at_ms: world.sim.now_ms() };
  snapshotStore(world).byId.set(snapshot.snapshot_id, snapshot);
  return snapshot;
}

export function listSnapshots(world: World): Snapshot[] {
  return [...snapshotStore(world).byId.values()];
}

export function deleteSnapshot(world: World, snapshot_id: string): boolean {
  return snapshotStore(world).byId.delete(snapshot_id);
}

export function requireSnapshot(world: World, snapshot_id: string): Snapshot {
  const s = snapshotStore(world).byId.get(snapshot_id);
  if (!s) throw new ApiError('not_found', `no snapshot ${snapshot_id}`, { param: 'snapshot_id' });
  return s;
}

/**
 * The world `current` was right after `snapshot`'s request: rebuilt from the journal's prefix up to that line in
 * a fresh world, which then journals to `current`'s journal (what it does next is this server's input).
 */
async function restoredWorld(current: World, snapshot: Snapshot, serve: ServeWorld): Promise<World> {
  requireJournal(current);
  const journal = journalOf(current.sim.journal);
  if (!journal) throw new ApiError('journal_required', 'this server keeps no journal a snapshot can be restored from');
  const at = journal.lines.find(({ line }) => line.kind === 'request' && line.request_id === snapshot.request_id);
  if (!at) throw new ApiError('not_found', `snapshot ${snapshot.snapshot_id}: its request is not in the journal`, { param: 'snapshot_id' });
  const { running, tape, report } = await replayInto({ ...journal, lines: journal.lines.filter(({ n }) => n <= at.n) }, {}, serve);
  // Only the replay's listener goes: the world it rebuilt lives on.
  running.server.closeAllConnections();
  running.server.close();
  if (report.mismatch || report.diverged)
    throw new Error(
      `snapshot ${snapshot.snapshot_id}: the journal's prefix did not replay (${report.diverged ?? report.mismatch?.difference})`,
    );
  const world = running.runtime.world;
  Object.assign(world.endpoint, current.endpoint);
  world.sim.adoptJournal(current.sim.journal);
  // Outside answers its prefix still awaited are the server's inputs from here (made live, or replayed).
  tape.goLive(current.sim.journal);
  return world;
}

/** Puts the restored world in the runtime's place (as a reset does with a fresh one). */
export async function restoreSnapshot(runtime: Runtime, snapshot_id: string): Promise<World> {
  const snapshot = requireSnapshot(runtime.world, snapshot_id);
  if (!runtime.options.serve_world)
    throw new ApiError('journal_required', 'this runtime serves no HTTP: a snapshot is restored by replaying its journal over HTTP');
  const world = await restoredWorld(runtime.world, snapshot, runtime.options.serve_world);
  runtime.stopRealtime();
  dropHeldRequests(runtime.world);
  runtime.world = world;
  driveRealtime(runtime);
  return world;
}
