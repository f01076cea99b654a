// The house's own checks, run with the suite so CI holds them: Biome formats and lints every source file
// (biome.jsonc: its recommended rules, with the house's choices said there), and knip finds no unused file,
// dependency or export (knip.json names the entry points: the package, the CLI, the scripts and benches).
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const run = (bin: string, args: string[]) => spawnSync(resolve(ROOT, 'node_modules/.bin', bin), args, { cwd: ROOT, encoding: 'utf8' });

describe('lint', () => {
  it('biome: every file formatted, no lint finding (warnings fail too)', () => {
    const r = run('biome', ['check', '--error-on-warnings', '--reporter=github', '.']);
    expect(r.stdout + r.stderr, 'npx biome check --write . formats; the findings say the rest').not.toMatch(/::(error|warning)/);
    expect(r.status).toBe(0);
  }, 60_000);

  it('knip: no unused file, dependency or export', () => {
    const r = run('knip', ['--reporter', 'compact']);
    expect(r.stdout.trim(), 'knip --fix --fix-type exports,types drops unused exports').toBe('');
    expect(r.status).toBe(0);
  }, 120_000);
});
