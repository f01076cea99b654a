// The planted-bug catalog stays plantable: every edit's text occurs exactly once in today's source (a
// refactor that moves it fails here, not silently in `npm run mutants`), ids are unique, and every area
// the catalog promises has bugs in it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MUTANTS } from './catalog.ts';

describe('mutant catalog', () => {
  it('has at least 25 bugs with unique ids across every area', () => {
    expect(MUTANTS.length).toBeGreaterThanOrEqual(25);
    expect(new Set(MUTANTS.map((m) => m.id)).size).toBe(MUTANTS.length);
    expect(new Set(MUTANTS.map((m) => m.area))).toEqual(
      new Set([
        'credits',
        'execution',
        'trades',
        'zaps',
        'cancels',
        'recoveries',
        'deposits',
        'webhooks',
        'idempotency',
        'rfqs',
        'destinations',
      ]),
    );
  });

  for (const m of MUTANTS) {
    it(`${m.id}: each edit applies exactly once and changes the file`, () => {
      for (const e of m.edits) {
        const text = readFileSync(e.file, 'utf8');
        const at = text.indexOf(e.find);
        expect(at, `${e.file} lacks the text ${m.id} replaces`).toBeGreaterThanOrEqual(0);
        expect(text.indexOf(e.find, at + 1), `${e.file} holds the text ${m.id} replaces more than once`).toBe(-1);
        expect(e.replace).not.toBe(e.find);
      }
    });
  }
});
