// The benches' server child (soak-server.ts in a process of its own): started with the given arguments, it
// announces its port and then one sample a second, which are pushed to `samples` as they come. The child runs the
// server as `swapsim serve` does: compiled by esbuild with the package's own settings (lib/node-bundle.mjs, as
// dist/cli.js is) and run by plain `node`, not through tsx, whose loader thread and per-closure names (`keepNames`)
// added memory the product does not have.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { keepModuleUrls, NODE_BUNDLE } from '../../lib/node-bundle.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');

/** Bundles soak-server.ts into dist/bench/ (inside the package, so its external dependencies resolve). */
async function bundleSoakServer(): Promise<string> {
  const outdir = resolve(root, 'dist/bench');
  const outfile = resolve(outdir, `soak-server-${process.pid}.mjs`);
  await build({
    ...NODE_BUNDLE,
    absWorkingDir: root,
    plugins: [keepModuleUrls(outdir)],
    entryPoints: [resolve(here, 'soak-server.ts')],
    outfile,
  });
  return outfile;
}

export async function startSampledServer<S>(
  samples: S[],
  args: string[],
  node_args: string[] = [],
): Promise<{ url: string; stop(): Promise<void> }> {
  const entry = await bundleSoakServer();
  const child = spawn(process.execPath, [...node_args, entry, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const port = await new Promise<number>((ok, fail) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      // Node's own tracing (`--trace-gc`) writes to stdout too: pass it on to stderr, unparsed.
      if (!line.startsWith('{')) {
        process.stderr.write(`${line}\n`);
        return;
      }
      const msg = JSON.parse(line) as { port?: number; sample?: S };
      if (msg.port !== undefined) ok(msg.port);
      if (msg.sample) samples.push(msg.sample);
    });
    child.once('exit', (code) => fail(new Error(`bench server exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(entry, { force: true });
      rmSync(`${entry}.map`, { force: true });
    },
  };
}
