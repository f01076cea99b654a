// Dropping entities from the stores that hold them (an organization deleted, records past their retention):
// in-place filters that keep the order and the array (indexes made over a list keep pointing at it).

/** Keeps the items `keep` accepts, in order, in the same array; returns how many were dropped. */
export function retainInPlace<T>(items: T[], keep: (item: T) => boolean): number {
  let w = 0;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (keep(item)) items[w++] = item;
  }
  const dropped = items.length - w;
  items.length = w;
  return dropped;
}

/** Deletes the entries `drop` accepts from a map; returns how many. */
export function dropFromMap<K, V>(map: Map<K, V>, drop: (value: V, key: K) => boolean): number {
  let n = 0;
  for (const [k, v] of map) {
    if (!drop(v, k)) continue;
    map.delete(k);
    n++;
  }
  return n;
}
