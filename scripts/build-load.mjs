// Bundles each k6 entry script (load/k6/*.ts) to dist/load/<name>.js for real k6: ESM, es2017 (older
// k6 parsers reject `?.`, `??` and class fields; es2015 would break async), k6's own modules external,
// everything else (lib/) inlined, so the bundles run offline on k6 v0.48 and later.
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../..');
export const K6_DIR = join(root, 'load/k6');

/** The entry scripts: every .ts directly in load/k6 except tests and declarations. */
export function loadEntries(dir = K6_DIR) {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
    .sort()
    .map((f) => join(dir, f));
}

export async function buildLoad(outdir = join(root, 'dist/load')) {
  const entries = loadEntries();
  await build({
    entryPoints: Object.fromEntries(entries.map((e) => [basename(e, '.ts'), e])),
    outdir,
    bundle: true,
    format: 'esm',
    target: 'es2017',
    platform: 'neutral',
    external: ['k6', 'k6/*'],
    charset: 'utf8',
    logLevel: 'warning',
    banner: { js: '// Built by `npm run build:load` from load/k6 (esbuild, es2017, ESM). Edit the .ts sources, not this file.' },
  });
  return entries.map((e) => join(outdir, `${basename(e, '.ts')}.js`));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = await buildLoad(process.argv[2] ? resolve(process.argv[2]) : undefined);
  for (const f of out) console.log(f);
}
