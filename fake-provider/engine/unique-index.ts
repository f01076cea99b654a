// A unique index over a list a store already keeps (the credits' once-per-source guard): finds the value
// whose key fields equal the ones asked for, without a Map entry per value or a joined key string per
// lookup. The fields are declared by name; the first one, a string, is hashed.
import { COPY, type CopyFn } from './copy.ts';

/** The fields a value is found by: one to three of its string fields, the first hashed. */
export type KeyFields<V> =
  | readonly [keyof V & string]
  | readonly [keyof V & string, keyof V & string]
  | readonly [keyof V & string, keyof V & string, keyof V & string];

/**
 * An open-addressing hash table (linear probing) of positions in the list, hashed by the first key field:
 * each slot is two int32s, that field's hash and the position + 1 (0: free), at most 3/4 full, so 11 to 21
 * bytes a value, where a Map entry costs ~46 bytes with its table's slack, plus an array or a link for a
 * first field that names two values (a settlement and its change). Probes compare the stored hashes, so a
 * lookup reads a value only when its hash matches, and growing rehashes nothing: the values are scattered
 * over the heap, each read a likely cache miss. Values leave only through `rebuild` (no tombstones), and
 * the list only grows at its end: positions stay valid.
 */
export class UniqueIndex<V> {
  readonly #list: readonly V[];
  readonly #f0: keyof V & string;
  readonly #f1: (keyof V & string) | undefined;
  readonly #f2: (keyof V & string) | undefined;
  /** Slot i: hash at 2i, position + 1 at 2i + 1. */
  #table = new Int32Array(2 * 1024);
  #count = 0;
  /** The first field `find` hashed last, and its hash: `add` after a `find` for the same key hashes nothing. */
  #lastKey: string | null = null;
  #lastHash = 0;

  /** `list` is read, never written: the store pushes each value, then calls `add` with its position. */
  constructor(list: readonly V[], fields: KeyFields<V>) {
    this.#list = list;
    this.#f0 = fields[0];
    this.#f1 = fields[1];
    this.#f2 = fields[2];
  }

  get size(): number {
    return this.#count;
  }

  /** The value whose key fields are (k0, k1, k2), in the declared order; fields not declared are not compared. */
  find(k0: string, k1?: string, k2?: string): V | undefined {
    const table = this.#table;
    const mask = (table.length >> 1) - 1;
    const hash = this.#hash(k0);
    for (let i = hash & mask; table[2 * i + 1] !== 0; i = (i + 1) & mask) {
      if (table[2 * i] !== hash) continue;
      const v = this.#list[table[2 * i + 1] - 1];
      if (v[this.#f0] === k0 && (this.#f1 === undefined || v[this.#f1] === k1) && (this.#f2 === undefined || v[this.#f2] === k2)) return v;
    }
    return undefined;
  }

  /** Indexes the value at `position` in the list (the caller has checked there is no twin). */
  add(position: number): void {
    if ((this.#count + 1) * 4 > (this.#table.length >> 1) * 3) this.#grow();
    place(this.#table, this.#hash(this.#list[position][this.#f0] as string), position + 1);
    this.#count++;
  }

  /** Its copy over the copied list (a world's snapshot, copy.ts): the same table, nothing rehashed. */
  [COPY](copy: CopyFn): UniqueIndex<V> {
    const fields = [this.#f0, this.#f1, this.#f2].filter((f) => f !== undefined) as unknown as KeyFields<V>;
    const out = new UniqueIndex(copy(this.#list), fields);
    out.#table = this.#table.slice();
    out.#count = this.#count;
    out.#lastKey = this.#lastKey;
    out.#lastHash = this.#lastHash;
    return out;
  }

  /** Indexes the list again from scratch, after values left it (an organization deleted). */
  rebuild(): void {
    this.#table = new Int32Array(2 * 1024);
    this.#count = 0;
    for (let i = 0; i < this.#list.length; i++) this.add(i);
  }

  #hash(key: string): number {
    if (key !== this.#lastKey) {
      this.#lastKey = key;
      this.#lastHash = hashOf(key);
    }
    return this.#lastHash;
  }

  #grow(): void {
    const old = this.#table;
    const table = new Int32Array(old.length * 2);
    for (let i = 0; i < old.length; i += 2) if (old[i + 1] !== 0) place(table, old[i], old[i + 1]);
    this.#table = table;
  }
}

function place(table: Int32Array, hash: number, taken: number): void {
  const mask = (table.length >> 1) - 1;
  let i = hash & mask;
  while (table[2 * i + 1] !== 0) i = (i + 1) & mask;
  table[2 * i] = hash;
  table[2 * i + 1] = taken;
}

/** FNV-1a over the UTF-16 code units (ids and transaction hashes are short ASCII strings), as an int32. */
function hashOf(s: string): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}
