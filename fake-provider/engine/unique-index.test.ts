// UniqueIndex against a Map of joined keys as the oracle: the same answers through growth, for first
// fields that name one, two or three values (the credits' sources), colliding and unknown keys.
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { UniqueIndex } from './unique-index.ts';

interface Sourced {
  source_type: string;
  source_id: string;
  role: string;
}
const FIELDS = ['source_id', 'source_type', 'role'] as const;

const key = (c: Sourced): string => `${c.source_type}|${c.source_id}|${c.role}`;

describe('UniqueIndex', () => {
  test.prop([
    fc.array(
      fc.record({
        source_type: fc.constantFrom('deposit', 'trade_settlement', 'change'),
        source_id: fc.string({ maxLength: 6 }),
        role: fc.constantFrom('a', 'b'),
      }),
      { maxLength: 400 },
    ),
  ])('finds what a Map of joined keys finds, and nothing else', (made) => {
    const list: Sourced[] = [];
    const index = new UniqueIndex<Sourced>(list, FIELDS);
    const oracle = new Map<string, Sourced>();
    for (const c of made) {
      expect(index.find(c.source_id, c.source_type, c.role)).toBe(oracle.get(key(c)));
      if (oracle.has(key(c))) continue;
      oracle.set(key(c), c);
      index.add(list.push(c) - 1);
    }
    expect(index.size).toBe(oracle.size);
    for (const c of made) expect(index.find(c.source_id, c.source_type, c.role)).toBe(oracle.get(key(c)));
    expect(index.find('never made', 'deposit', 'a')).toBeUndefined();
  });

  it('keeps every credit findable across many growths', () => {
    const list: Sourced[] = [];
    const index = new UniqueIndex<Sourced>(list, FIELDS);
    for (let i = 0; i < 20_000; i++) {
      index.add(list.push({ source_type: 'trade_settlement', source_id: `trd_${i}`, role: 'trade_settlement' }) - 1);
      index.add(list.push({ source_type: 'change', source_id: `trd_${i}`, role: 'change' }) - 1);
    }
    for (let i = 0; i < 20_000; i += 97) {
      expect(index.find(`trd_${i}`, 'trade_settlement', 'trade_settlement')).toBe(list[2 * i]);
      expect(index.find(`trd_${i}`, 'change', 'change')).toBe(list[2 * i + 1]);
      expect(index.find(`trd_${i}`, 'deposit', 'deposit')).toBeUndefined();
    }
  });
});
