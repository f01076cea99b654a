// A store's table of entities, the one layout every resource gets: by id (id-index.ts: no Map entry per
// entity), the list in creation order, and secondary indexes declared on it (unique, or built on first
// lookup), all kept in step by `insert` and `retain`.
import { IdIndex } from './id-index.ts';
import { LazyIndex } from './lazy-index.ts';
import { UniqueIndex, type KeyFields } from './unique-index.ts';
import { COPY, type CopyFn } from './copy.ts';

export class EntityTable<V> {
  #byId: IdIndex<V>;
  readonly #idOf: (value: V) => string;
  /** Every entity in creation order (empty when the table keeps no list). */
  readonly list: V[] = [];
  readonly #keepsList: boolean;
  #unique: UniqueIndex<V>[] = [];
  #lookups: LazyIndex<unknown, V>[] = [];

  /**
   * `prefix`: the ids' (`trd` for `trd_…`); `idOf` reads an entity's id (a module-level function: one for
   * every world). `keepsList: false` for a table read by id and through `values()` only (RFQs, quotes):
   * no list, and so no indexes.
   */
  constructor(prefix: string, idOf: (value: V) => string, { keepsList = true }: { keepsList?: boolean } = {}) {
    this.#byId = new IdIndex(prefix, idOf);
    this.#idOf = idOf;
    this.#keepsList = keepsList;
  }

  get size(): number {
    return this.#byId.size;
  }

  /**
   * Its copy (a world's snapshot, copy.ts): the same entities' copies in the same order, and its indexes'
   * copies, which the store also names (`byTxHash`) and so must be the same objects the store's copy holds.
   */
  [COPY](copy: CopyFn): EntityTable<V> {
    const out = new EntityTable<V>('', this.#idOf, { keepsList: this.#keepsList });
    out.#byId = copy(this.#byId);
    (out as { list: V[] }).list = copy(this.list);
    out.#unique = this.#unique.map(copy);
    out.#lookups = this.#lookups.map(copy);
    return out;
  }

  get(id: string): V | undefined {
    return this.#byId.get(id);
  }

  has(id: string): boolean {
    return this.#byId.has(id);
  }

  /** Adds a new entity to the table and its indexes. An id already stored is a bug of the caller: it throws. */
  insert(value: V): V {
    const id = this.#idOf(value);
    // A new world id is past the last one stored: `has` answers without a search.
    if (this.#byId.has(id)) throw new Error(`${id} is stored already`);
    this.#byId.set(id, value);
    if (!this.#keepsList) return value;
    const position = this.list.push(value) - 1;
    for (const index of this.#unique) index.add(position);
    for (const index of this.#lookups) index.added(value);
    return value;
  }

  /** The entities by id: counter order (creation order for the world's own ids). */
  values(): IterableIterator<V> {
    return this.#byId.values();
  }

  /**
   * A unique index over `fields` (one to three string fields, the first hashed): `find(k0, k1, k2)` gives
   * the entity whose fields have those values. The caller checks for a twin before inserting.
   */
  uniqueIndex(fields: KeyFields<V>): Pick<UniqueIndex<V>, 'find' | 'size'> {
    this.#needsList();
    const index = new UniqueIndex(this.list, fields);
    for (let i = 0; i < this.list.length; i++) index.add(i);
    this.#unique.push(index);
    return index;
  }

  /** An index by `keyOf` read rarely: built on its first lookup, kept up to date from then on; the latest entity under a key wins. */
  lookupIndex<K>(keyOf: (value: V) => K): Pick<LazyIndex<K, V>, 'get' | 'has'> {
    this.#needsList();
    const index = new LazyIndex<K, V>(this.list, keyOf);
    this.#lookups.push(index as LazyIndex<unknown, V>);
    return index;
  }

  #needsList(): void {
    if (!this.#keepsList) throw new Error('a table that keeps no list has no indexes');
  }

  /** Keeps the entities `keep` accepts (an organization deleted), in order, in every index; returns how many were dropped. */
  retain(keep: (value: V) => boolean): number {
    const dropped = this.#byId.retain(keep);
    if (!this.#keepsList) return dropped;
    let w = 0;
    const list = this.list;
    for (let i = 0; i < list.length; i++) if (keep(list[i])) list[w++] = list[i];
    list.length = w;
    if (dropped > 0) {
      for (const index of this.#unique) index.rebuild();
      for (const index of this.#lookups) index.reset();
    }
    return dropped;
  }
}

/** A store's entities, to spread into the store: the table (`byId`) and its creation-ordered `list`. */
export function entityStore<V>(prefix: string, idOf: (value: V) => string): { byId: EntityTable<V>; list: V[] } {
  const byId = new EntityTable<V>(prefix, idOf);
  return { byId, list: byId.list };
}
