// A structured copy of a world's object graph (a snapshot, and the world a restore rebuilds from it): plain
// objects, arrays, maps, sets, typed arrays and class instances are copied with their prototypes, and every
// object reached twice is copied once (an entity in a table and in an index stays one entity). Functions and
// frozen objects are shared: they are module-level code and constants (machine definitions, frozen events),
// never world state, since tasks are data (tasks.ts). What cannot be copied structurally says how it copies:
// an object with a `[COPY]` method (a class with private `#fields`, a factory's closures, the scheduler) is
// asked for its copy; what stands for outside resources (a journal, a socket pool) is given in `replace`;
// a promise (work in flight) is refused.
// Measured against `structuredClone` and `v8.serialize` (docs/persistence.md#snapshots): both drop prototypes
// and refuse functions, so a world would need a rebuild step per class afterwards; this walk copies the
// 300,000 objects of a 10,000-trade world in one pass.
import { StateMachine, StateNode } from 'xstate';
import { COPY, type CopyFn } from '../../sim/index.ts';

export { COPY, type CopyFn };

/** An object that copies itself: `copy` copies what it reaches (shared references kept). */
interface Copyable {
  [COPY](copy: CopyFn): unknown;
}

/** Machine definitions, which xstate snapshots name: module-level, shared by every world. */
const SHARED: ReadonlySet<object> = new Set([StateMachine.prototype, StateNode.prototype]);

/** Something a copy cannot take along; the message names the path to it from the root. */
export class NotCopyable extends Error {}

/**
 * A copy of `root` and everything it reaches (see the file's header for what is shared). `replace` maps an
 * object to what stands for it in the copy (kept by reference: the server's journal, its webhook transport).
 */
export function deepCopy<T>(root: T, replace: ReadonlyMap<object, unknown> = new Map()): T {
  const seen = new Map<object, unknown>(replace);
  // The keys down to the object being copied, for an error's message only (kept raw: no string per index).
  const path: Array<string | number> = [];
  const copy = <V>(value: V): V => {
    if (typeof value !== 'object' || value === null) return value;
    const done = seen.get(value);
    if (done !== undefined) return done as V;
    return copyObject(value as unknown as object) as V;
  };
  const copyObject = (o: object): unknown => {
    const proto = Object.getPrototypeOf(o) as object | null;
    if (proto === Object.prototype || proto === null) {
      if (Object.isFrozen(o)) return keep(o);
      if ((o as Copyable)[COPY] !== undefined) return custom(o as Copyable);
      const out: Record<string, unknown> = proto === null ? Object.create(null) : {};
      seen.set(o, out);
      for (const k in o) out[k] = copyField(o, k);
      return out;
    }
    if (proto === Array.prototype) {
      if (Object.isFrozen(o)) return keep(o);
      const a = o as unknown[];
      const out = new Array<unknown>(a.length);
      seen.set(o, out);
      for (let i = 0; i < a.length; i++) {
        const v = a[i];
        out[i] = typeof v === 'object' && v !== null ? copyField(a, i) : v;
      }
      return out;
    }
    if (o instanceof Map) {
      const out = new Map();
      seen.set(o, out);
      for (const [k, v] of o) out.set(copy(k), copy(v));
      return out;
    }
    if (o instanceof Set) {
      const out = new Set();
      seen.set(o, out);
      for (const v of o) out.add(copy(v));
      return out;
    }
    if (ArrayBuffer.isView(o)) {
      const out = Buffer.isBuffer(o) ? Buffer.from(o) : (o as unknown as { slice(): object }).slice();
      seen.set(o, out);
      return out;
    }
    if (o instanceof Promise) throw new NotCopyable(`work in flight (a promise) at ${where(path)}`);
    if (Object.isFrozen(o) || SHARED.has(proto)) return keep(o);
    if ((o as Copyable)[COPY] !== undefined) return custom(o as Copyable);
    // A class instance: its own fields, copied, under the same prototype (its methods are shared code).
    const out: Record<string, unknown> = Object.create(proto);
    seen.set(o, out);
    for (const k of Object.keys(o)) out[k] = copyField(o, k);
    return out;
  };
  const copyField = (o: object, k: string | number): unknown => {
    const v = (o as Record<string | number, unknown>)[k];
    if (typeof v !== 'object' || v === null) return v;
    const done = seen.get(v);
    if (done !== undefined) return done;
    path.push(k);
    const out = copyObject(v);
    path.pop();
    return out;
  };
  const custom = (o: Copyable): unknown => {
    let out: unknown;
    try {
      out = o[COPY](copy);
    } catch (err) {
      if (err instanceof NotCopyable) throw err;
      throw new NotCopyable(`${where(path)}: ${(err as Error).message}`);
    }
    seen.set(o, out);
    return out;
  };
  const keep = (o: object): object => {
    seen.set(o, o);
    return o;
  };
  return copy(root);
}

const where = (path: ReadonlyArray<string | number>): string => (path.length === 0 ? '(the root)' : path.join('.'));
