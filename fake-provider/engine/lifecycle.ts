// Runs lifecycles declared as xstate machines with xstate's pure `transition()` over stored snapshots
// (no long-lived actors). Emitted events are returned as effects for the resource's model to apply, and
// every transition taken is logged (timelines, path invariants, transition coverage).
import { initialTransition, transition, type AnyStateMachine, type SnapshotFrom, type EventObject } from 'xstate';
import type { World } from '../world.ts';

export interface TransitionRecord {
  kind: string;
  entity_id: string;
  from: string | null;
  event: string;
  to: string;
  at_ms: number;
}

export interface TransitionLog {
  readonly records: TransitionRecord[];
}

export function createTransitionLog(): TransitionLog {
  return { records: [] };
}

export interface Step<M extends AnyStateMachine, E> {
  snapshot: SnapshotFrom<M>;
  /** The machine's `emit`ted objects, in order: what the model must now do (publish events, write credits…). */
  effects: E[];
}

const stateName = (snapshot: { value: unknown }): string =>
  typeof snapshot.value === 'string' ? snapshot.value : JSON.stringify(snapshot.value);

function effectsOf<E>(actions: ReadonlyArray<{ type: string; params?: unknown }>): E[] {
  const out: E[] = [];
  for (const a of actions) {
    if (a.type === 'xstate.emit') out.push((a.params as { event: E }).event);
  }
  return out;
}

/** Creates an entity's first snapshot; the creation counts as a transition from `null` on event `CREATE`. */
export function start<M extends AnyStateMachine, E>(world: World, machine: M, entity_id: string, input: unknown): Step<M, E> {
  const [snapshot, actions] = (initialTransition as (m: AnyStateMachine, i: unknown) => [SnapshotFrom<M>, { type: string }[]])(machine, input);
  world.transitions.records.push({ kind: machine.id, entity_id, from: null, event: 'CREATE', to: stateName(snapshot), at_ms: world.sim.now_ms() });
  return { snapshot, effects: effectsOf<E>(actions) };
}

/**
 * Sends one event. Returns null when the machine does not accept it in its current state (a stale
 * timer, a late duplicate): the caller decides whether that is an error for the client or a no-op.
 */
export function send<M extends AnyStateMachine, E>(world: World, machine: M, entity_id: string, snapshot: SnapshotFrom<M>, event: EventObject): Step<M, E> | null {
  if (!(snapshot as { can(e: EventObject): boolean }).can(event)) return null;
  const [next, actions] = (transition as (m: AnyStateMachine, s: unknown, e: EventObject) => [SnapshotFrom<M>, { type: string }[]])(machine, snapshot, event);
  world.transitions.records.push({ kind: machine.id, entity_id, from: stateName(snapshot), event: event.type, to: stateName(next), at_ms: world.sim.now_ms() });
  return { snapshot: next, effects: effectsOf<E>(actions) };
}

export function statusOf(snapshot: { value: unknown }): string {
  return stateName(snapshot);
}
