// Builds the library for `import ... from 'swapsim'`: dist/index.js, one ESM bundle of index.ts and what it
// reaches (dependencies stay external), runnable by plain Node without tsx; and, unless `--js`, declaration
// files in dist/types (tsc) for the package's "types". Run by `npm run build`, `pretest` and `prepare`.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const jsOnly = process.argv.includes('--js');

/**
 * A module that finds files next to itself (`import.meta.url`) keeps finding them once bundled: its
 * `import.meta.url` becomes its own source file's URL, computed from the bundle's (the sources ship with it).
 */
const keepModuleUrls = {
  name: 'keep-module-urls',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const fromDist = relative(resolve(root, 'dist'), args.path).split('\\').join('/');
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromDist)}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

await build({
  plugins: [keepModuleUrls],
  entryPoints: [resolve(root, 'index.ts')],
  outfile: resolve(root, 'dist/index.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});

if (!jsOnly) {
  rmSync(resolve(root, 'dist/types'), { recursive: true, force: true });
  const tsc = resolve(root, 'node_modules/.bin/tsc');
  execFileSync(tsc, ['-p', resolve(root, 'lib/tsconfig.types.json')], { stdio: 'inherit', cwd: root });
}
