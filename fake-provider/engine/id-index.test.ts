// IdIndex against a Map as the oracle: the same answers for world ids in order, ids of another prefix
// with the same counter, unknown and malformed ids, out-of-order and foreign ids (the Map fallback).
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { createSimKernel } from '../../sim/index.ts';
import { createWorld } from '../world.ts';
import { DEFAULT_PROFILE } from '../profile.ts';
import { IdIndex } from './id-index.ts';

interface Thing {
  id: string;
  n: number;
}

const world = () => createWorld({ sim: createSimKernel({ seed: 'id-index' }), profile: DEFAULT_PROFILE });
const index = () => new IdIndex<Thing>('cred', (t) => t.id);

describe('IdIndex', () => {
  it('finds world ids stored in drawing order, interleaved with other prefixes, and nothing else', () => {
    const w = world();
    const idx = index();
    const stored: string[] = [];
    const others: string[] = [];
    for (let i = 0; i < 300; i++) {
      const id = w.newId('cred');
      idx.set(id, { id, n: i });
      stored.push(id);
      others.push(w.newId(i % 2 ? 'trd' : 'evt'));
    }
    expect(idx.size).toBe(300);
    stored.forEach((id, i) => expect(idx.get(id)).toEqual({ id, n: i }));
    for (const id of others) expect(idx.has(id)).toBe(false);
    // Same counter as a stored credit, another prefix; same prefix and counter, other hex.
    const [first] = stored;
    expect(idx.get(`trd_${first.slice(5)}`)).toBeUndefined();
    expect(idx.get(`cred_000000000000${first.slice(17)}`)).toBeUndefined();
    for (const bad of [
      '',
      'cred_',
      'cred',
      'cred_0000',
      `${first}0`,
      `${first}!`,
      'cred_000000000000zzzzzzzzzz',
      `CRED_${first.slice(5)}`,
    ]) {
      expect(idx.get(bad)).toBeUndefined();
    }
    expect([...idx.values()].map((t) => t.n)).toEqual(stored.map((_, i) => i));
    expect([...idx.keys()]).toEqual(stored);
  });

  it('keeps ids out of counter order, of no counter or another prefix, in the fallback, and replaces a value set twice', () => {
    const w = world();
    const idx = index();
    const a = w.newId('cred');
    const b = w.newId('cred');
    const c = w.newId('cred');
    idx.set(b, { id: b, n: 1 });
    idx.set(a, { id: a, n: 0 }); // drawn before b, stored after it
    idx.set(c, { id: c, n: 2 });
    idx.set('cred_twin', { id: 'cred_twin', n: 3 });
    idx.set('acct_a', { id: 'acct_a', n: 4 });
    idx.set(b, { id: b, n: 10 });
    idx.set(a, { id: a, n: 20 });
    expect(idx.size).toBe(5);
    expect([a, b, c, 'cred_twin', 'acct_a'].map((id) => idx.get(id)?.n)).toEqual([20, 10, 2, 3, 4]);
    expect([...idx].map(([id]) => id)).toEqual([b, c, a, 'cred_twin', 'acct_a']);
    expect(() => idx.set(a, { id: b, n: 0 })).toThrow(/names/);
  });

  test.prop([
    fc.array(fc.record({ prefix: fc.constantFrom('cred', 'trd'), late: fc.boolean(), foreign: fc.boolean() }), { maxLength: 200 }),
  ])('answers as a Map does for any mix of drawn, late and foreign ids', (steps) => {
    const w = world();
    const idx = index();
    const oracle = new Map<string, Thing>();
    const held: string[] = [];
    const probes: string[] = [];
    steps.forEach((s, n) => {
      const id = s.foreign ? `cred_x${n}` : w.newId(s.prefix);
      probes.push(id);
      if (s.late) return void held.push(id);
      idx.set(id, { id, n });
      oracle.set(id, { id, n });
    });
    held.forEach((id, n) => {
      idx.set(id, { id, n: -n });
      oracle.set(id, { id, n: -n });
    });
    expect(idx.size).toBe(oracle.size);
    for (const id of probes) expect(idx.get(id)).toEqual(oracle.get(id));
    expect(new Set(idx.keys())).toEqual(new Set(oracle.keys()));
  });
});

describe('IdIndex retain', () => {
  it('drops what is not kept, ordered and late ids alike, and finds the rest', () => {
    const w = world();
    const idx = index();
    const things: Thing[] = Array.from({ length: 300 }, (_, n) => ({ id: w.newId('cred'), n }));
    for (const t of things) idx.set(t.id, t);
    const late: Thing = { id: 'cred_foreign', n: 1001 };
    idx.set(late.id, late);
    expect(idx.retain((t) => t.n % 3 !== 0 && t.n !== 1001)).toBe(101);
    expect(idx.size).toBe(200);
    for (const t of things) expect(idx.get(t.id)).toBe(t.n % 3 !== 0 ? t : undefined);
    expect(idx.get(late.id)).toBeUndefined();
    const next: Thing = { id: w.newId('cred'), n: 9 };
    idx.set(next.id, next);
    expect(idx.get(next.id)).toBe(next);
  });

  it('replaces a late id once a retain has left it past the last ordered counter, instead of storing it twice', () => {
    const w = world();
    const idx = index();
    const [a, b, c] = [w.newId('cred'), w.newId('cred'), w.newId('cred')];
    idx.set(a, { id: a, n: 0 });
    idx.set(c, { id: c, n: 2 });
    idx.set(b, { id: b, n: 1 }); // drawn before c, stored after it: late
    expect(idx.retain((t) => t.id !== c)).toBe(1);
    // b's counter is now past the last ordered one (a's): setting it again must find it among the late ids.
    idx.set(b, { id: b, n: 10 });
    expect(idx.size).toBe(2);
    expect([...idx.values()].map((t) => t.n)).toEqual([0, 10]);
  });
});
