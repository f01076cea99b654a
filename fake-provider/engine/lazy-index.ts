// A secondary index a store rarely reads (a deposit by its transaction hash): built from the store's list
// on the first lookup and kept up to date from then on, so until someone asks an entity costs no Map entry.
import { COPY, type CopyFn } from './copy.ts';

/** Key → the latest value added under it, as a Map kept from the start would answer. */
export class LazyIndex<K, V> {
  #map: Map<K, V> | undefined;

  /** `list` is every value in the order added; `keyOf` reads a value's key (never changed after it is added). */
  constructor(
    private readonly list: readonly V[],
    private readonly keyOf: (value: V) => K,
  ) {}

  get(key: K): V | undefined {
    if (this.#map === undefined) {
      // In insertion order: a later value under the same key wins, as it did in a Map kept all along.
      this.#map = new Map();
      for (const v of this.list) this.#map.set(this.keyOf(v), v);
    }
    return this.#map.get(key);
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  /** Call for every value right after it joins the list. */
  added(value: V): void {
    this.#map?.set(this.keyOf(value), value);
  }

  /** Values left the list (an organization deleted): the map is made again on the next lookup. */
  reset(): void {
    this.#map = undefined;
  }

  /** Its copy over the copied list (a world's snapshot, copy.ts); a built map is copied, not built again. */
  [COPY](copy: CopyFn): LazyIndex<K, V> {
    const out = new LazyIndex(copy(this.list), this.keyOf);
    out.#map = copy(this.#map);
    return out;
  }
}
