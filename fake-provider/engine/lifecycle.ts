// Runs lifecycles declared as xstate machines over stored snapshots (no long-lived actors): each machine's
// transition table (table.ts, derived once from the machine) on the hot path, xstate's own pure step for a
// machine the table cannot express. Emitted events come back as effects for the resource's model to
// apply, and every transition taken is logged (timelines, path invariants, transition coverage). Entities
// of a packed machine (packing.ts) are started and stepped through what they hold (startHeld, advanceHeld).
// Resources reach all of it through their `lifecycle`/`compactLifecycle` (at the end), which also register
// their machine.
import { createActor, type AnyStateMachine, type ContextFrom, type EmittedFrom, type EventObject } from 'xstate';
import type { World } from '../world.ts';
import { tableApply, tableFor, tableInitial, tableSelect, type EntitySnapshot, type Table } from './table.ts';
import { hold, packing, snapshotOf, type Held, type HoldsState, type PackedState, type Packing } from './packing.ts';
import { registerMachine } from './machines.ts';

export type { TransitionRecord } from './transition-log.ts';
export { tableFor, type EntitySnapshot } from './table.ts';

/** The snapshot an entity of machine M stores. */
export type MachineSnapshot<M extends AnyStateMachine> = EntitySnapshot<ContextFrom<M>>;

export interface Step<M extends AnyStateMachine, E> {
  snapshot: MachineSnapshot<M>;
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

const NO_EFFECTS: readonly never[] = Object.freeze([]);

/** Room for exactly `n` effects; most steps emit nothing and share one frozen empty list. */
const effectsFor = <E>(n: number): E[] => (n === 0 ? (NO_EFFECTS as unknown as E[]) : new Array<E>(n));

/**
 * xstate's pure `transition()` builds a throwaway actor (and recomputes the machine's initial snapshot)
 * on every call. The fallback takes the same pure step with one inert scope per machine, made once: our
 * machines spawn no children, so nothing in the scope carries state between calls.
 */
interface InertScope {
  self: unknown;
  system: unknown;
  actionExecutor: (action: { type: string; params?: unknown }) => void;
  [key: string]: unknown;
}

// Derived from static machine definitions (a memo, not world state).
const scopes = new WeakMap<AnyStateMachine, InertScope>();

function scopeFor(machine: AnyStateMachine): InertScope {
  let scope = scopes.get(machine);
  if (!scope) {
    const self = createActor(machine);
    scope = {
      self,
      defer: () => {},
      id: '',
      logger: () => {},
      sessionId: '',
      stopChild: () => {},
      system: (self as unknown as { system: unknown }).system,
      emit: () => {},
      actionExecutor: () => {},
    };
    scopes.set(machine, scope);
  }
  return scope;
}

type Actions = { type: string; params?: unknown }[];

function pureInitial(machine: AnyStateMachine, input: unknown): [unknown, Actions] {
  const scope = scopeFor(machine);
  const actions: Actions = [];
  scope.actionExecutor = (a) => void actions.push(a);
  const snapshot = (machine as unknown as { getInitialSnapshot(s: unknown, i: unknown): unknown }).getInitialSnapshot(scope, input);
  return [snapshot, actions];
}

function pureTransition(machine: AnyStateMachine, snapshot: unknown, event: EventObject): [unknown, Actions] {
  const scope = scopeFor(machine);
  const actions: Actions = [];
  scope.actionExecutor = (a) => void actions.push(a);
  const next = (machine as unknown as { transition(s: unknown, e: EventObject, sc: unknown): unknown }).transition(snapshot, event, scope);
  return [next, actions];
}

type XSnapshot = { value: unknown; context: unknown; status: string; can(e: EventObject): boolean };

const fromXstate = (xs: XSnapshot): EntitySnapshot => ({
  value: stateName(xs),
  context: xs.context,
  status: xs.status === 'active' ? 'active' : 'done',
  machine_snapshot: xs,
});

/** Creates an entity's first snapshot; the creation counts as a transition from `null` on event `CREATE`. */
export function start<M extends AnyStateMachine, E>(world: World, machine: M, entity_id: string, input: unknown): Step<M, E> {
  return startWith(world, machine, tableFor(machine), entity_id, input);
}

function startWith<M extends AnyStateMachine, E>(
  world: World,
  machine: M,
  table: Table | null,
  entity_id: string,
  input: unknown,
): Step<M, E> {
  const log = world.transitions;
  const row = log.entityRow(entity_id);
  if (table) {
    const effects = effectsFor<E>(table.entryEmits);
    const initial = tableInitial(table, input, effects);
    const constant = typeof table.context !== 'function' && initial.context === table.context;
    const snapshot = (
      constant ? shareInitial(world, table, initial) : shareScalarSnapshot(world, table.initialSlot, initial)
    ) as MachineSnapshot<M>;
    log.append(row, table.createKey, world.sim.now_ms());
    return { snapshot, effects };
  }
  const [xs, actions] = pureInitial(machine, input) as [XSnapshot, Actions];
  const snapshot = fromXstate(xs) as MachineSnapshot<M>;
  log.append(row, `${machine.id}||CREATE|${snapshot.value}`, world.sim.now_ms());
  return { snapshot, effects: effectsOf<E>(actions) };
}

function logStep(
  world: World,
  machine: AnyStateMachine,
  entity_id: string,
  snapshot: EntitySnapshot,
  key: string,
  event: string,
  to: string,
): void {
  const log = world.transitions;
  // The row comes from the entity's id, not its snapshot: snapshots carry nothing of their own entity.
  const row = log.rowFor(entity_id);
  if (row >= 0) log.append(row, key, world.sim.now_ms());
  else log.push({ kind: machine.id, entity_id, from: snapshot.value, event, to, at_ms: world.sim.now_ms() });
}

const SHARED_INITIAL_SNAPSHOTS = 'engine.initial_snapshots';

/**
 * An initial snapshot whose context is the machine's own constant one (no input, no entry assign: a
 * new credit) is the same for every entity of the machine: they share one frozen snapshot, per world
 * (by the initial state's slot).
 */
function shareInitial(world: World, table: Table, snapshot: EntitySnapshot): EntitySnapshot {
  let bySlot = world.stores.get(SHARED_INITIAL_SNAPSHOTS) as Array<EntitySnapshot | undefined> | undefined;
  if (bySlot === undefined) world.stores.set(SHARED_INITIAL_SNAPSHOTS, (bySlot = []));
  const shared = bySlot[table.initialSlot];
  if (shared !== undefined) return shared;
  bySlot[table.initialSlot] = Object.freeze(snapshot);
  return snapshot;
}

/** Most distinct contexts shared per machine, state and world: contexts holding times or counters never repeat. */
const SHARED_CONTEXTS_MAX = 64;
const SHARED_SNAPSHOTS = 'engine.shared_snapshots';

/** Per machine and state (a table slot), per world: the shared snapshots by key, and the one shared last (most steps repeat it). */
interface SharedInState {
  known: Map<string, EntitySnapshot>;
  last: EntitySnapshot | null;
  /** The last one's context keys, in order. */
  lastKeys: string[];
  /** Lookups missed in a row since the cache filled: past a bound the state's contexts never repeat (times). */
  misses: number;
}

/** Misses in a row, with the cache full, after which a state stops looking its contexts up (no JSON made). */
const GIVE_UP_AFTER_MISSES = 256;

const shareableValue = (v: unknown): boolean =>
  v === null || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v) && !Object.is(v, -0));

/** Same keys in the same order with the same values. */
function sameContext(shared: EntitySnapshot, keys: readonly string[], context: Record<string, unknown>): boolean {
  let i = 0;
  for (const key in context) {
    if (keys[i] !== key || !Object.is(context[key], (shared.context as Record<string, unknown>)[key])) return false;
    i++;
  }
  return i === keys.length;
}

/**
 * A snapshot whose context holds only null, booleans and numbers (a deposit's checks, at every step) is
 * the same for most entities of its machine in that state: they share one frozen snapshot (state and
 * context), per world, instead of one each, and no step allocates one that the next step drops (in a
 * batch such garbage outlives young collections and leaves holes in old space). Snapshots and contexts
 * are never written in place (each step and assign makes new ones), so sharing is not observable. The key
 * is the state and the context's JSON (which keeps the field order); the value check keeps NaN, -0 and
 * undefined (which JSON would confuse) out. The last shared snapshot of the state is compared field by
 * field first: most steps match it, and then no JSON is made.
 */
function shareScalarSnapshot(world: World, slot: number, snapshot: EntitySnapshot): EntitySnapshot {
  const context = snapshot.context as Record<string, unknown> | null;
  if (context === null || typeof context !== 'object' || Object.getPrototypeOf(context) !== Object.prototype) return snapshot;
  for (const key in context) if (!shareableValue(context[key])) return snapshot;
  let bySlot = world.stores.get(SHARED_SNAPSHOTS) as Array<SharedInState | undefined> | undefined;
  if (bySlot === undefined) world.stores.set(SHARED_SNAPSHOTS, (bySlot = []));
  let shared = bySlot[slot];
  if (shared === undefined) bySlot[slot] = shared = { known: new Map(), last: null, lastKeys: [], misses: 0 };
  if (shared.last !== null && sameContext(shared.last, shared.lastKeys, context)) return shared.last;
  const full = shared.known.size >= SHARED_CONTEXTS_MAX;
  if (full && shared.misses > GIVE_UP_AFTER_MISSES) return snapshot;
  const key = JSON.stringify(context);
  let found = shared.known.get(key);
  if (found === undefined && !full) shared.known.set(key, (found = Object.freeze({ ...snapshot, context: Object.freeze({ ...context }) })));
  if (found === undefined) {
    shared.misses++;
    return snapshot;
  }
  shared.misses = 0;
  if (shared.last !== found) {
    shared.last = found;
    shared.lastKeys = Object.keys(found.context as object);
  }
  return found;
}

/**
 * Sends one event. Returns null when the machine does not accept it in its current state (a stale
 * timer, a late duplicate): the caller decides whether that is an error for the client or a no-op.
 */
export function send<M extends AnyStateMachine, E>(
  world: World,
  machine: M,
  entity_id: string,
  snapshot: MachineSnapshot<M>,
  event: EventObject,
): Step<M, E> | null {
  const table = tableFor(machine);
  if (table) {
    const candidate = tableSelect(table, snapshot, event);
    if (!candidate) return null;
    const effects = effectsFor<E>(candidate.emits);
    let next = tableApply(candidate, snapshot, event, effects) as MachineSnapshot<M>;
    next = shareScalarSnapshot(world, candidate.targetSlot, next) as MachineSnapshot<M>;
    logStep(world, machine, entity_id, snapshot, candidate.key, event.type, candidate.target);
    return { snapshot: next, effects };
  }
  const xs = snapshot.machine_snapshot as XSnapshot;
  if (!xs.can(event)) return null;
  const [nextXs, actions] = pureTransition(machine, xs, event) as [XSnapshot, Actions];
  const next = fromXstate(nextXs) as MachineSnapshot<M>;
  logStep(world, machine, entity_id, snapshot, `${machine.id}|${snapshot.value}|${event.type}|${next.value}`, event.type, next.value);
  return { snapshot: next, effects: effectsOf<E>(actions) };
}

/**
 * Sends one event to an entity that keeps its snapshot, stores the next snapshot and hands the effects
 * to the resource's applier, `apply(world, entity, effects)`: a module-level function (each resource's
 * `applyEffects`), not a closure made per step. False when the machine refuses the event (the caller
 * decides what that means).
 */
export function advance<M extends AnyStateMachine, E, T extends { snapshot: MachineSnapshot<M> }>(
  world: World,
  machine: M,
  entity: T,
  entity_id: string,
  event: EventObject,
  apply: (world: World, entity: T, effects: E[]) => void,
): boolean {
  const table = tableFor(machine);
  if (table) {
    // `send`'s table path without its Step object: this runs once per transition of every entity.
    const snapshot = entity.snapshot;
    const candidate = tableSelect(table, snapshot, event);
    if (!candidate) return false;
    const effects = effectsFor<E>(candidate.emits);
    const next = tableApply(candidate, snapshot, event, effects);
    entity.snapshot = shareScalarSnapshot(world, candidate.targetSlot, next) as MachineSnapshot<M>;
    logStep(world, machine, entity_id, snapshot, candidate.key, event.type, candidate.target);
    apply(world, entity, effects);
    return true;
  }
  const step = send<M, E>(world, machine, entity_id, entity.snapshot, event);
  if (!step) return false;
  entity.snapshot = step.snapshot;
  apply(world, entity, step.effects);
  return true;
}

/**
 * `start` for an entity of a packed machine (packing.ts): the first snapshot as the entity will hold it.
 * No machine starts in its packed state, so nothing of the entity is needed yet.
 */
function startHeld<M extends AnyStateMachine, T>(
  world: World,
  p: Packing<M, T>,
  entity_id: string,
  input: unknown,
): { state: Held<M>; effects: EmittedFrom<M>[] } {
  const step = startWith<M, EmittedFrom<M>>(world, p.machine, p.table, entity_id, input);
  if (step.snapshot.value === p.packed.state) throw new Error(`${p.machine.id} starts in its packed state ${p.packed.state}`);
  return { state: step.snapshot as unknown as Held<M>, effects: step.effects };
}

/**
 * `advance` for an entity of a packed machine: the snapshot read from what the entity holds and the next
 * one held again (the kept value alone when it is the packed state's). False when the machine refuses.
 */
function advanceHeld<M extends AnyStateMachine, E, T extends E & HoldsState<M>>(
  world: World,
  p: Packing<M, E>,
  entity: T,
  entity_id: string,
  event: EventObject,
  apply: (world: World, entity: T, effects: EmittedFrom<M>[]) => void,
): boolean {
  type Fx = EmittedFrom<M>;
  const machine = p.machine;
  const snapshot = snapshotOf(p, entity) as MachineSnapshot<M>;
  const table = p.table;
  if (table) {
    const candidate = tableSelect(table, snapshot, event);
    if (!candidate) return false;
    const effects = effectsFor<Fx>(candidate.emits);
    const next = shareScalarSnapshot(world, candidate.targetSlot, tableApply(candidate, snapshot, event, effects)) as MachineSnapshot<M>;
    entity.state = hold(p, entity, next);
    logStep(world, machine, entity_id, snapshot, candidate.key, event.type, candidate.target);
    apply(world, entity, effects);
    return true;
  }
  const step = send<M, Fx>(world, machine, entity_id, snapshot, event);
  if (!step) return false;
  entity.state = hold(p, entity, step.snapshot);
  apply(world, entity, step.effects);
  return true;
}

export function statusOf(snapshot: { value: string }): string {
  return snapshot.value;
}

/**
 * A resource's lifecycle: its machine (registered for the invariant checker and the coverage test) and
 * the steps of its entities, which keep their snapshot in `snapshot`.
 */
export interface Lifecycle<M extends AnyStateMachine> {
  readonly machine: M;
  /** The first snapshot and the entry's effects; the creation is logged as a transition from `null`. */
  start<E = EmittedFrom<M>>(world: World, entity_id: string, input: unknown): Step<M, E>;
  /** One event to a snapshot held elsewhere; null when the machine refuses it. */
  send<E = EmittedFrom<M>>(world: World, entity_id: string, snapshot: MachineSnapshot<M>, event: EventObject): Step<M, E> | null;
  /** One event to an entity: its next snapshot stored, the effects handed to `apply`; false when refused. */
  advance<T extends { snapshot: MachineSnapshot<M> }, E = EmittedFrom<M>>(
    world: World,
    entity: T,
    entity_id: string,
    event: EventObject,
    apply: (world: World, entity: T, effects: E[]) => void,
  ): boolean;
}

export function lifecycle<M extends AnyStateMachine>(machine: M): Lifecycle<M> {
  registerMachine(machine);
  return Object.freeze({
    machine,
    start: <E>(world: World, entity_id: string, input: unknown) => start<M, E>(world, machine, entity_id, input),
    send: <E>(world: World, entity_id: string, snapshot: MachineSnapshot<M>, event: EventObject) =>
      send<M, E>(world, machine, entity_id, snapshot, event),
    advance: <T extends { snapshot: MachineSnapshot<M> }, E>(
      world: World,
      entity: T,
      entity_id: string,
      event: EventObject,
      apply: (world: World, entity: T, effects: E[]) => void,
    ) => advance<M, E, T>(world, machine, entity, entity_id, event, apply),
  });
}

/** What an entity of a compact lifecycle keeps in `state`: read it with the lifecycle's `snapshot`. */
export type LifecycleState<M extends AnyStateMachine> = Held<M>;

/**
 * A resource's lifecycle whose entities end in one state where each one's snapshot differs from the
 * others' by one context value (a settled trade's credit id): they keep that value alone in `state`, and
 * `snapshot` gives an equal snapshot on read. `compact` says which state, which key, and how the rest of
 * that context follows from the entity.
 */
export interface CompactLifecycle<M extends AnyStateMachine, E> {
  readonly machine: M;
  start(world: World, entity_id: string, input: unknown): { state: LifecycleState<M>; effects: EmittedFrom<M>[] };
  advance<T extends E & HoldsState<M>>(
    world: World,
    entity: T,
    entity_id: string,
    event: EventObject,
    apply: (world: World, entity: T, effects: EmittedFrom<M>[]) => void,
  ): boolean;
  snapshot(entity: E & HoldsState<M>): MachineSnapshot<M>;
  /** Sets an entity's state to `snapshot` (kept compact when it is exactly the compact state's), outside any step. */
  store(entity: E & HoldsState<M>, snapshot: MachineSnapshot<M>): void;
}

export function compactLifecycle<M extends AnyStateMachine, E>(machine: M, compact: PackedState<M, E>): CompactLifecycle<M, E> {
  registerMachine(machine);
  const p = packing<M, E>(machine, compact);
  return Object.freeze({
    machine,
    start: (world: World, entity_id: string, input: unknown) => startHeld<M, E>(world, p, entity_id, input),
    advance: <T extends E & HoldsState<M>>(
      world: World,
      entity: T,
      entity_id: string,
      event: EventObject,
      apply: (world: World, entity: T, effects: EmittedFrom<M>[]) => void,
    ) => advanceHeld<M, E, T>(world, p, entity, entity_id, event, apply),
    snapshot: (entity: E & HoldsState<M>) => snapshotOf(p, entity) as MachineSnapshot<M>,
    store: (entity: E & HoldsState<M>, snapshot: MachineSnapshot<M>) => void (entity.state = hold(p, entity, snapshot)),
  });
}
