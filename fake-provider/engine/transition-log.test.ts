// The transition log's compact columns: records read back exactly as pushed, also once a value outgrows
// the narrow columns (more than 65,536 distinct transitions, a time 49 days after the first, a fraction).
import { describe, expect, it } from 'vitest';
import { createTransitionLog, type TransitionRecord } from './transition-log.ts';

const rec = (i: number, at_ms: number, kind = 'trade'): TransitionRecord => ({
  kind,
  entity_id: `trd_${i % 7}`,
  from: i % 3 === 0 ? null : `s${i % 5}`,
  event: `E${i % 4}`,
  to: `s${(i + 1) % 5}`,
  at_ms,
});

describe('transition log columns', () => {
  it('reads back what was pushed, in order and per entity', () => {
    const log = createTransitionLog();
    const want = Array.from({ length: 3000 }, (_, i) => rec(i, 1_767_225_600_000 + i * 250));
    for (const r of want) log.push(r);
    expect(log.length).toBe(3000);
    expect(log.records).toEqual(want);
    expect([...log.all()]).toEqual(want);
    expect(log.forEntity('trd_3')).toEqual(want.filter((r) => r.entity_id === 'trd_3'));
  });

  it('keeps exact times far from the first one, before it, and with fractions', () => {
    const log = createTransitionLog();
    const times = [1_767_225_600_000, 1_767_225_600_001, 1_767_225_600_000 + 50 * 86_400_000, 5, 1_767_225_600_000.5, 1_767_225_600_002];
    times.forEach((t, i) => log.push(rec(i, t)));
    expect(log.records.map((r) => r.at_ms)).toEqual(times);
  });

  it('keeps codes past 65,536 distinct transitions', () => {
    const log = createTransitionLog();
    const want = Array.from({ length: 70_000 }, (_, i) => ({ ...rec(i, 1000 + i), event: `E${i}` }));
    for (const r of want) log.push(r);
    const got = log.records;
    expect(got[0]).toEqual(want[0]);
    expect(got[65_535]).toEqual(want[65_535]);
    expect(got[65_536]).toEqual(want[65_536]);
    expect(got[69_999]).toEqual(want[69_999]);
  });

  it('widens every chunk: codes and times past the first 65,536 records, read back per entity', () => {
    const log = createTransitionLog();
    const want = Array.from({ length: 140_000 }, (_, i) => rec(i, 1_767_225_600_000 + i));
    want.push({ ...rec(140_000, 1_767_225_600_000 + 60 * 86_400_000), event: 'late' });
    for (let i = 0; i < 70_000; i++) want.push({ ...rec(i, 2_000_000_000_000 + i), event: `E${i}` });
    for (const r of want) log.push(r);
    expect(log.length).toBe(want.length);
    expect(log.records).toEqual(want);
    expect(log.forEntity('trd_5')).toEqual(want.filter((r) => r.entity_id === 'trd_5'));
  });
});

describe('transition log forget', () => {
  it("drops the named entities' records and rows, keeps the others in order, and appends after", () => {
    const log = createTransitionLog();
    // Past a chunk (65,536 records), world-style ids so rows are found by counter.
    const id = (i: number) => `trd_${'0'.repeat(12)}${i.toString(36).padStart(4, '0')}`;
    const want: TransitionRecord[] = [];
    for (let i = 0; i < 70_000; i++) {
      const r: TransitionRecord = {
        kind: 'trade',
        entity_id: id(i % 300),
        from: i % 3 === 0 ? null : `s${i % 5}`,
        event: `E${i % 4}`,
        to: `s${(i + 1) % 5}`,
        at_ms: 1000 + i,
      };
      want.push(r);
      log.push(r);
    }
    const gone = new Set(Array.from({ length: 300 }, (_, i) => id(i)).filter((_, i) => i % 4 === 1));
    const kept = want.filter((r) => !gone.has(r.entity_id));
    expect(log.forget(gone)).toBe(want.length - kept.length);
    expect(log.length).toBe(kept.length);
    expect(log.records).toEqual(kept);
    expect(log.forEntity(id(1))).toEqual([]);
    expect(log.forEntity(id(2))).toEqual(kept.filter((r) => r.entity_id === id(2)));
    expect(log.rowFor(id(1))).toBe(-1);
    // The engine's fast path still finds kept rows, and new entities append after.
    const row = log.rowFor(id(298));
    expect(row).toBeGreaterThanOrEqual(0);
    log.append(row, 'trade|s1|E9|s2', 99_999);
    const fresh = log.entityRow(id(5000));
    log.append(fresh, 'trade||CREATE|s0', 100_000);
    expect(log.records.slice(-2)).toEqual([
      { kind: 'trade', entity_id: id(298), from: 's1', event: 'E9', to: 's2', at_ms: 99_999 },
      { kind: 'trade', entity_id: id(5000), from: null, event: 'CREATE', to: 's0', at_ms: 100_000 },
    ]);
    expect(log.forget(new Set())).toBe(0);
  });

  it("finds each entity's row when row hints collide, and after forget moved the rows", () => {
    const log = createTransitionLog();
    const id = (i: number) => `trd_${'0'.repeat(12)}${i.toString(36).padStart(4, '0')}`;
    // Counters n and n + 2^15 share a hint slot: the second overwrites the first's.
    const ids = [...Array.from({ length: 100 }, (_, i) => id(i)), ...Array.from({ length: 100 }, (_, i) => id(32_768 + i))];
    for (const e of ids) log.append(log.entityRow(e), 'trade||CREATE|s0', 1);
    const stepAll = (which: string[], at_ms: number) => {
      for (const e of which) log.append(log.rowFor(e), 'trade|s0|E|s1', at_ms);
      return log.records.slice(-which.length).map((r) => r.entity_id);
    };
    expect(stepAll(ids, 2)).toEqual(ids);
    const gone = new Set(ids.filter((_, i) => i % 3 === 0));
    log.forget(gone);
    const kept = ids.filter((e) => !gone.has(e));
    expect(stepAll(kept, 3)).toEqual(kept);
    for (const e of gone) expect(log.rowFor(e)).toBe(-1);
  });
});
