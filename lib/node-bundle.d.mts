// Types of lib/node-bundle.mjs for the TypeScript benches that import it.
import type { BuildOptions, Plugin } from 'esbuild';
export function keepModuleUrls(outdir: string): Plugin;
export const NODE_BUNDLE: BuildOptions;
