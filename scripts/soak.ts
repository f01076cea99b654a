// `npm run test:soak`: runs exactly the model property tests (core, trading) many times in one vitest run,
// shows progress from the lines they append to SWAPSIM_PROGRESS_FILE, and writes a SoakResult report.json
// and its report.html. Exit status: 0 every property passed, 1 one failed (or reached no verdict), 2 usage.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Command, type CommanderError, InvalidArgumentError } from 'commander';
import { writeReport } from '../reports/index.ts';
import { outputDir, writeReportJson } from '../reports/output.ts';
import { createProgress, type Progress, type ProgressOptions } from '../reports/progress.ts';
import type { SoakFailure, SoakProperty, SoakResult, SoakSample } from '../reports/types.ts';
import type { SoakProgressLine } from './soak-progress.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
/** Samples kept per property in report.json (evenly thinned): enough for the chart, small on disk. */
const MAX_SAMPLES = 400;

/** A soakable property test and the environment variables it reads. */
export interface SoakTarget {
  name: string;
  test_file: string;
  env: { runs: string; seed: string; path: string };
  /** The folder `npx vitest run` gets in the replay command. */
  replay_dir: string;
  /** A vitest config other than the repository's (tests use it to soak a fixture property). */
  config?: string;
}

export const TARGETS: SoakTarget[] = [
  {
    name: 'core',
    test_file: 'scenarios/model/core-model.test.ts',
    env: { runs: 'SWAPSIM_MODEL_RUNS', seed: 'SWAPSIM_MODEL_SEED', path: 'SWAPSIM_MODEL_PATH' },
    replay_dir: 'scenarios/model',
  },
  {
    name: 'trading',
    test_file: 'scenarios/model-trading/trading-model.test.ts',
    env: { runs: 'SWAPSIM_TRADING_RUNS', seed: 'SWAPSIM_TRADING_SEED', path: 'SWAPSIM_TRADING_PATH' },
    replay_dir: 'scenarios/model-trading',
  },
];

export interface SoakOptions {
  runs: number;
  seed: number;
  targets: SoakTarget[];
  command: string;
  /** Where the output folder goes (default reports/out or SWAPSIM_REPORTS_DIR). */
  root?: string;
  /** Where progress goes (default stderr). */
  stream?: ProgressOptions['stream'];
}

export const replayCommand = (t: SoakTarget, seed: number, path: string): string =>
  `${t.env.seed}=${seed} ${t.env.path}=${path} npx vitest run ${t.replay_dir}`;

const stripAnsi = (s: string): string => stripVTControlCharacters(s);

/** fast-check's failure report (the message of the error fc.assert throws), as far as it can be read. */
export function parseFastCheckFailure(message: string): Omit<SoakFailure, 'replay_command' | 'error'> | undefined {
  const text = stripAnsi(message);
  const where = /\{ seed: (-?\d+), path: "([^"]*)"/.exec(text);
  if (!where) return undefined;
  const counterexample = /^Counterexample: (.*)$/m.exec(text)?.[1] ?? '';
  const replay = [...counterexample.matchAll(/\/\*replayPath="([^"]*)"\*\//g)].pop();
  const shrinks = /^Shrunk (\d+) time\(s\)$/m.exec(text);
  const after = /Property failed after (\d+) tests/.exec(text);
  return {
    seed: Number(where[1]),
    path: where[2],
    counterexample,
    ...(replay ? { replay_path: replay[1] } : {}),
    ...(shrinks ? { shrinks: Number(shrinks[1]) } : {}),
    ...(after ? { after_runs: Number(after[1]) } : {}),
  };
}

interface Live {
  runs: number;
  failed: boolean;
  shrinks: number;
  error?: string;
  samples: SoakSample[];
}

/** Follows the progress file the tests append to; `poll()` reads what is new since the last call. */
function tailProgress(file: string, started_epoch_ms: number, live: Map<string, Live>): { poll: () => boolean } {
  let offset = 0;
  let rest = '';
  return {
    poll() {
      if (!existsSync(file)) return false;
      const size = statSync(file).size;
      if (size <= offset) return false;
      const fd = openSync(file, 'r');
      const buf = Buffer.alloc(size - offset);
      try {
        readSync(fd, buf, 0, buf.length, offset);
      } finally {
        closeSync(fd);
      }
      offset = size;
      const lines = (rest + buf.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      for (const text of lines) {
        let line: SoakProgressLine;
        try {
          line = JSON.parse(text);
        } catch {
          continue;
        }
        const p = live.get(line.property);
        if (!p) continue;
        Object.assign(p, { runs: line.runs, failed: line.failed, shrinks: line.shrinks }, line.error ? { error: line.error } : {});
        if (!line.failed || line.shrinks === 0) p.samples.push({ elapsed_ms: line.t_ms - started_epoch_ms, runs: line.runs });
      }
      return lines.length > 0;
    },
  };
}

const thin = <T>(xs: T[], max: number): T[] =>
  xs.length <= max ? xs : xs.filter((_, i) => i % Math.ceil(xs.length / max) === 0 || i === xs.length - 1);

/** Feeds progress.ts from the live counts. Off a TTY only a change is passed on (progress.ts then writes at
 *  most a line per interval, and every tick once all runs are done: unchanged ticks would repeat that line). */
function ticker(progress: Progress, live: Map<string, Live>, runs: number, tty: boolean): () => void {
  let last = '';
  return () => {
    const all = [...live.entries()];
    const note = all.map(([name, p]) => `${name} ${p.runs}/${runs}${p.failed ? ` FAILED, shrinking (${p.shrinks})` : ''}`).join(' · ');
    if (!tty && note === last) return;
    last = note;
    progress.tick({ done: all.reduce((s, [, p]) => s + p.runs, 0), failures: all.filter(([, p]) => p.failed).length, note });
  };
}

interface VitestJson {
  testResults?: Array<{
    name: string;
    message?: string;
    status?: string;
    assertionResults?: Array<{ status: string; duration?: number; failureMessages?: string[] }>;
  }>;
}

function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** One property's result from vitest's JSON report and what its progress lines said. */
function propertyResult(t: SoakTarget, o: SoakOptions, json: VitestJson | undefined, p: Live, wall_ms: number): SoakProperty {
  const file = json?.testResults?.find((f) => resolve(f.name) === resolve(ROOT, t.test_file));
  const test = file?.assertionResults?.[0];
  const passed = test?.status === 'passed';
  const parsed = test && !passed ? (test.failureMessages ?? []).map(parseFastCheckFailure).find(Boolean) : undefined;
  const failures: SoakFailure[] = parsed
    ? [{ ...parsed, ...(p.error ? { error: stripAnsi(p.error) } : {}), replay_command: replayCommand(t, parsed.seed, parsed.path) }]
    : [];
  const runs = passed ? o.runs : (parsed?.after_runs ?? p.runs);
  const took_ms = test?.duration ?? wall_ms;
  const noVerdict = !passed && !parsed;
  const why = noVerdict
    ? stripAnsi(test?.failureMessages?.[0] ?? file?.message ?? (json ? 'vitest reported no result for it' : 'vitest wrote no results'))
        .split('\n')
        .slice(0, 12)
        .join('\n')
    : undefined;
  return {
    name: t.name,
    test_file: t.test_file,
    runs_requested: o.runs,
    runs,
    seed: o.seed,
    passed,
    failures,
    ...(why ? { error: `${why} (full output: vitest.log beside report.json)` } : {}),
    wall_ms: Math.round(took_ms),
    runs_per_s: took_ms > 0 ? Math.round((runs / (took_ms / 1000)) * 100) / 100 : 0,
    samples: thin(p.samples, MAX_SAMPLES),
  };
}

function runVitest(o: SoakOptions, env: NodeJS.ProcessEnv, json: string, log: string): Promise<number> {
  const configs = [...new Set(o.targets.map((t) => t.config))];
  if (configs.length > 1) throw new Error('soak targets must share one vitest config');
  const args = [
    VITEST,
    'run',
    ...o.targets.map((t) => t.test_file),
    '--reporter=json',
    `--outputFile.json=${json}`,
    '--testTimeout=0',
    ...(configs[0] ? ['--config', configs[0]] : []),
  ];
  const fd = openSync(log, 'a');
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', fd, fd] });
  const stop = (): void => void child.kill('SIGINT');
  process.once('SIGINT', stop);
  return new Promise((done) =>
    child.on('exit', (code, signal) => {
      process.off('SIGINT', stop);
      closeSync(fd);
      done(code ?? (signal ? 130 : 1));
    }),
  );
}

/**
 * Runs the targets' property tests `runs` times each with one seed, then writes report.json and report.html.
 * @example const { result, page } = await runSoak({ runs: 20, seed: 7, targets: TARGETS.slice(0, 1), command: 'soak' });
 */
export async function runSoak(o: SoakOptions): Promise<{ result: SoakResult; dir: string; page: string }> {
  const dir = outputDir(`soak-${o.targets.map((t) => t.name).join('-')}`, o.root);
  const file = join(dir, 'progress.jsonl');
  const json = join(dir, 'vitest.json');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SWAPSIM_PROGRESS_FILE: file,
    SWAPSIM_PROGRESS_EVERY: String(Math.max(1, Math.round(o.runs / 500))),
  };
  for (const t of o.targets) Object.assign(env, { [t.env.runs]: String(o.runs), [t.env.seed]: String(o.seed) });
  for (const t of o.targets) delete env[t.env.path];
  const started_at = new Date();
  const live = new Map<string, Live>(o.targets.map((t) => [t.name, { runs: 0, failed: false, shrinks: 0, samples: [] }]));
  const tail = tailProgress(file, started_at.getTime(), live);
  const progress = createProgress({ label: 'soak', total: o.runs * o.targets.length, stream: o.stream, every_ms: 30_000 });
  // Polls twice a second; on a TTY every poll redraws (the elapsed time moves), off a TTY a line at most every 30 s.
  const tick = ticker(progress, live, o.runs, Boolean((o.stream ?? process.stderr).isTTY));
  const timer = setInterval(() => {
    tail.poll();
    tick();
  }, 500);
  const started_ms = performance.now();
  try {
    await runVitest(o, env, json, join(dir, 'vitest.log'));
  } finally {
    clearInterval(timer);
  }
  tail.poll();
  tick();
  const wall_ms = Math.round(performance.now() - started_ms);
  const report = readJson<VitestJson>(json);
  const properties = o.targets.map((t) => propertyResult(t, o, report, live.get(t.name)!, wall_ms));
  const failed = properties.filter((p) => !p.passed).length;
  progress.done();
  const result: SoakResult = {
    kind: 'soak',
    started_at: started_at.toISOString(),
    command: o.command,
    seed: o.seed,
    runs_requested: o.runs,
    passed: properties.length - failed,
    failed,
    wall_ms,
    machine: { cpus: cpus().length, node: process.version },
    properties,
  };
  writeReportJson(dir, result);
  return { result, dir, page: await writeReport(dir) };
}

/** 1 when a property failed or reached no verdict, else 0. */
export const exitCodeFor = (r: SoakResult): number => (r.failed ? 1 : 0);

/** What a person reads at the end: one line per property, and for a failure what replays it. */
export function formatSoak(r: SoakResult): string {
  const lines: string[] = [];
  for (const p of r.properties) {
    lines.push(
      `${p.name}: ${p.passed ? 'passed' : 'FAILED'}, ${p.runs}/${p.runs_requested} runs in ${(p.wall_ms / 1000).toFixed(1)}s (${p.runs_per_s} runs/s), seed ${p.seed}`,
    );
    for (const f of p.failures) {
      lines.push(
        `  seed ${f.seed}, path ${f.path}${f.replay_path ? `, replayPath ${f.replay_path}` : ''}`,
        `  counterexample: ${f.counterexample}`,
      );
      if (f.error) lines.push(`  error: ${f.error.split('\n')[0]}`);
      lines.push(`  replay: ${f.replay_command}`);
    }
    if (p.error) lines.push(`  no verdict: ${p.error.split('\n')[0]}`);
  }
  return lines.join('\n');
}

const positiveInt = (v: string): number => {
  if (!/^[1-9][0-9]*$/.test(v)) throw new InvalidArgumentError('a positive integer');
  return Number(v);
};

const seedArg = (v: string): number => {
  if (!/^-?[0-9]+$/.test(v) || Math.abs(Number(v)) > 2 ** 31 - 1) throw new InvalidArgumentError('an integer within ±2147483647');
  return Number(v);
};

const onlyArg = (v: string): string => {
  if (!TARGETS.some((t) => t.name === v)) throw new InvalidArgumentError(TARGETS.map((t) => t.name).join(' | '));
  return v;
};

async function main(argv: string[]): Promise<void> {
  const program = new Command('soak')
    .description('run the model property tests (core, trading) many times; progress on stderr, a report under reports/out')
    .option('--runs <n>', 'runs per property', positiveInt, 20_000)
    .option('--seed <seed>', 'fast-check seed for every property (default: drawn, and recorded in the report)', seedArg)
    .option('--only <name>', `one property: ${TARGETS.map((t) => t.name).join(' | ')}`, onlyArg)
    .exitOverride((err: CommanderError) => process.exit(err.exitCode === 0 ? 0 : 2))
    .parse(argv);
  const flags = program.opts<{ runs: number; seed?: number; only?: string }>();
  const seed = flags.seed ?? (Math.random() * 2 ** 32) | 0;
  const targets = TARGETS.filter((t) => !flags.only || t.name === flags.only);
  const { result, dir, page } = await runSoak({
    runs: flags.runs,
    seed,
    targets,
    command: ['scripts/soak.ts', ...argv.slice(2)].join(' '),
  });
  process.stdout.write(`${formatSoak(result)}\n`);
  process.stderr.write(`report: ${join(dir, 'report.json')}\npage: ${page}\n`);
  process.exitCode = exitCodeFor(result);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main(process.argv);
