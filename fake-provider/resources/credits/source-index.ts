// The credits' once-per-source index: finds the credit made from (source_type, source_id, role) among the
// ledger's creation-ordered list, without a Map entry per source.
/** What the index reads of a stored credit. */
export interface Sourced {
  readonly source_type: string;
  readonly source_id: string;
  readonly role: string;
}

/**
 * An open-addressing hash table (linear probing) of positions in the list the ledger already keeps,
 * hashed by source_id: each slot is two int32s, the source_id's hash and the position + 1 (0: free), at
 * most 3/4 full, so 11 to 21 bytes a credit, where a Map entry per source costs ~46 bytes with its
 * table's slack, plus an array or a link for the sources that make two credits (a settlement and its
 * change). Probes compare the stored hashes, so a lookup reads a credit only when its hash matches, and
 * growing rehashes nothing: the credits are scattered over the heap, each read a likely cache miss.
 * Credits are never removed (no tombstones), and the list only grows at its end: positions stay valid.
 */
export class SourceIndex<V extends Sourced> {
  readonly #list: readonly V[];
  /** Slot i: hash at 2i, position + 1 at 2i + 1. */
  #table = new Int32Array(2 * 1024);
  #count = 0;
  /** The source_id `find` hashed last, and its hash: `add` after a `find` for the same source hashes nothing. */
  #lastSource: string | null = null;
  #lastHash = 0;

  /** `list` is read, never written: the ledger pushes each credit, then calls `add` with its position. */
  constructor(list: readonly V[]) {
    this.#list = list;
  }

  get size(): number {
    return this.#count;
  }

  /** The credit made from (source_type, source_id, role), if any. */
  find(source_type: string, source_id: string, role: string): V | undefined {
    const table = this.#table;
    const mask = (table.length >> 1) - 1;
    const hash = this.#hash(source_id);
    for (let i = hash & mask; table[2 * i + 1] !== 0; i = (i + 1) & mask) {
      if (table[2 * i] !== hash) continue;
      const c = this.#list[table[2 * i + 1] - 1];
      if (c.source_id === source_id && c.source_type === source_type && c.role === role) return c;
    }
    return undefined;
  }

  /** Indexes the credit at `position` in the list (the caller has checked there is no twin). */
  add(position: number): void {
    if ((this.#count + 1) * 4 > (this.#table.length >> 1) * 3) this.#grow();
    place(this.#table, this.#hash(this.#list[position].source_id), position + 1);
    this.#count++;
  }

  /** Indexes the list again from scratch, after credits left it (an organization deleted). */
  rebuild(): void {
    this.#table = new Int32Array(2 * 1024);
    this.#count = 0;
    for (let i = 0; i < this.#list.length; i++) this.add(i);
  }

  #hash(source_id: string): number {
    if (source_id !== this.#lastSource) {
      this.#lastSource = source_id;
      this.#lastHash = hashOf(source_id);
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
