// The world's transition log (timelines, path invariants, transition coverage), stored compactly: one
// row per entity (its id and kind) and, per transition, three numbers in chunked typed arrays (entity row,
// interned `kind|from|event|to`, at_ms; 10 bytes a transition while they fit narrow columns). Readers get
// `{kind, entity_id, from, event, to, at_ms}` records. `forget` drops the records of entities that went.
import { idCounter } from './ids.ts';
import { COPY } from './copy.ts';

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
  /** Engine fast path: the row `entityRow` gave the entity (one of them if it was given several), or -1. */
  rowFor(entity_id: string): number;
  /** Engine fast path: appends a transition of the entity in `row`, named by its `kind|from|event|to` key. */
  append(row: number, key: string, at_ms: number): void;
  /**
   * Drops every record of the entities `gone` names, and their rows (an organization deleted, deliveries
   * past their retention); the others keep their order. O(records), in place. Returns the records dropped.
   */
  forget(gone: ReadonlySet<string>): number;
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

type Column = Uint16Array | Uint32Array | Float64Array;

/**
 * Records per column chunk. The first chunk grows by doubling up to this size; past it the log adds
 * whole chunks, so at most one chunk is spare and nothing is copied (one array doubling as it filled
 * up left a quarter of the log unused on average, and needed old and new copies at once while growing).
 */
const CHUNK_BITS = 16;
const CHUNK = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK - 1;

function grow<T extends Column>(a: T, need: number): T {
  if (need <= a.length) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.min(CHUNK, Math.max(need, a.length * 2)));
  next.set(a);
  return next;
}

/** The same values in a wider column type (the log starts narrow and widens when a value needs it). */
function widen<T extends Column>(a: Column, Wider: new (n: number) => T, map: (v: number) => number = (v) => v): T {
  const next = new Wider(a.length);
  for (let i = 0; i < a.length; i++) next[i] = map(a[i]);
  return next;
}

const U32_LIMIT = 2 ** 32;

/** Slots of the transition log's row hints (a power of two; 128 KiB a world). */
const RECENT_ROWS = 1 << 15;

/** Everything a log holds: a fresh log's, or a copy's (a snapshot of the world, copy.ts). */
interface LogState {
  entities: string[];
  tuples: Tuple[];
  codes: Map<string, number>;
  rowOf: Uint32Array[];
  codeOf: Array<Uint16Array | Uint32Array>;
  atOf: Array<Uint32Array | Float64Array>;
  wideCodes: boolean;
  absoluteAt: boolean;
  base_ms: number;
  n: number;
  counters: Uint32Array;
  maxCounter: number;
  lateRows: Map<string, number> | null;
  recentRows: Int32Array;
}

export function createTransitionLog(): TransitionLog {
  return logOf({
    entities: [],
    tuples: [],
    codes: new Map(),
    rowOf: [new Uint32Array(1024)],
    codeOf: [new Uint16Array(1024)],
    atOf: [new Uint32Array(1024)],
    wideCodes: false,
    absoluteAt: false,
    base_ms: NaN,
    n: 0,
    counters: new Uint32Array(1024),
    maxCounter: -1,
    lateRows: null,
    recentRows: new Int32Array(RECENT_ROWS).fill(-1),
  });
}

function logOf(state: LogState): TransitionLog {
  const { entities, tuples, codes, rowOf, recentRows } = state;
  // Record i sits at offset `i & CHUNK_MASK` of chunk `i >>> CHUNK_BITS` of each column (rowOf, codeOf, atOf).
  // Narrow while it fits: interned tuples below 65,536 take 2 bytes; times are ms after the first
  // record's in 4 bytes (49 days), and the column turns into absolute Float64 times beyond that.
  let { codeOf, atOf, wideCodes, absoluteAt, base_ms, n } = state;
  const atMs = (c: number, o: number): number => (absoluteAt ? atOf[c][o] : base_ms + atOf[c][o]);
  const storeAt = (c: number, o: number, at_ms: number): void => {
    if (!absoluteAt) {
      if (Number.isNaN(base_ms) && Number.isInteger(at_ms)) base_ms = at_ms;
      const offset = at_ms - base_ms;
      if (Number.isInteger(offset) && offset >= 0 && offset < U32_LIMIT) {
        atOf[c][o] = offset;
        return;
      }
      const base = base_ms;
      atOf = atOf.map((chunk) => widen(chunk, Float64Array, (v) => base + v));
      absoluteAt = true;
    }
    atOf[c][o] = at_ms;
  };
  // Entity rows by id, for records pushed whole (tests) and forEntity: built on first use only.
  let rowById: Map<string, number> | null = null;
  // The engine finds an entity's row from its id (snapshots keep no row, so equal ones can be shared).
  // Entities start in about the order their ids are drawn, so `counters[row]` (the id's counter, 4 bytes
  // a row) is non-decreasing and a binary search finds the row; an id that does not continue the order
  // (drawn before the last row's, or not a world id) repeats the previous counter and goes to `lateRows`.
  let { counters, maxCounter, lateRows } = state;
  // recentRows: the row last given to an id of each counter residue, tried before the search (a batch steps
  // entities made thousands of rows back, 17 probes of a cold array each). A slot is only a hint: the id at
  // the row it names must be the one asked for, so a slot overwritten or left stale by `forget` costs a search.

  const code = (key: string, tuple?: Tuple): number => {
    let c = codes.get(key);
    if (c === undefined) {
      c = tuples.length;
      tuples.push(tuple ?? parseKey(key));
      codes.set(key, c);
      if (c > 0xffff && !wideCodes) {
        codeOf = codeOf.map((chunk) => widen(chunk, Uint32Array));
        wideCodes = true;
      }
    }
    return c;
  };
  const rowAt = (i: number): number => rowOf[i >>> CHUNK_BITS][i & CHUNK_MASK];
  /** Row of each entity after a `forget`, -1 for a forgotten one; compacts the row tables in place. */
  const compactRows = (gone: ReadonlySet<string>): Int32Array => {
    const moved = new Int32Array(entities.length);
    let w = 0;
    for (let r = 0; r < entities.length; r++) {
      if (gone.has(entities[r])) {
        moved[r] = -1;
        continue;
      }
      moved[r] = w;
      entities[w] = entities[r];
      counters[w] = counters[r];
      w++;
    }
    entities.length = w;
    if (lateRows !== null) {
      const late = new Map<string, number>();
      for (const [id, r] of lateRows) if (moved[r] >= 0) late.set(id, moved[r]);
      lateRows = late.size > 0 ? late : null;
    }
    // Counters stay non-decreasing (a filtered sequence); shrink the table when it is mostly empty.
    if (counters.length > 1024 && w * 4 < counters.length) counters = counters.slice(0, Math.max(1024, w * 2));
    rowById = null;
    return moved;
  };
  const record = (i: number): TransitionRecord => {
    const c = i >>> CHUNK_BITS;
    const o = i & CHUNK_MASK;
    const t = tuples[codeOf[c][o]];
    return { kind: t.kind, entity_id: entities[rowOf[c][o]], from: t.from, event: t.event, to: t.to, at_ms: atMs(c, o) };
  };
  /** Room for record n: the first chunk doubles up to CHUNK records; then whole chunks are added. */
  const reserve = (c: number, o: number): void => {
    if (c === rowOf.length) {
      rowOf.push(new Uint32Array(CHUNK));
      codeOf.push(wideCodes ? new Uint32Array(CHUNK) : new Uint16Array(CHUNK));
      atOf.push(absoluteAt ? new Float64Array(CHUNK) : new Uint32Array(CHUNK));
    } else if (o === rowOf[c].length) {
      rowOf[c] = grow(rowOf[c], o + 1);
      codeOf[c] = grow(codeOf[c], o + 1);
      atOf[c] = grow(atOf[c], o + 1);
    }
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
      const row = entities.length;
      entities.push(entity_id);
      rowById?.set(entity_id, row);
      if (row === counters.length) {
        const grown = new Uint32Array(row * 2);
        grown.set(counters);
        counters = grown;
      }
      const c = idCounter(entity_id);
      if (c >= 0) recentRows[c & (RECENT_ROWS - 1)] = row;
      if (c > maxCounter) maxCounter = c;
      else if (!(lateRows ??= new Map()).has(entity_id)) lateRows.set(entity_id, row);
      counters[row] = Math.max(maxCounter, 0);
      return row;
    },
    rowFor(entity_id) {
      const last = entities.length - 1;
      if (last >= 0 && entities[last] === entity_id) return last;
      const want = idCounter(entity_id);
      if (want >= 0) {
        const hint = recentRows[want & (RECENT_ROWS - 1)];
        if (hint >= 0 && hint <= last && entities[hint] === entity_id) return hint;
        // The first row whose counter is not below `want`, then the rows sharing that counter.
        let lo = 0;
        let hi = entities.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (counters[mid] < want) lo = mid + 1;
          else hi = mid;
        }
        for (let i = lo; i < entities.length && counters[i] === want; i++) if (entities[i] === entity_id) return i;
      }
      return lateRows?.get(entity_id) ?? -1;
    },
    append(row, key, at_ms) {
      const c = n >>> CHUNK_BITS;
      const o = n & CHUNK_MASK;
      reserve(c, o);
      rowOf[c][o] = row;
      // code() may widen the code column: index it after the call.
      const k = code(key);
      codeOf[c][o] = k;
      storeAt(c, o, at_ms);
      n++;
    },
    push(r) {
      const row = rowsById().get(r.entity_id) ?? log.entityRow(r.entity_id);
      const key = `${r.kind}|${r.from ?? ''}|${r.event}|${r.to}`;
      // Interned with its exact fields first, so a forged name containing `|` survives.
      code(key, { kind: r.kind, from: r.from, event: r.event, to: r.to });
      log.append(row, key, r.at_ms);
    },
    forget(gone) {
      if (gone.size === 0) return 0;
      const moved = compactRows(gone);
      // Records move forward only (m <= i), so the columns are compacted in place, oldest first.
      let m = 0;
      for (let i = 0; i < n; i++) {
        const c = i >>> CHUNK_BITS;
        const o = i & CHUNK_MASK;
        const row = moved[rowOf[c][o]];
        if (row < 0) continue;
        const mc = m >>> CHUNK_BITS;
        const mo = m & CHUNK_MASK;
        rowOf[mc][mo] = row;
        codeOf[mc][mo] = codeOf[c][o];
        atOf[mc][mo] = atOf[c][o];
        m++;
      }
      const dropped = n - m;
      n = m;
      // Whole chunks past the last record go (the first chunk always stays).
      const chunks = Math.max(1, Math.ceil(n / CHUNK));
      rowOf.length = chunks;
      codeOf.length = chunks;
      atOf.length = chunks;
      return dropped;
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
      for (let i = 0; i < n; i++) {
        const r = rowAt(i);
        if (r === row || entities[r] === entity_id) out.push(record(i));
      }
      return out;
    },
    // Interned tuples are never changed once made: the copy shares them.
    [COPY]: () =>
      logOf({
        entities: entities.slice(),
        tuples: tuples.slice(),
        codes: new Map(codes),
        rowOf: rowOf.map((c) => c.slice()),
        codeOf: codeOf.map((c) => c.slice()),
        atOf: atOf.map((c) => c.slice()),
        wideCodes,
        absoluteAt,
        base_ms,
        n,
        counters: counters.slice(),
        maxCounter,
        lateRows: lateRows === null ? null : new Map(lateRows),
        recentRows: recentRows.slice(),
      }),
  } as TransitionLog;
  return log;
}
