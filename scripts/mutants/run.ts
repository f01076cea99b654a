// `npm run mutants [-- --only id,id] [--list]`: plants each bug of the catalog, one at a time, in a scratch
// copy of the working tree and runs only the property tests (whose every step checks /_sim/invariants,
// the spec oracle included) against it. Prints which test caught each bug and the first line of its
// failure; exits 1 when any bug survives. Slow by design (minutes per survivor): it is kept out of npm test.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { MUTANTS, type Mutant } from './catalog.ts';

/** The property tests: model-based runs and seeded profile sweeps, each checking /_sim/invariants as it goes. */
export const PROPERTY_TESTS = [
  'scenarios/model-trading/trading-model.test.ts',
  'scenarios/model-trading/deletion.test.ts',
  'scenarios/model/core-model.test.ts',
  'scenarios/model/webhook-guard.test.ts',
  'scenarios/model/retry-window.test.ts',
  'fake-provider/profiles/adversarial-invariants.test.ts',
];

interface Outcome {
  mutant: Mutant;
  caught: boolean;
  by: string | null;
  first_line: string | null;
  seconds: number;
}

/** Replaces each edit's text, which must occur exactly once; returns the original contents to restore. */
export function applyEdits(root: string, mutant: Mutant): Map<string, string> {
  const originals = new Map<string, string>();
  for (const edit of mutant.edits) {
    const path = join(root, edit.file);
    const text = originals.get(path) ?? readFileSync(path, 'utf8');
    if (!originals.has(path)) originals.set(path, text);
    const current = readFileSync(path, 'utf8');
    const at = current.indexOf(edit.find);
    if (at < 0 || current.indexOf(edit.find, at + 1) >= 0)
      throw new Error(`${mutant.id}: the text to replace does not occur exactly once in ${edit.file}`);
    writeFileSync(path, current.slice(0, at) + edit.replace + current.slice(at + edit.find.length));
  }
  return originals;
}

function scratchCopy(): string {
  const root = mkdtempSync(join(tmpdir(), 'swapsim-mutants-'));
  const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
    .stdout.split('\0')
    .filter(Boolean);
  for (const f of files) {
    // A node_modules that is a symlink (a worktree sharing another's) is not ignored by `node_modules/`: it is
    // linked below, not copied.
    if (!existsSync(f) || f === 'node_modules') continue;
    mkdirSync(dirname(join(root, f)), { recursive: true });
    cpSync(f, join(root, f));
  }
  symlinkSync(join(process.cwd(), 'node_modules'), join(root, 'node_modules'), 'dir');
  return root;
}

function runOne(root: string, mutant: Mutant): Outcome {
  const started = Date.now();
  const originals = applyEdits(root, mutant);
  const json = join(root, 'mutant-results.json');
  rmSync(json, { force: true });
  spawnSync('npx', ['vitest', 'run', ...PROPERTY_TESTS, '--bail=1', '--reporter=json', `--outputFile=${json}`], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true' },
  });
  for (const [path, text] of originals) writeFileSync(path, text);
  let by: string | null = null;
  let first_line: string | null = null;
  try {
    const results = JSON.parse(readFileSync(json, 'utf8'));
    for (const file of results.testResults ?? []) {
      const failed = (file.assertionResults ?? []).find((a: { status: string }) => a.status === 'failed');
      if (failed || file.status === 'failed') {
        by = String(file.name).replace(`${root}/`, '');
        const msg: string = failed?.failureMessages?.[0] ?? file.message ?? '';
        // The assertion that caught it: fast-check's "Caused by" line, else the first violation or expectation.
        const lines = msg.split('\n').map((l) => l.trim());
        first_line = (
          lines.find((l) => /^(Caused by|Got error)|AssertionError/.test(l)) ??
          lines.find((l) => /"invariant"|spec\.|expected/.test(l)) ??
          lines[0]
        ).slice(0, 300);
        break;
      }
    }
  } catch {
    first_line = 'no results: vitest did not run';
  }
  return { mutant, caught: by !== null, by, first_line, seconds: Math.round((Date.now() - started) / 1000) };
}

function main(): void {
  const args = process.argv.slice(2);
  if (args.includes('--list')) {
    for (const m of MUTANTS) console.log(`${m.id.padEnd(32)} ${m.area.padEnd(13)} ${m.summary}`);
    return;
  }
  const onlyAt = args.indexOf('--only');
  const only = onlyAt >= 0 ? new Set(args[onlyAt + 1].split(',')) : null;
  const chosen = MUTANTS.filter((m) => only === null || only.has(m.id));
  const root = scratchCopy();
  console.log(`mutants: ${chosen.length} planted bugs, each against ${PROPERTY_TESTS.length} property test files (scratch copy ${root})`);
  const outcomes: Outcome[] = [];
  try {
    for (const m of chosen) {
      const o = runOne(root, m);
      outcomes.push(o);
      console.log(
        `${o.caught ? 'caught  ' : 'SURVIVED'} ${m.id.padEnd(32)} ${String(o.seconds).padStart(4)} s  ${o.caught ? `${o.by}: ${o.first_line}` : m.summary}`,
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const survived = outcomes.filter((o) => !o.caught);
  console.log(
    `${outcomes.length - survived.length} of ${outcomes.length} planted bugs caught by the property tests and invariants${survived.length ? `; survived: ${survived.map((o) => o.mutant.id).join(', ')}` : ''}`,
  );
  process.exit(survived.length ? 1 : 0);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
