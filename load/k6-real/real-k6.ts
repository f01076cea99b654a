// Running the bundled load scripts with a real k6 (from PATH) against an in-process realtime swapsim, for
// load/k6-real tests: the bundles built once per file, each run bounded by a kill timer, its stdout,
// stderr, exit status and summary files returned. K6 is null when no k6 is on PATH (tests then skip).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error: a plain .mjs build script without declarations
import { buildLoad } from '../../scripts/build-load.mjs';

function findK6(): string | null {
  const r = spawnSync('sh', ['-c', 'command -v k6'], { encoding: 'utf8' });
  const path = r.status === 0 ? r.stdout.trim() : '';
  return path !== '' && existsSync(path) ? path : null;
}

export const K6: string | null = findK6();
export const SKIP_LINE = 'real k6 not on PATH: load/k6-real skipped (build one: docs/k6.md, "A real k6")';

export interface K6Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The folder it ran in (summaries land under SUMMARY_DIR relative to it). */
  cwd: string;
  json(name: string): any;
  junit(name: string): string;
}

let bundles: Promise<string> | null = null;
/** dist-like folder with every bundle, built once per test file; K6_BUNDLE_DIR runs other bundles instead
 *  (an older commit's `npm run build:load`, to see a new test go red on the bug it is about). */
function bundleDir(): Promise<string> {
  if (process.env.K6_BUNDLE_DIR) return Promise.resolve(process.env.K6_BUNDLE_DIR);
  if (bundles === null) {
    const out = mkdtempSync(join(tmpdir(), 'k6-real-bundles-'));
    bundles = (buildLoad(out) as Promise<unknown>).then(() => out);
  }
  return bundles as Promise<string>;
}

/** `k6 run -q` one bundle with `-e` for each env entry, killed after `timeout_ms` (then code is null). */
export async function runK6(
  script: string,
  env: Record<string, string>,
  o: { cwd?: string; args?: string[]; timeout_ms?: number; mkdir?: boolean; onStart?: () => void } = {},
): Promise<K6Run> {
  const dir = await bundleDir();
  const cwd = o.cwd ?? mkdtempSync(join(tmpdir(), 'k6-real-run-'));
  const summaryDir = env.SUMMARY_DIR ?? 'load/results';
  if (o.mkdir !== false) mkdirSync(join(cwd, summaryDir), { recursive: true });
  const args = [
    'run',
    '-q',
    '--no-usage-report',
    ...(o.args ?? []),
    ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    join(dir, `${script}.js`),
  ];
  return new Promise((resolve) => {
    // PWD as a shell sets it: k6 passes it to the scripts, which resolve SUMMARY_DIR against it.
    const child = spawn(K6!, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PWD: cwd, K6_NO_USAGE_REPORT: 'true' },
    });
    o.onStart?.();
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeout_ms ?? 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        code,
        stdout,
        stderr,
        cwd,
        json: (name) => JSON.parse(readFileSync(join(cwd, summaryDir, `${name}-summary.json`), 'utf8')),
        junit: (name) => readFileSync(join(cwd, summaryDir, `${name}-junit.xml`), 'utf8'),
      });
    });
  });
}

/** A phase's figures from a limit script's summary JSON: requests, 429s, 2xx. */
export function phaseCounts(summary: any, phase: string): { requests: number; rejected: number; accepted: number } {
  const r = summary.metrics[`rl_rejected{scenario:${phase}}`]?.values ?? { passes: 0, fails: 0 };
  const a = summary.metrics[`rl_accepted{scenario:${phase}}`]?.values ?? { passes: 0 };
  return { requests: r.passes + r.fails, rejected: r.passes, accepted: a.passes };
}
