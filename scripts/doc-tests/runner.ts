// Runs what README.md and docs/*.md tell a user to run, from the Markdown itself (scripts/doc-tests/markdown.ts),
// as a user would: in a scratch project where `swapsim`, `npx swapsim` and `import … from 'swapsim'` are this
// checkout, against a real `swapsim serve` on an ephemeral port where the block needs one. The conventions
// (languages, visible markers, runner hints) are in docs/testing.md#doc-tests.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Block } from './markdown.ts';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** README.md and every page under docs/. */
export function markdownFiles(): string[] {
  return [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
  ].map((f) => join(ROOT, f));
}

/**
 * A scratch project as a user has it after `npm install swapsim`: node_modules/swapsim is this checkout,
 * node_modules/.bin/swapsim its command, and the few packages the examples import (fast-check, vitest, tsx).
 */
export function scratchProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'swapsim-doc-tests-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'doc-tests', private: true, type: 'module' }));
  mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules/swapsim'));
  for (const dep of ['fast-check', 'vitest', 'tsx', '@types']) symlinkSync(join(ROOT, 'node_modules', dep), join(dir, 'node_modules', dep));
  symlinkSync(join(ROOT, 'bin/swapsim.js'), join(dir, 'node_modules/.bin/swapsim'));
  for (const bin of ['vitest', 'tsx']) symlinkSync(join(ROOT, 'node_modules/.bin', bin), join(dir, 'node_modules/.bin', bin));
  return dir;
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => ok(port));
    });
  });
}

/**
 * The block as run, on ports nobody else uses: swapsim's 4010 becomes the server's ephemeral port, and every other
 * local port the block names (an app's 3000, the reference integrator's 4020) one of its own.
 */
export async function localise(code: string, swapsim: number): Promise<{ code: string; ports: Map<number, number> }> {
  const ports = new Map<number, number>([[4010, swapsim]]);
  for (const m of code.matchAll(/\b(?:127\.0\.0\.1|localhost):(\d{4,5})\b|--port (\d{4,5})\b/g)) {
    const port = Number(m[1] ?? m[2]);
    if (!ports.has(port)) ports.set(port, await freePort());
  }
  const local = code
    .replace(/\b(127\.0\.0\.1|localhost):(\d{4,5})\b/g, (_, host: string, p: string) => `${host}:${ports.get(Number(p))}`)
    .replace(/--port (\d{4,5})\b/g, (_, p: string) => `--port ${ports.get(Number(p))}`);
  return { code: local, ports };
}

/** A yaml block hinted `ci` is a CI job: its `run:` steps in order, in one shell (backgrounded servers live on). */
export function ciSteps(yaml: string): string {
  const steps: string[] = [];
  for (const line of yaml.split('\n')) {
    const m = /^\s*-\s+run:\s+(.*)$/.exec(line);
    if (!m) continue;
    // The integrator's own tests, which this page cannot know: in their place, the server the recipe started
    // must answer on /v1 with its key, on its virtual clock.
    if (/^npm test\b/.test(m[1])) {
      steps.push(
        `curl -sf "$SWAPSIM_BASE_URL/assets" -H "Authorization: Bearer \${CI_API_KEY:-sk_ci}" >/dev/null && curl -sf "\${SWAPSIM_BASE_URL%/v1}/_sim/clock" | grep -q '"mode":"virtual"'`,
      );
    } else steps.push(m[1]);
  }
  if (steps.length === 0) throw new Error('a ci block with no `- run:` step');
  return steps.join('\n');
}

export interface Outcome {
  code: number | null;
  output: string;
  timedOut: boolean;
}

/** Runs a command in its own process group and ends the whole group (its background jobs too) afterwards. */
function runGroup(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeout_ms: number }): Promise<Outcome> {
  const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  let timedOut = false;
  const kill = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill('SIGTERM');
    setTimeout(() => kill('SIGKILL'), 3_000).unref();
  }, opts.timeout_ms);
  return new Promise((done) => {
    child.on('exit', (code) => {
      clearTimeout(timer);
      // What the block left running in the background (a `swapsim serve &`): stopped now, then killed.
      kill('SIGTERM');
      setTimeout(() => kill('SIGKILL'), 3_000).unref();
      // Let the pipes drain: a background job may still hold them.
      setTimeout(() => done({ code, output, timedOut }), 100);
    });
  });
}

/** `swapsim serve` as a block's precondition (hint `serve` or `serve="FLAGS"`), on the port given. */
async function startServer(port: number, flags: string, cwd: string): Promise<() => Promise<void>> {
  const ready = join(cwd, `.swapsim-ready-${port}.json`);
  const args = [
    join(ROOT, 'bin/swapsim.js'),
    'serve',
    '--port',
    String(port),
    '--ready-file',
    ready,
    ...flags.split(/\s+/).filter(Boolean),
  ];
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<void>((ok) => child.on('exit', () => ok()));
  for (let i = 0; !existsSync(ready); i++) {
    if (child.exitCode !== null || i > 1200) throw new Error(`swapsim serve did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return async () => {
    child.kill('SIGTERM');
    await exited;
  };
}

/** An app that answers 200 to everything: the integrator's webhook endpoint a block forwards to. */
async function startApp(port: number): Promise<Server> {
  const server = createServer((req, res) =>
    req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}')),
  );
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  return server;
}

/** A strict ESM TypeScript project's settings (what `tsc --init` gives, with Node's module resolution). */
const USER_TSC_FLAGS = [
  '--strict',
  '--target',
  'es2022',
  '--module',
  'nodenext',
  '--moduleResolution',
  'nodenext',
  '--skipLibCheck',
  '--types',
  'node',
];

/** Runs one block; resolves with what it printed and how it ended. */
export async function runBlock(block: Block, project: string, n: number): Promise<Outcome> {
  const swapsim = await freePort();
  const { code, ports } = await localise(block.code, swapsim);
  const cwd = block.hints.repo !== undefined ? ROOT : join(project, `block-${n}`);
  mkdirSync(cwd, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${join(project, 'node_modules/.bin')}:${process.env.PATH}`,
    SWAPSIM_PORT: String(swapsim),
    SWAPSIM_BASE_URL: `http://127.0.0.1:${swapsim}/v1`,
    // Reports the commands write go to the scratch project, never into the checkout's reports/out.
    SWAPSIM_REPORTS_DIR: join(project, 'reports'),
    FORCE_COLOR: '0',
    NO_COLOR: '1',
  };
  delete env.VITEST;
  delete env.VITEST_POOL_ID;
  delete env.VITEST_WORKER_ID;
  delete env.NODE_OPTIONS;
  const timeout_ms = Number(block.hints.timeout ?? 60) * 1000;
  const stop = block.hints.serve !== undefined ? await startServer(swapsim, block.hints.serve, cwd) : null;
  // Hint app: the integrator's app the block talks to on :3000 (a webhook endpoint answering 200).
  const app = block.hints.app !== undefined ? await startApp(ports.get(3000) ?? (await freePort())) : null;
  try {
    if (block.lang === 'sh') return await runGroup('bash', ['-euo', 'pipefail', '-c', code], { cwd, env, timeout_ms });
    if (block.lang === 'yaml') return await runGroup('bash', ['-euo', 'pipefail', '-c', ciSteps(code)], { cwd, env, timeout_ms });
    if (block.lang === 'ts') {
      const file = block.hints.vitest !== undefined ? 'example.test.ts' : 'example.ts';
      writeFileSync(join(cwd, file), code);
      // Type-checked as a user's strict TypeScript project would (tsx alone strips the types unread), against the
      // package's shipped declarations (node_modules/swapsim → dist/index.d.ts), before it runs.
      const checked = await runGroup(join(ROOT, 'node_modules/.bin/tsc'), ['--noEmit', ...USER_TSC_FLAGS, file], { cwd, env, timeout_ms });
      if (checked.code !== 0) return { ...checked, output: `tsc: the block does not type-check\n${checked.output}` };
      if (block.hints.vitest !== undefined)
        return await runGroup(join(project, 'node_modules/.bin/vitest'), ['run', '--root', cwd, '--reporter=dot', file], {
          cwd,
          env,
          timeout_ms,
        });
      return await runGroup(process.execPath, ['--import', 'tsx', file], { cwd, env, timeout_ms });
    }
    if (block.lang === 'json') {
      JSON.parse(block.code);
      return { code: 0, output: '', timedOut: false };
    }
    throw new Error(`${block.lang} blocks are not run`);
  } finally {
    await stop?.();
    await new Promise((ok) => (app ? app.close(() => ok(undefined)) : ok(undefined)));
  }
}

export function cleanup(project: string): void {
  rmSync(project, { recursive: true, force: true });
}

/** The few lines that say why a block failed. */
export function describeFailure(block: Block, outcome: Outcome): string {
  const how = outcome.timedOut ? `timed out after ${block.hints.timeout ?? 60} s` : `exited ${outcome.code}`;
  const out = outcome.output.length > 5000 ? `${outcome.output.slice(0, 2000)}\n…\n${outcome.output.slice(-3000)}` : outcome.output;
  return `${block.file}:${block.line} (${block.lang}) ${how}:\n${out}`;
}
