// The serve flags of persistence (cli/persist.ts) refuse combinations that cannot mean anything, before
// anything starts (each a StartError: one line, exit 2).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPersistFlags } from './persist.ts';

describe('persistence flags', () => {
  it('refuses what cannot go together', () => {
    const dir = mkdtempSync(join(tmpdir(), 'swapsim-flags-'));
    expect(() => checkPersistFlags({ untilLine: 5 })).toThrow('--until-line needs --from JOURNAL');
    expect(() => checkPersistFlags({ fsync: 'answers' })).toThrow('--fsync applies to --state DIR');
    expect(() => checkPersistFlags({ state: dir, journal: 'x.jsonl' })).toThrow('keeps its own journal');
    expect(() => checkPersistFlags({ from: 'run.jsonl', init: 'seed.yaml' })).toThrow('--init and --demo do not apply');
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    expect(() => checkPersistFlags({ state: file })).toThrow('is not a folder');
    writeFileSync(join(dir, 'journal.jsonl'), '{"kind":"header"}\n');
    expect(() => checkPersistFlags({ state: dir, from: 'run.jsonl' })).toThrow('already holds a world');
    expect(() => checkPersistFlags({ state: dir, fsync: 'answers', init: 'seed.yaml' })).not.toThrow();
  });
});
