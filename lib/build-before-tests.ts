// Vitest global setup: rebuilds dist/ (JS only, ~0.5 s) before any test runs, so the tests that run the
// `swapsim` command (bin/swapsim.js → dist/cli.js) or import the built library never meet a stale build.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL('./build.mjs', import.meta.url)), '--js'], { stdio: 'inherit' });
}
