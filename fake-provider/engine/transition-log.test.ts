// The transition log's compact columns: records read back exactly as pushed, also once a value outgrows
// the narrow columns (more than 65,536 distinct transitions, a time 49 days after the first, a fraction).
import { describe, expect, it } from 'vitest';
import { createTransitionLog, type TransitionRecord } from './transition-log.ts';

const rec = (i: number, at_ms: number, kind = 'trade'): TransitionRecord => ({
  kind, entity_id: `trd_${i % 7}`, from: i % 3 === 0 ? null : `s${i % 5}`, event: `E${i % 4}`, to: `s${(i + 1) % 5}`, at_ms,
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
