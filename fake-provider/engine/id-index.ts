// Lookup by entity id without a Map entry per entity: the by-id index of the stores a trade lifecycle
// fills (deposits, credits, RFQs, quotes, trades). The subset of Map the stores use, over two arrays, plus
// `retain` to drop entities (a deleted organization's); the first entity stored gets its time fields shared
// (number-fields.ts).
import { counterAfterPrefix } from './ids.ts';
import { shareNumberFields } from './number-fields.ts';
import { COPY, type CopyFn } from './copy.ts';

/**
 * World ids (ids.ts) end in a counter and the world's counter only grows (world.ts
 * `newId`), so entities stored as their ids are drawn sit in counter order: a binary search over the
 * counters finds one, then the whole id must match (an id of another prefix, or with other hex, is not
 * it). A Map entry costs ~45 bytes with its share of the hash table; here an entity costs a slot of
 * `values` and 4 bytes of `counters`. An id that does not fit (not of this prefix, not after the last
 * one stored, beyond 32 bits) goes to a Map, so any id still works; iteration gives the ordered ones
 * first, then those, each in insertion order.
 */
export class IdIndex<V> {
  #prefix: string;
  readonly #idOf: (value: V) => string;
  #values: V[] = [];
  #counters = new Uint32Array(64);
  #late: Map<string, V> | undefined;

  /** `idOf` reads the id back from a stored value (it holds it already: no second copy here). */
  constructor(prefix: string, idOf: (value: V) => string) {
    this.#prefix = `${prefix}_`;
    this.#idOf = idOf;
  }

  get size(): number {
    return this.#values.length + (this.#late?.size ?? 0);
  }

  /** Its copy, holding the copies of its values (a world's snapshot, copy.ts). */
  [COPY](copy: CopyFn): IdIndex<V> {
    const out = new IdIndex<V>('', this.#idOf);
    out.#prefix = this.#prefix;
    out.#values = copy(this.#values);
    out.#counters = this.#counters.slice();
    out.#late = copy(this.#late);
    return out;
  }

  get(id: string): V | undefined {
    const at = this.#find(id);
    return at >= 0 ? this.#values[at] : this.#late?.get(id);
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  set(id: string, value: V): this {
    if (this.#idOf(value) !== id) throw new Error(`IdIndex: value stored under ${id} names ${this.#idOf(value)}`);
    if (this.#append(id, value)) return this;
    const at = this.#find(id);
    if (at >= 0) this.#values[at] = value;
    else (this.#late ??= new Map()).set(id, value);
    return this;
  }

  /**
   * Appends `value` when `id` continues the counter order (the common case: a new entity of the world):
   * then it cannot be stored already, among the ordered values (their counters are all lower) or late
   * (checked), and no search is needed. False, with nothing changed, otherwise.
   */
  #append(id: string, value: V): boolean {
    const counter = this.#counterOf(id);
    const n = this.#values.length;
    if (counter < 0 || (n > 0 && counter <= this.#counters[n - 1]) || this.#late?.has(id)) return false;
    // The first entity of the store: its time fields take the shared representation for every later one.
    if (n === 0) shareNumberFields(value as object);
    if (n === this.#counters.length) {
      const grown = new Uint32Array(n * 2);
      grown.set(this.#counters);
      this.#counters = grown;
    }
    this.#counters[n] = counter;
    this.#values.push(value);
    return true;
  }

  /**
   * Keeps the values `keep` accepts and frees the others (an organization deleted): O(size), the order of
   * the rest unchanged. Returns how many were dropped.
   */
  retain(keep: (value: V) => boolean): number {
    const before = this.size;
    let w = 0;
    for (let i = 0; i < this.#values.length; i++) {
      const v = this.#values[i];
      if (!keep(v)) continue;
      this.#values[w] = v;
      this.#counters[w] = this.#counters[i];
      w++;
    }
    this.#values.length = w;
    if (this.#counters.length > 64 && w * 4 < this.#counters.length) this.#counters = this.#counters.slice(0, Math.max(64, w * 2));
    if (this.#late) for (const [id, v] of this.#late) if (!keep(v)) this.#late.delete(id);
    return before - this.size;
  }

  *values(): IterableIterator<V> {
    yield* this.#values;
    if (this.#late) yield* this.#late.values();
  }

  *keys(): IterableIterator<string> {
    for (const v of this.values()) yield this.#idOf(v);
  }

  *entries(): IterableIterator<[string, V]> {
    for (const v of this.values()) yield [this.#idOf(v), v];
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }

  /** The counter in `id` when it is of this prefix and fits 32 bits; -1 otherwise. */
  #counterOf(id: string): number {
    return id.startsWith(this.#prefix) ? counterAfterPrefix(id, this.#prefix.length) : -1;
  }

  /** The slot of `id` among the ordered values, or -1. */
  #find(id: string): number {
    const n = this.#values.length;
    if (n === 0) return -1;
    // Most reads ask for the entity just stored.
    if (this.#idOf(this.#values[n - 1]) === id) return n - 1;
    const want = this.#counterOf(id);
    const counters = this.#counters;
    // Beyond the last counter: not stored (a creation checking its new id is unused asks this).
    if (want < 0 || want > counters[n - 1]) return -1;
    let lo = 0;
    let hi = n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const got = counters[mid];
      if (got === want) return this.#idOf(this.#values[mid]) === id ? mid : -1;
      if (got < want) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}
