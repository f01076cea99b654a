// The built package (lib/build.mjs): `swapsim --help` loads only commander and Node's built-ins before it
// answers (each command imports its engine, report or verifier modules when it runs), and nothing built needs tsx.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIST = new URL('../dist/', import.meta.url).pathname;

/** Packages and files `file` imports statically (`import … from`), following its relative imports. */
function staticImports(file: string, seen = new Set<string>()): Set<string> {
  const packages = new Set<string>();
  if (seen.has(file)) return packages;
  seen.add(file);
  const text = readFileSync(join(DIST, file), 'utf8');
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?\bfrom\s*"([^"]+)"|^\s*import\s*"([^"]+)"/gms)) {
    const spec = m[1] ?? m[2];
    if (spec.startsWith('./')) for (const p of staticImports(spec.slice(2), seen)) packages.add(p);
    else packages.add(spec);
  }
  return packages;
}

describe('the built CLI', () => {
  it('loads commander and node built-ins only, until a command runs', () => {
    const packages = [...staticImports('cli.js')].filter((p) => !p.startsWith('node:'));
    expect(packages).toEqual(['commander']);
  });

  it('needs no tsx anywhere in dist/', () => {
    for (const f of readdirSync(DIST).filter((f) => f.endsWith('.js')))
      expect(readFileSync(join(DIST, f), 'utf8'), f).not.toMatch(/["']tsx(\/[^"']*)?["']/);
  });
});
