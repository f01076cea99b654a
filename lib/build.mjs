// Builds what the package runs, with plain Node and no tsx: dist/index.js (the library, `import ... from
// 'swapsim'`) and dist/cli.js (the `swapsim` command, run by bin/swapsim.js), ESM bundles of index.ts and
// cli/main.ts sharing their common code in dist/chunk-*.js (dependencies stay external), the dashboard in dist/ui;
// and, unless `--js`,
// the declarations: tsc writes one per module to dist/types, API Extractor rolls them into dist/index.d.ts (the
// one the package ships: 160 files became 1) and its CommonJS twin dist/index.d.cts. Run by `npm run build`, `pretest`, `prepare` and the test setup.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { keepModuleUrls, NODE_BUNDLE } from './node-bundle.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const jsOnly = process.argv.includes('--js');

// A chunk stays in dist/ itself (not a subfolder), so keepModuleUrls' paths relative to dist/ hold in it too.
// A build may run while a `swapsim` from the last one starts (a test or doc block that spawns vitest, whose setup
// builds): each file is replaced whole (written beside, then renamed) and only when it changed, and stale chunks
// go only after the new ones are in place, so a starting process never meets a missing or half-written chunk.
const built = await build({
  write: false,
  absWorkingDir: root,
  plugins: [keepModuleUrls(resolve(root, 'dist'))],
  entryPoints: { index: resolve(root, 'index.ts'), cli: resolve(root, 'cli/main.ts') },
  outdir: resolve(root, 'dist'),
  splitting: true,
  chunkNames: 'chunk-[hash]',
  ...NODE_BUNDLE,
});
mkdirSync(resolve(root, 'dist'), { recursive: true });
for (const out of built.outputFiles) {
  if (existsSync(out.path) && Buffer.from(out.contents).equals(readFileSync(out.path))) continue;
  writeFileSync(`${out.path}.tmp-${process.pid}`, out.contents);
  renameSync(`${out.path}.tmp-${process.pid}`, out.path);
}
const written = new Set(built.outputFiles.map((out) => out.path));
for (const f of readdirSync(resolve(root, 'dist'))) {
  if (/^chunk-.*\.js(\.map)?$/.test(f) && !written.has(resolve(root, 'dist', f))) rmSync(resolve(root, 'dist', f));
}

// The dashboard served at /_sim/ui (fake-provider/ui): its browser code bundled into app.js, the timeline chart
// (vega, vega-lite and the reports' swimlane spec) into chart.js, which the page loads on the first timeline, its
// page and stylesheet, and the trigger list as `swapsim trigger --list --json` prints it (the library imports the
// server, so the server reads the list from here). dist/ui ships in the package: the page works offline.
const ui = resolve(root, 'dist/ui');
mkdirSync(ui, { recursive: true });
await build({
  entryPoints: { app: resolve(root, 'dashboard/page/app.ts'), chart: resolve(root, 'dashboard/page/chart.ts') },
  outdir: ui,
  bundle: true,
  platform: 'browser',
  format: 'esm',
  target: 'es2022',
  minify: true,
  logLevel: 'warning',
});
for (const f of ['index.html', 'app.css']) copyFileSync(resolve(root, 'dashboard/page', f), resolve(ui, f));
writeFileSync(
  resolve(ui, 'triggers.json'),
  execFileSync(process.execPath, [resolve(root, 'bin/swapsim.js'), 'trigger', '--list', '--json'], {
    cwd: root,
    env: { ...process.env, SWAPSIM_FROM_SOURCE: '' },
  }),
);

if (!jsOnly) {
  rmSync(resolve(root, 'dist/types'), { recursive: true, force: true });
  const tsc = resolve(root, 'node_modules/.bin/tsc');
  execFileSync(tsc, ['-p', resolve(root, 'lib/tsconfig.types.json')], { stdio: 'inherit', cwd: root });
  const { Extractor, ExtractorConfig } = await import('@microsoft/api-extractor');
  const rolled = Extractor.invoke(ExtractorConfig.loadFileAndPrepare(resolve(root, 'lib/api-extractor.json')), {
    localBuild: true,
    showVerboseMessages: false,
  });
  if (!rolled.succeeded) throw new Error(`API Extractor: ${rolled.errorCount} errors, ${rolled.warningCount} warnings`);
  // The same declarations for `require` (package.json exports): read as CommonJS, their `import … from
  // 'fast-check'` resolves to fast-check's CommonJS types, the copy a CommonJS project's own import gets; one
  // file for both would give it two fast-check copies (TS2345 passing arbitraries.scenario() to fc.assert).
  copyFileSync(resolve(root, 'dist/index.d.ts'), resolve(root, 'dist/index.d.cts'));
}
