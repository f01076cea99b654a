// `serve --init FILE` and `serve --demo`: seed data sent to the server's own `POST /_sim/init` once it listens,
// so the seeding is one journaled control call like any other (a `--state` folder keeps it; a restart does not
// seed again). FILE is YAML or JSON (YAML's parser reads both); the server checks it and answers in the envelope.
import { readFileSync } from 'node:fs';
import type { RunningServer } from '../fake-provider/server.ts';
import { StartError } from './start-errors.ts';

export interface SeedFlags {
  init?: string;
  demo?: boolean;
  controlToken?: string;
}

async function readSeedFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new StartError(`--init ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  // Loaded here, not at the top: `swapsim --help` loads commander alone (docs/performance.md).
  const { parse } = await import('yaml');
  try {
    return parse(text);
  } catch (e) {
    throw new StartError(`--init ${file}: not YAML or JSON (${(e as Error).message.split('\n')[0]})`);
  }
}

/** Sends the seed; returns a one-line summary, or throws a StartError naming the item the server refused. */
export async function seedAtStart(running: RunningServer, flags: SeedFlags): Promise<string | null> {
  if (!flags.init && !flags.demo) return null;
  const what = flags.init ? `--init ${flags.init}` : '--demo';
  let body: unknown;
  if (flags.init) body = await readSeedFile(flags.init);
  else {
    const { demoSeed } = await import('../fake-provider/seed/demo.ts');
    const org = [...running.runtime.world.orgs.values()][0];
    if (!org) throw new StartError('--demo: the world has no organization to fill');
    body = demoSeed(running.runtime.world.sim.seed, org.api_keys[0]);
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (flags.controlToken) headers.authorization = `Bearer ${flags.controlToken}`;
  const res = await fetch(`${running.control_url}/init`, { method: 'POST', headers, body: JSON.stringify(body) });
  const reply = (await res.json()) as {
    error?: { code: string; message: string; param?: string };
    organizations?: Array<{ accounts: unknown[] }>;
  };
  if (!res.ok || !reply.organizations) {
    const e = reply.error;
    throw new StartError(
      `${what}: refused (${res.status} ${e?.code ?? 'error'}${e?.param ? ` at ${e.param}` : ''}): ${e?.message ?? JSON.stringify(reply)}`,
    );
  }
  const accounts = reply.organizations.reduce((n, o) => n + o.accounts.length, 0);
  return `swapsim: ${what}: seeded ${reply.organizations.length} organization(s), ${accounts} account(s)`;
}
