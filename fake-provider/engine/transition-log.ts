// The world's transition log (timelines, path invariants, transition coverage), stored compactly: one
// row per entity (its id and kind) and, per transition, three numbers in growable typed arrays (entity row,
// interned `kind|from|event|to`, at_ms). Readers get `{kind, entity_id, from, event, to, at_ms}` records.

export interface TransitionRecord {
  kind: string;
  entity_id: string;
  from: string | null;
  event: string;
  to: string;
  at_ms: number;
}

export interface TransitionLog {
  /** Appends one record (the engine; a test may forge one to trip an invariant). */
  push(record: TransitionRecord): void;
  /** Number of records. */
  readonly length: number;
  /** Every record, oldest first, as a fresh array: O(n), for tests and tools. */
  readonly records: TransitionRecord[];
  /** Every record, oldest first, made one at a time. */
  all(): IterableIterator<TransitionRecord>;
  /** One entity's records, oldest first. */
  forEntity(entity_id: string): TransitionRecord[];
  /** Engine fast path: a row for a new entity. */
  entityRow(entity_id: string): number;
  /** Engine fast path: appends a transition of the entity in `row`, named by its `kind|from|event|to` key. */
  append(row: number, key: string, at_ms: number): void;
}

interface Tuple {
  kind: string;
  from: string | null;
  event: string;
  to: string;
}

const parseKey = (key: string): Tuple => {
  const [kind, from, event, to] = key.split('|');
  return { kind, from: from === '' ? null : from, event, to };
};

function grow<T extends Uint32Array | Float64Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  next.set(a);
  return next;
}

export function createTransitionLog(): TransitionLog {
  const entities: string[] = [];
  const tuples: Tuple[] = [];
  const codes = new Map<string, number>();
  let rowOf = new Uint32Array(1024);
  let codeOf = new Uint32Array(1024);
  let atOf = new Float64Array(1024);
  let n = 0;
  // Entity rows by id, for records pushed whole (tests) and forEntity: built on first use only.
  let rowById: Map<string, number> | null = null;

  const code = (key: string, tuple?: Tuple): number => {
    let c = codes.get(key);
    if (c === undefined) {
      c = tuples.length;
      tuples.push(tuple ?? parseKey(key));
      codes.set(key, c);
    }
    return c;
  };
  const record = (i: number): TransitionRecord => {
    const t = tuples[codeOf[i]];
    return { kind: t.kind, entity_id: entities[rowOf[i]], from: t.from, event: t.event, to: t.to, at_ms: atOf[i] };
  };
  const rowsById = (): Map<string, number> => {
    if (!rowById) {
      rowById = new Map();
      for (let r = 0; r < entities.length; r++) if (!rowById.has(entities[r])) rowById.set(entities[r], r);
    }
    return rowById;
  };

  const log: TransitionLog = {
    entityRow(entity_id) {
      entities.push(entity_id);
      rowById?.set(entity_id, entities.length - 1);
      return entities.length - 1;
    },
    append(row, key, at_ms) {
      if (n === rowOf.length) {
        rowOf = grow(rowOf, n + 1);
        codeOf = grow(codeOf, n + 1);
        atOf = grow(atOf, n + 1);
      }
      rowOf[n] = row;
      codeOf[n] = code(key);
      atOf[n] = at_ms;
      n++;
    },
    push(r) {
      const row = rowsById().get(r.entity_id) ?? log.entityRow(r.entity_id);
      const key = `${r.kind}|${r.from ?? ''}|${r.event}|${r.to}`;
      // Interned with its exact fields first, so a forged name containing `|` survives.
      code(key, { kind: r.kind, from: r.from, event: r.event, to: r.to });
      log.append(row, key, r.at_ms);
    },
    get length() {
      return n;
    },
    get records() {
      const out: TransitionRecord[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = record(i);
      return out;
    },
    *all() {
      for (let i = 0; i < n; i++) yield record(i);
    },
    forEntity(entity_id) {
      const row = rowsById().get(entity_id);
      const out: TransitionRecord[] = [];
      if (row === undefined) return out;
      for (let i = 0; i < n; i++) if (rowOf[i] === row || entities[rowOf[i]] === entity_id) out.push(record(i));
      return out;
    },
  };
  return log;
}
