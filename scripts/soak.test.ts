// The soak runner end to end: `scripts/soak.ts --runs 20 --only core` spawned as a person runs it (progress
// on stderr, report.json and report.html written, exit 0); a failing fixture property soaked in-process
// (failure parsed, error captured, replay command that replays it, exit 1); the parser and the hook.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SoakResult } from '../reports/types.ts';
import { soakProgress } from './soak-progress.ts';
import { exitCodeFor, parseFastCheckFailure, runSoak, type SoakTarget } from './soak.ts';

const root = mkdtempSync(join(tmpdir(), 'swapsim-soak-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The environment of a command run from a shell: without the variables of the vitest running this test. */
const shellEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(VITEST|TEST$|NODE_ENV$|SWAPSIM_)/.test(k))),
  ...extra,
});

const FIXTURE: SoakTarget = {
  name: 'fixture',
  test_file: 'scripts/fixtures/failing-property.soak.ts',
  replay_dir: 'scripts/fixtures',
  config: 'scripts/fixtures/vitest.soak.config.ts',
  env: { runs: 'SWAPSIM_FIXTURE_RUNS', seed: 'SWAPSIM_FIXTURE_SEED', path: 'SWAPSIM_FIXTURE_PATH' },
};

describe('scripts/soak.ts', () => {
  it('soaks the core model: line-based progress off a TTY, report.json and report.html, exit 0', () => {
    const out = join(root, 'e2e');
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/soak.ts', '--runs', '20', '--only', 'core', '--seed', '7'], {
      env: shellEnv({ SWAPSIM_REPORTS_DIR: out }),
      encoding: 'utf8',
      timeout: 300_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^core: passed, 20\/20 runs in [\d.]+s \([\d.]+ runs\/s\), seed 7$/m);
    expect(run.stderr).toMatch(/^soak: 20\/20 done, 0 failed, [\d.]+s core 20\/20$/m);
    expect(run.stderr).not.toContain('\r');
    const json = /^report: (.+)$/m.exec(run.stderr)![1];
    const page = /^page: (.+)$/m.exec(run.stderr)![1];
    expect(json.startsWith(out)).toBe(true);
    const result: SoakResult = JSON.parse(readFileSync(json, 'utf8'));
    expect(result).toMatchObject({ kind: 'soak', seed: 7, runs_requested: 20, passed: 1, failed: 0 });
    expect(result.properties.map((p) => [p.name, p.passed, p.runs, p.seed, p.failures.length])).toEqual([['core', true, 20, 7, 0]]);
    expect(result.properties[0].samples.map((s) => s.runs)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(result.properties[0].runs_per_s).toBeGreaterThan(0);
    expect(existsSync(page)).toBe(true);
    expect(readFileSync(page, 'utf8')).toContain('<span class="verdict tone-pass">PASSED</span>');
  }, 300_000);

  it('rejects bad flags with exit 2', () => {
    for (const args of [
      ['--only', 'everything'],
      ['--runs', '0'],
      ['--seed', 'abc'],
    ]) {
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/soak.ts', ...args], {
        env: shellEnv({ SWAPSIM_REPORTS_DIR: join(root, 'usage') }),
        encoding: 'utf8',
      });
      expect(run.status, args.join(' ')).toBe(2);
      expect(existsSync(join(root, 'usage'))).toBe(false);
    }
  }, 60_000);

  it('a failing property: seed, path, replayPath, shrunk counterexample and error reported, exit 1, and the replay command replays it', async () => {
    const { result, page } = await runSoak({
      runs: 200,
      seed: 3,
      targets: [FIXTURE],
      command: 'test',
      root: join(root, 'failing'),
      stream: { isTTY: false, write: () => true },
    });
    expect(exitCodeFor(result)).toBe(1);
    const [p] = result.properties;
    expect(p).toMatchObject({ name: 'fixture', passed: false, runs: 188, seed: 3 });
    const [f] = p.failures;
    expect(f).toMatchObject({ seed: 3, path: '187', replay_path: 'IA:B', after_runs: 188 });
    expect(f.counterexample).toMatch(/^\[deposit\(\d\)(,deposit\(\d\))+ \/\*replayPath="IA:B"\*\/\]$/);
    expect(f.error).toMatch(/^balance stays within 60: expected 6\d to be less than or equal to 60$/);
    expect(f.replay_command).toBe('SWAPSIM_FIXTURE_SEED=3 SWAPSIM_FIXTURE_PATH=187 npx vitest run scripts/fixtures');
    expect(readFileSync(page, 'utf8')).toContain('<span class="verdict tone-fail">1 FAILED</span>');
    // The replay: that seed and path fail at once with the same counterexample.
    const replay = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', FIXTURE.test_file, '--config', FIXTURE.config!], {
      env: shellEnv({ SWAPSIM_FIXTURE_SEED: '3', SWAPSIM_FIXTURE_PATH: f.path }),
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(replay.status).toBe(1);
    expect(replay.stdout + replay.stderr).toContain('Property failed after 1 tests');
    expect(replay.stdout + replay.stderr).toContain(`Counterexample: ${f.counterexample}`);
  }, 300_000);

  it('every property passing exits 0', () => {
    expect(exitCodeFor({ failed: 0 } as SoakResult)).toBe(0);
  });
});

describe('parseFastCheckFailure', () => {
  it("reads fast-check's report as vitest records it", () => {
    const message =
      'Error: Property failed after 12 tests\n{ seed: -1820517023, path: "11:0:2", endOnFailure: true }\nCounterexample: [[createFundedAccount(asset#3, 120 USD)],[advance(250),cancel(account#0, credit#0, destination#0) /*replayPath="BA:F"*/]]\nShrunk 2 time(s)\n\nEncountered failures were:\n- [[x] /*replayPath="Q"*/]\n    at buildError (file:///fast-check.js:1:1)';
    expect(parseFastCheckFailure(message)).toEqual({
      seed: -1820517023,
      path: '11:0:2',
      replay_path: 'BA:F',
      shrinks: 2,
      after_runs: 12,
      counterexample:
        '[[createFundedAccount(asset#3, 120 USD)],[advance(250),cancel(account#0, credit#0, destination#0) /*replayPath="BA:F"*/]]',
    });
  });

  it('is undefined for an error that is not a fast-check failure', () => {
    expect(parseFastCheckFailure('Error: Hook timed out in 60000ms')).toBeUndefined();
  });
});

describe('soakProgress', () => {
  it('is the body itself without SWAPSIM_PROGRESS_FILE', () => {
    const body = async (): Promise<void> => {};
    expect(soakProgress('core', body, {})).toBe(body);
  });

  it('appends a line every N runs, and one per failing call with its error', async () => {
    const file = join(root, 'progress.jsonl');
    const hooked = soakProgress(
      'core',
      async (x: number) => {
        if (x < 0) throw new Error(`bad ${x}`);
      },
      { SWAPSIM_PROGRESS_FILE: file, SWAPSIM_PROGRESS_EVERY: '2' },
    );
    for (const x of [1, 2, 3, 4, 5]) await hooked(x);
    await expect(hooked(-1)).rejects.toThrow('bad -1');
    await expect(hooked(-2)).rejects.toThrow('bad -2');
    await hooked(9);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map(({ runs, failed, shrinks, error }) => ({ runs, failed, shrinks, error }))).toEqual([
      { runs: 2, failed: false, shrinks: 0, error: undefined },
      { runs: 4, failed: false, shrinks: 0, error: undefined },
      { runs: 6, failed: true, shrinks: 0, error: 'bad -1' },
      { runs: 6, failed: true, shrinks: 1, error: 'bad -2' },
    ]);
  });
});
