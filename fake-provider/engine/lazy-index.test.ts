// LazyIndex against a Map kept from the start: the same answers whatever the order of adds and lookups,
// duplicate keys included (the later value wins), and after values leave the list and it is reset.
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { LazyIndex } from './lazy-index.ts';

describe('LazyIndex', () => {
  test.prop([
    fc.array(fc.oneof(fc.record({ add: fc.nat(20) }), fc.record({ ask: fc.nat(25) }), fc.record({ drop: fc.nat(20) })), { maxLength: 80 }),
  ])('answers as a Map kept all along', (ops) => {
    const list: Array<{ key: number; n: number }> = [];
    const lazy = new LazyIndex(list, (v) => v.key);
    const map = new Map<number, { key: number; n: number }>();
    ops.forEach((op, n) => {
      if ('add' in op) {
        const v = { key: op.add, n };
        list.push(v);
        lazy.added(v);
        map.set(v.key, v);
      } else if ('drop' in op) {
        // Values leave the list (as a deleted organization's do), then the index is reset.
        for (let i = list.length - 1; i >= 0; i--) if (list[i].key === op.drop) list.splice(i, 1);
        lazy.reset();
        map.clear();
        for (const v of list) map.set(v.key, v);
      } else {
        expect(lazy.get(op.ask)).toBe(map.get(op.ask));
        expect(lazy.has(op.ask)).toBe(map.has(op.ask));
      }
    });
    for (let k = 0; k <= 25; k++) expect(lazy.get(k)).toBe(map.get(k));
  });
});
