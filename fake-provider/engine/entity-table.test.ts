// EntityTable keeps its id index, its creation-ordered list and the indexes declared on it in step:
// through inserts (a second insert of an id is refused and changes nothing) and through `retain`, after
// which the unique index and the lookup index answer as if the dropped entities had never been there.
import { describe, expect, it } from 'vitest';
import { createSimKernel } from '../../sim/index.ts';
import { createWorld } from '../world.ts';
import { DEFAULT_PROFILE } from '../profile.ts';
import { EntityTable } from './entity-table.ts';

interface Credit {
  credit_id: string;
  org: string;
  source_type: string;
  source_id: string;
  role: string;
  tx: string;
}

const idOf = (c: Credit): string => c.credit_id;

function filled(n: number) {
  const world = createWorld({ sim: createSimKernel({ seed: 'entity-table' }), profile: DEFAULT_PROFILE });
  const table = new EntityTable<Credit>('cred', idOf);
  const bySource = table.uniqueIndex(['source_id', 'source_type', 'role']);
  const byTx = table.lookupIndex((c) => c.tx);
  const made: Credit[] = [];
  for (let i = 0; i < n; i++) {
    const c = {
      credit_id: world.newId('cred'),
      org: i % 3 === 0 ? 'org_a' : 'org_b',
      source_type: 'deposit',
      source_id: `dep_${i}`,
      role: 'deposit',
      tx: `0x${i}`,
    };
    made.push(table.insert(c));
  }
  return { world, table, bySource, byTx, made };
}

describe('EntityTable', () => {
  it('finds each entity by id, by its unique fields and by its lookup key, in creation order', () => {
    const { table, bySource, byTx, made } = filled(50);
    expect(table.size).toBe(50);
    expect(table.list).toEqual(made);
    expect([...table.values()]).toEqual(made);
    for (const c of made) {
      expect(table.get(c.credit_id)).toBe(c);
      expect(bySource.find(c.source_id, 'deposit', 'deposit')).toBe(c);
      expect(byTx.get(c.tx)).toBe(c);
    }
    expect(bySource.find('dep_1', 'deposit', 'change')).toBeUndefined();
    expect(table.has('cred_000000000000zzzz')).toBe(false);
  });

  it('refuses a second insert of an id and changes nothing', () => {
    const { table, made } = filled(5);
    expect(() => table.insert({ ...made[2] })).toThrow(/stored already/);
    expect(table.size).toBe(5);
    expect(table.list).toEqual(made);
    expect(table.get(made[2].credit_id)).toBe(made[2]);
  });

  it('retain drops from the id index, the list and every index, in order', () => {
    const { table, bySource, byTx, made } = filled(40);
    expect(byTx.get(made[0].tx)).toBe(made[0]); // the lookup index built before the drop
    const dropped = table.retain((c) => c.org !== 'org_a');
    const kept = made.filter((c) => c.org !== 'org_a');
    expect(dropped).toBe(made.length - kept.length);
    expect(table.size).toBe(kept.length);
    expect(table.list).toEqual(kept);
    for (const c of made) {
      const here = c.org !== 'org_a' ? c : undefined;
      expect(table.get(c.credit_id)).toBe(here);
      expect(bySource.find(c.source_id, 'deposit', 'deposit')).toBe(here);
      expect(byTx.get(c.tx)).toBe(here);
    }
  });

  it('indexes entities inserted before the index was declared, and after a retain', () => {
    const { world, table } = filled(10);
    const late = table.uniqueIndex(['source_id']);
    expect(late.find('dep_7')).toBe(table.list[7]);
    table.retain((c) => c.source_id !== 'dep_7');
    const c = table.insert({
      credit_id: world.newId('cred'),
      org: 'org_c',
      source_type: 'deposit',
      source_id: 'dep_7',
      role: 'deposit',
      tx: '0xnew',
    });
    expect(late.find('dep_7')).toBe(c);
    expect(late.size).toBe(10);
  });

  it('a table that keeps no list still finds, iterates and retains by id, and refuses indexes', () => {
    const world = createWorld({ sim: createSimKernel({ seed: 'entity-table-nolist' }), profile: DEFAULT_PROFILE });
    const table = new EntityTable<Credit>('cred', idOf, { keepsList: false });
    const made = Array.from({ length: 6 }, (_, i) =>
      table.insert({
        credit_id: world.newId('cred'),
        org: i % 2 ? 'org_a' : 'org_b',
        source_type: 'deposit',
        source_id: `dep_${i}`,
        role: 'deposit',
        tx: `0x${i}`,
      }),
    );
    expect(table.list).toEqual([]);
    expect([...table.values()]).toEqual(made);
    expect(table.retain((c) => c.org === 'org_b')).toBe(3);
    expect([...table.values()]).toEqual(made.filter((c) => c.org === 'org_b'));
    expect(table.get(made[1].credit_id)).toBeUndefined();
    expect(() => table.uniqueIndex(['source_id'])).toThrow(/no indexes/);
  });
});
