// Packed snapshots, declared beside each machine: in one state where every entity's snapshot differs from
// the others' only by one context value (a settled trade's credit id), an entity holds that value alone
// and the engine makes an equal snapshot on read; every other snapshot is held as it is.
import type { AnyStateMachine, ContextFrom } from 'xstate';
import { tableFor, type EntitySnapshot, type Table } from './table.ts';

type Snapshot<M extends AnyStateMachine> = EntitySnapshot<ContextFrom<M>>;

/** The packed state of a machine whose entities are `E`. */
export interface PackedState<M extends AnyStateMachine, E> {
  /** The state (a final one, or one entities stay in) and its status. */
  state: string;
  status: 'active' | 'done';
  /** The context key whose value the entity holds (a primitive: an id, or null). */
  keeps: keyof ContextFrom<M> & string;
  /**
   * The whole context an entity in that state has when it holds `kept`, keys in the order the machine
   * makes them, from the entity's own fields that never change (its creation time, its TTL) and
   * constants. A snapshot whose context is anything else is held as it is.
   */
  context(entity: E, kept: unknown): ContextFrom<M>;
}

/** A machine with its packing: what `start`/`advance` of the held kind take instead of the bare machine. */
export interface Packing<M extends AnyStateMachine, E> {
  readonly machine: M;
  readonly packed: PackedState<M, E>;
  /** The machine's table (`tableFor`), found once here rather than on every step. */
  readonly table: Table | null;
}

declare const HELD: unique symbol;
/** What an entity holds of its snapshot: opaque, read with `snapshotOf` (the packed value is not a snapshot). */
export type Held<M extends AnyStateMachine> = { readonly [HELD]: M };

/** An entity of a packed machine: its snapshot is held in `state`. */
export interface HoldsState<M extends AnyStateMachine> {
  state: Held<M>;
}

export function packing<M extends AnyStateMachine, E>(machine: M, packed: PackedState<M, E>): Packing<M, E> {
  return Object.freeze({ machine, packed: Object.freeze({ ...packed }), table: tableFor(machine) });
}

const isPrimitive = (v: unknown): boolean => v === null || (typeof v !== 'object' && typeof v !== 'function');

/** The same keys in the same order with the same values (Object.is). */
function sameContext(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  let i = 0;
  for (const key in b) {
    if (keys[i] !== key || !Object.is(a[key], b[key])) return false;
    i++;
  }
  return i === keys.length;
}

/**
 * What `entity` holds for `snapshot`: the kept value when the snapshot is exactly the one `snapshotOf`
 * would make from it (so nothing can tell them apart), else the snapshot itself.
 */
export function hold<M extends AnyStateMachine, E>(p: Packing<M, E>, entity: E, snapshot: Snapshot<M>): Held<M> {
  const s = p.packed;
  if (snapshot.value !== s.state || snapshot.status !== s.status || snapshot.machine_snapshot !== undefined)
    return snapshot as unknown as Held<M>;
  const context = snapshot.context as Record<string, unknown>;
  const kept = context[s.keeps];
  if (!isPrimitive(kept) || !sameContext(s.context(entity, kept) as Record<string, unknown>, context))
    return snapshot as unknown as Held<M>;
  return kept as unknown as Held<M>;
}

/** The entity's snapshot: the held one, or for a packed one a fresh equal snapshot (snapshots are never written in place). */
export function snapshotOf<M extends AnyStateMachine, E>(p: Packing<M, E>, entity: E & HoldsState<M>): Snapshot<M> {
  const held = entity.state as unknown;
  if (!isPrimitive(held)) return held as Snapshot<M>;
  const s = p.packed;
  return { value: s.state, context: s.context(entity, held), status: s.status };
}
