import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSwapsim } from '../fake-provider/testing/swapsim-cli.ts';
import { startIntegrator, type RunningIntegrator } from '../scenarios/examples/reference-integrator/app.ts';
import { parseDurationMs } from './verify.ts';

const REPORTS = mkdtempSync(join(tmpdir(), 'swapsim-verify-'));

const swapsim = (args: string[]) => runSwapsim(args, { SWAPSIM_REPORTS_DIR: REPORTS });

let good: RunningIntegrator;
let buggy: RunningIntegrator;

beforeAll(async () => {
  good = await startIntegrator();
  buggy = await startIntegrator({ bugs: ['no-dedupe'] });
});

afterAll(async () => {
  await good.close();
  await buggy.close();
});

describe('swapsim verify', () => {
  it('exits 0 on a passing app, with the VerifyResult as JSON and in a report file', async () => {
    const r = await swapsim(['verify', '--app', good.url, '--runs', '3', '--seed', '5', '--json', '--sim-seed', 'cli-test']);
    expect(r.code, r.err).toBe(0);
    const result = JSON.parse(r.out);
    expect(result).toMatchObject({ kind: 'verify', app_url: good.url, seed: '5', runs: 3, passed: 3, failed: 0, conduct: [] });
    expect(result.cases).toHaveLength(3);
    const path = /report: (\S+)/.exec(r.err)![1];
    expect(path.startsWith(REPORTS)).toBe(true);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(result);
  }, 120_000);

  it('exits 1 on a mismatch, prints the reason first, the case, the delivery log and a replay command that fails again', async () => {
    const r = await swapsim(['verify', '--app', buggy.url, '--runs', '5', '--seed', '5']);
    expect(r.code, r.err).toBe(1);
    const first = r.out.split('\n')[0];
    expect(first).toMatch(
      /^swapsim verify: FAIL: state mismatch: balance acct_\S+ \S+ available_atoms: app "\d+", provider "\d+" \(the app counts more than the provider holds\)$/,
    );
    expect(r.out).toContain('run 1 failed, 0 passed before it (seed 5, provider seed verify-5/run-1');
    expect(r.out).toMatch(/Case \(\d+ steps.*\):\n {2}1\. setup: account #0 is created/);
    // A balance's events: the asset's deposits and credits, then what spends them.
    expect(r.out).toMatch(/Delivery log of the events involved .*:\n {2}evt_\S+ (credit\.created|deposit\.\w+): t\+[0-9.]+s HTTP 200/);
    expect(r.out).toMatch(/\n {2}evt_\S+ credit\.created: t\+[0-9.]+s HTTP 200/);
    const replay = /Replay .*:\n {2}(npx swapsim verify .*)/.exec(r.out)![1];
    expect(replay).toMatch(new RegExp(`^npx swapsim verify --app ${buggy.url} --seed 5 --case [A-Za-z0-9_-]+$`));
    const again = await swapsim(replay.replace(/^npx swapsim /, '').split(' '));
    expect(again.code, again.err).toBe(1);
    expect(again.out.split('\n')[0]).toBe(first);
    const bad = await swapsim(['verify', '--app', buggy.url, '--case', 'not-a-token']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('not a case token printed by swapsim verify');
  }, 180_000);

  it('exits 2 when the app cannot be reached, or on usage errors', async () => {
    const unreachable = await swapsim(['verify', '--app', 'http://127.0.0.1:9', '--runs', '1']);
    expect(unreachable.code).toBe(2);
    expect(unreachable.err).toContain('the app is unreachable or refused configuration');
    const missing = await swapsim(['verify', '--runs', '1']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("required option '--app <url>' not specified");
    const badRuns = await swapsim(['verify', '--app', good.url, '--runs', '0']);
    expect(badRuns.code).toBe(2);
    expect(badRuns.err).toContain('--runs must be a positive integer');
    // A batch's single configure is where an unreachable app shows first.
    const unreachableBatch = await swapsim(['verify', '--app', 'http://127.0.0.1:9', '--runs', '3', '--concurrency', '3']);
    expect(unreachableBatch.code).toBe(2);
    expect(unreachableBatch.err).toContain('the app is unreachable or refused configuration');
    const badConcurrency = await swapsim(['verify', '--app', good.url, '--concurrency', '0']);
    expect(badConcurrency.code).toBe(2);
    expect(badConcurrency.err).toContain('--concurrency must be a positive integer');
    expect(existsSync(REPORTS)).toBe(true);
  }, 120_000);

  it('reads durations as a person writes them', () => {
    expect(parseDurationMs('60s')).toBe(60_000);
    expect(parseDurationMs('2m')).toBe(120_000);
    expect(parseDurationMs('1500ms')).toBe(1_500);
    expect(parseDurationMs('90')).toBe(90_000);
    expect(() => parseDurationMs('soon')).toThrow(/duration/);
    expect(() => parseDurationMs('0s')).toThrow(/longer than 0/);
  });
});
