// The esbuild settings the package's Node bundles are built with (dist/cli.js, dist/index.js: lib/build.mjs), shared
// with the benches that run a server compiled the same way (load/bench/sampled-server.ts): plain Node, no tsx.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * A module that finds files next to itself (`import.meta.url`) keeps finding them once bundled into `outdir`: its
 * `import.meta.url` becomes its own source file's URL, computed from the bundle's (the sources ship with it).
 */
export function keepModuleUrls(outdir) {
  return {
    name: 'keep-module-urls',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const fromOut = relative(outdir, args.path).split('\\').join('/');
        return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromOut)}, import.meta.url).href`), loader: 'ts' };
      });
    },
  };
}

/** Bundled ESM for Node 20 with the dependencies left to node_modules; no `keepNames` (tsx's adds a property per closure). */
export const NODE_BUNDLE = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
};
