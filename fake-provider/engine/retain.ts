// Dropping entities from the stores that hold them (an organization deleted, records past their retention):
// in-place filters that keep the order and the array (indexes made over a list keep pointing at it).

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
