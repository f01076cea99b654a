// Runs lifecycles declared as xstate machines with xstate's pure `transition()` over stored snapshots
// (no long-lived actors). Emitted events are returned as effects for the resource's model to apply, and
// every transition taken is logged (timelines, path invariants, transition coverage).
import { createActor, type AnyStateMachine, type SnapshotFrom, type EventObject } from 'xstate';
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

/**
 * xstate's pure `transition()` builds a throwaway actor (and recomputes the machine's initial snapshot)
 * on every call, which dominated the engine's cost. The same pure step is taken here with one inert
 * scope per machine, made once: our machines spawn no children, so nothing in the scope carries state
 * between calls. `lifecycle.test.ts` checks it against xstate's own `transition()` on random walks.
 */
interface InertScope {
  self: unknown;
  system: unknown;
  actionExecutor: (action: { type: string; params?: unknown }) => void;
  [key: string]: unknown;
}

// Per-machine scopes are derived from static machine definitions (a memo, not world state).
const scopes = new WeakMap<AnyStateMachine, InertScope>();

function scopeFor(machine: AnyStateMachine): InertScope {
  let scope = scopes.get(machine);
  if (!scope) {
    const self = createActor(machine);
    scope = {
      self, defer: () => {}, id: '', logger: () => {}, sessionId: '', stopChild: () => {},
      system: (self as unknown as { system: unknown }).system, emit: () => {}, actionExecutor: () => {},
    };
    scopes.set(machine, scope);
  }
  return scope;
}

type Actions = { type: string; params?: unknown }[];

export function pureInitial(machine: AnyStateMachine, input: unknown): [unknown, Actions] {
  const scope = scopeFor(machine);
  const actions: Actions = [];
  scope.actionExecutor = (a) => void actions.push(a);
  const snapshot = (machine as unknown as { getInitialSnapshot(s: unknown, i: unknown): unknown }).getInitialSnapshot(scope, input);
  return [snapshot, actions];
}

export function pureTransition(machine: AnyStateMachine, snapshot: unknown, event: EventObject): [unknown, Actions] {
  const scope = scopeFor(machine);
  const actions: Actions = [];
  scope.actionExecutor = (a) => void actions.push(a);
  const next = (machine as unknown as { transition(s: unknown, e: EventObject, sc: unknown): unknown }).transition(snapshot, event, scope);
  return [next, actions];
}

/** Creates an entity's first snapshot; the creation counts as a transition from `null` on event `CREATE`. */
export function start<M extends AnyStateMachine, E>(world: World, machine: M, entity_id: string, input: unknown): Step<M, E> {
  const [snapshot, actions] = pureInitial(machine, input) as [SnapshotFrom<M>, Actions];
  world.transitions.records.push({ kind: machine.id, entity_id, from: null, event: 'CREATE', to: stateName(snapshot), at_ms: world.sim.now_ms() });
  return { snapshot, effects: effectsOf<E>(actions) };
}

/**
 * Sends one event. Returns null when the machine does not accept it in its current state (a stale
 * timer, a late duplicate): the caller decides whether that is an error for the client or a no-op.
 */
export function send<M extends AnyStateMachine, E>(world: World, machine: M, entity_id: string, snapshot: SnapshotFrom<M>, event: EventObject): Step<M, E> | null {
  if (!(snapshot as { can(e: EventObject): boolean }).can(event)) return null;
  const [next, actions] = pureTransition(machine, snapshot, event) as [SnapshotFrom<M>, Actions];
  world.transitions.records.push({ kind: machine.id, entity_id, from: stateName(snapshot), event: event.type, to: stateName(next), at_ms: world.sim.now_ms() });
  return { snapshot: next, effects: effectsOf<E>(actions) };
}

/**
 * Sends one event to an entity that keeps its snapshot, stores the next snapshot and hands the effects
 * to the resource's applier. False when the machine refuses the event (the caller decides what that means).
 */
export function advance<M extends AnyStateMachine, E>(
  world: World,
  machine: M,
  entity: { snapshot: SnapshotFrom<M> },
  entity_id: string,
  event: EventObject,
  apply: (effects: E[]) => void,
): boolean {
  const step = send<M, E>(world, machine, entity_id, entity.snapshot, event);
  if (!step) return false;
  entity.snapshot = step.snapshot;
  apply(step.effects);
  return true;
}

export function statusOf(snapshot: { value: unknown }): string {
  return stateName(snapshot);
}
