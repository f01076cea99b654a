// SourceIndex against a Map of joined keys as the oracle: the same answers through growth, for sources
// that made one, two or three credits, colliding and unknown keys.
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { SourceIndex, type Sourced } from './source-index.ts';

const key = (c: Sourced): string => `${c.source_type}|${c.source_id}|${c.role}`;

describe('SourceIndex', () => {
  test.prop([fc.array(fc.record({ source_type: fc.constantFrom('deposit', 'trade_settlement', 'change'), source_id: fc.string({ maxLength: 6 }), role: fc.constantFrom('a', 'b') }), { maxLength: 400 })])(
    'finds what a Map of joined keys finds, and nothing else',
    (made) => {
      const list: Sourced[] = [];
      const index = new SourceIndex(list);
      const oracle = new Map<string, Sourced>();
      for (const c of made) {
        expect(index.find(c.source_type, c.source_id, c.role)).toBe(oracle.get(key(c)));
        if (oracle.has(key(c))) continue;
        oracle.set(key(c), c);
        index.add(list.push(c) - 1);
      }
      expect(index.size).toBe(oracle.size);
      for (const c of made) expect(index.find(c.source_type, c.source_id, c.role)).toBe(oracle.get(key(c)));
      expect(index.find('deposit', 'never made', 'a')).toBeUndefined();
    },
  );

  it('keeps every credit findable across many growths', () => {
    const list: Sourced[] = [];
    const index = new SourceIndex(list);
    for (let i = 0; i < 20_000; i++) {
      index.add(list.push({ source_type: 'trade_settlement', source_id: `trd_${i}`, role: 'trade_settlement' }) - 1);
      index.add(list.push({ source_type: 'change', source_id: `trd_${i}`, role: 'change' }) - 1);
    }
    for (let i = 0; i < 20_000; i += 97) {
      expect(index.find('trade_settlement', `trd_${i}`, 'trade_settlement')).toBe(list[2 * i]);
      expect(index.find('change', `trd_${i}`, 'change')).toBe(list[2 * i + 1]);
      expect(index.find('deposit', `trd_${i}`, 'deposit')).toBeUndefined();
    }
  });
});
