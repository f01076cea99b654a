// A server rule's `times` shared by several worlds (faults.ts ShareLedger), at the kernel: worlds interleaved one way
// while recording and another while replaying get the same firings and draw the same numbers, `probability` < 1
// included; the count alone (a journal without the marks) would not.
import { describe, expect, it } from 'vitest';
import { createFaultPlan, createRng, FAULT_TIMES_FACT, type FaultPlan, type Journal, type JournalEntry } from './index.ts';

/** A journal in memory: records entries, or replays the `fact` lines of a recording (each once, as the tape does). */
function memoryJournal(mode: 'record' | 'replay', recorded: JournalEntry[] = []): Journal & { entries: JournalEntry[] } {
  const facts = new Map<string, unknown[]>();
  for (const e of recorded) if (e.kind === 'fact') facts.set(`${e.what}|${e.key}`, [...(facts.get(`${e.what}|${e.key}`) ?? []), e.value]);
  const entries: JournalEntry[] = [];
  return {
    path: null,
    mode,
    entries,
    write: (e) => void entries.push(e),
    outside: (_what, _key, read) => read(),
    fact(what, key, when) {
      const list = facts.get(`${what}|${key}`);
      if (!list?.length || (when && !when(list[0]))) return undefined;
      return list.shift();
    },
    close: () => undefined,
  };
}

const RULE = { target: 'trade', effect: { fail: 'settlement_timeout' }, match: {}, probability: 0.5, times: 3 } as const;
const SUBJECT = { accepts: ['fail'] };

/** The server's plan and two followers', on `journal`; each world's outcome per match, in the order `turns` gives. */
function run(journal: Journal, turns: string): Record<string, boolean[]> {
  const server = createFaultPlan(createRng('s', 'faults'), undefined, { world: 'server', journal: () => journal });
  server.add({ ...RULE, match: {} }, 'fault_1', 0);
  const worlds: Record<string, FaultPlan> = { server };
  for (const id of ['org_a', 'org_b'])
    worlds[id] = createFaultPlan(createRng(`s/${id}`, 'faults'), () => server, { world: id, journal: () => journal });
  const out: Record<string, boolean[]> = { server: [], org_a: [], org_b: [] };
  const names: Record<string, string> = { s: 'server', a: 'org_a', b: 'org_b' };
  for (const t of turns) out[names[t]].push(worlds[names[t]].fire('trade', SUBJECT, 0).length > 0);
  return out;
}

describe('a shared `times` count, journaled per world', () => {
  it('a replay in another interleaving gives every world the same firings and draws; the count alone would not', () => {
    const live = memoryJournal('record');
    const recorded = run(live, 'sabsabababsbabab');
    // Three firings in all, and some world matched with the count spent.
    expect(Object.values(recorded).flat().filter(Boolean)).toHaveLength(3);
    const marks = live.entries.filter((e) => e.what === FAULT_TIMES_FACT);
    expect(marks.some((e) => (e.value as { open: boolean }).open === false)).toBe(true);
    // Every world's matches grouped, in the reverse order of the worlds.
    const other = 'bbbbbbbaaaaaasss';
    expect(run(memoryJournal('replay', live.entries), other)).toEqual(recorded);
    expect(run(memoryJournal('replay', []), other)).not.toEqual(recorded);
  });
});
