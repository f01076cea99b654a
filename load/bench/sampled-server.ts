// The benches' server child (soak-server.ts in a process of its own): started with the given arguments, it
// announces its port and then one sample a second, which are pushed to `samples` as they come.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export async function startSampledServer<S>(
  samples: S[],
  args: string[],
  node_args: string[] = [],
): Promise<{ url: string; stop(): Promise<void> }> {
  const here = dirname(fileURLToPath(import.meta.url));
  const child = spawn(process.execPath, [...node_args, '--import', 'tsx', resolve(here, 'soak-server.ts'), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const port = await new Promise<number>((ok, fail) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
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
    },
  };
}
