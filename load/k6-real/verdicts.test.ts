// Verdicts that cannot pass by accident (issue 29), on a real k6 against in-process realtime swapsims: a
// journey the end of the run cuts off is counted and a run where none ends fails; a failed settlement names
// the step and what the trade did, per step in stdout, JSON and JUnit; conduct findings are the run's own
// and appear in JSON and JUnit; a used RUN_ID is refused; a control token can be sent; summaries land where
// k6 runs, or the run says why not. Each was seen red on the scripts before the fix (K6_BUNDLE_DIR).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSim, type TestSim } from '../../fake-provider/testing/harness.ts';
import { DEFAULT_PROFILE } from '../../fake-provider/profile.ts';
import { buildLoad } from '../../reports/builders/load.ts';
import { K6, SKIP_LINE, runK6 } from './real-k6.ts';

if (!K6) console.log(SKIP_LINE);

const journeys = (sim: TestSim, extra: Record<string, string> = {}) => ({
  BASE_URL: sim.base_url,
  CONTROL_URL: sim.control_url,
  DURATION: '2s',
  JOURNEYS_PER_S: '1',
  SUMMARY_DIR: 'out',
  ...extra,
});

describe.skipIf(!K6)('journey verdicts on a real k6', { timeout: 180_000 }, () => {
  let sim: TestSim;
  let slow: TestSim;
  beforeAll(async () => {
    sim = await startTestSim({ clock: 'realtime', speed: 4 });
    // Settlement that takes 10 minutes: no journey can end within the run.
    slow = await startTestSim({
      clock: 'realtime',
      speed: 4,
      profile: { ...DEFAULT_PROFILE, execution: { ...DEFAULT_PROFILE.execution, settle_initiate_ms: 600_000 } },
    });
  });
  afterAll(async () => {
    await sim?.close();
    await slow?.close();
  });

  test('journeys cut off by the end of the run are counted, and a run where none ends fails (exit 99)', async () => {
    const run = await runK6('lifecycle-mix', journeys(slow, { GRACEFUL_STOP: '3s' }));
    expect(run.code, run.stdout + run.stderr).toBe(99);
    const s = run.json('lifecycle-mix');
    expect(s.passed).toBe(false);
    expect(s.journeys).toMatchObject({ finished: 0 });
    expect(s.journeys.unfinished).toBeGreaterThanOrEqual(2);
    expect(s.thresholds.filter((t: any) => !t.ok).map((t: any) => `${t.metric}: ${t.expression}`)).toEqual([
      'journey_unfinished: count<=0',
      'journeys_finished: count>0',
    ]);
    expect(run.stdout).toMatch(/FAIL journeys_finished: count>0 .*0 ended, \d+ cut off by the end of the run/);
    expect(run.junit('lifecycle-mix')).toMatch(/<failure message="[^"]*cut off by the end of the run/);
  });

  test("a failed settlement: the message names the step and the trade's status path; per-step counts in stdout, JSON and JUnit", async () => {
    const faults = JSON.stringify([{ target: 'trade', effect: { fail: 'settlement_failed' } }]);
    const run = await runK6('lifecycle-mix', journeys(sim, { FAULTS: faults }));
    expect(run.code, run.stdout + run.stderr).toBe(99);
    expect(run.stderr).toMatch(
      /journey \S+: trade-settled: trade trd_\w+ ended failed \(executing → [^)]*failed, failure_code settlement_failed\), not settled/,
    );
    expect(run.stderr).not.toMatch(/status.{0,4}executing/);
    const s = run.json('lifecycle-mix');
    expect(s.journeys.steps_failed['trade-settled']).toBe(s.journeys.finished);
    expect(s.journeys.finished).toBeGreaterThanOrEqual(2);
    expect(run.stdout).toMatch(/failed steps: trade-settled \d+/);
    expect(run.junit('lifecycle-mix')).toMatch(
      /<testcase classname="k6.lifecycle-mix.journey_steps" name="trade-settled">\s*<failure message="trade-settled failed in \d+ journeys"/,
    );
  });

  test("a green run: every journey ends, no request counted failed (the wallet's 404s are expected), and swapsim report counts the checks stdout counts", async () => {
    const run = await runK6('lifecycle-mix', journeys(sim));
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const s = run.json('lifecycle-mix');
    expect(s.journeys).toMatchObject({ unfinished: 0, steps_failed: {} });
    expect(s.metrics.http_req_failed.values.rate).toBe(0);
    const counted = /lifecycle-mix: PASSED, (\d+)\/\1 checks passed/.exec(run.stdout);
    expect(counted, run.stdout).not.toBeNull();
    const report = buildLoad(s, { name: 'lifecycle-mix' });
    expect(report.sections[0]!.aside).toBe(`${counted![1]} of ${counted![1]} thresholds passed`);
    expect(run.stdout).toMatch(/data_sent\.+: \S+ \S*B {2}\d+(\.\d)? \S*B\/s/);
    expect(run.stdout).not.toMatch(/\d\.\d{3,} B\/s/);
  });

  test("conduct: a finding made before the run on a key in API_KEYS is not the run's; one made during it fails the run, kind and message in JSON and JUnit", async () => {
    const org = await sim.newOrg({});
    const other = await sim.newOrg({});
    const reuse = async (idem: string) => {
      expect((await sim.api('POST', '/accounts', { key: org.api_key, idem, body: { label: 'a' } })).status).toBe(200);
      expect((await sim.api('POST', '/accounts', { key: org.api_key, idem, body: { label: 'b' } })).status).toBe(409);
    };
    await reuse('before-the-run');
    const clean = await runK6('lifecycle-mix', journeys(sim, { API_KEYS: `${org.api_key},${other.api_key}` }));
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    expect(clean.json('lifecycle-mix').conduct_findings).toEqual([]);
    // During the run: once its journeys send their first request on the key (setup, which reads what was
    // there before, has ended by then; k6 may take seconds to start on a loaded machine).
    const requestsOf = async () =>
      ((await sim.control('GET', `/conduct?api_key=${org.api_key}`)).body.conduct.requests as unknown[]).length;
    const before = await requestsOf();
    const duringTheRun = async () => {
      for (let i = 0; i < 600 && (await requestsOf()) === before; i++) await new Promise((r) => setTimeout(r, 100));
      await reuse('during-the-run');
    };
    let during: Promise<void> = Promise.resolve();
    const dirty = await runK6('lifecycle-mix', journeys(sim, { API_KEYS: `${org.api_key},${other.api_key}` }), {
      onStart: () => void (during = duringTheRun()),
    });
    await during;
    expect(dirty.code, dirty.stdout + dirty.stderr).toBe(99);
    const s = dirty.json('lifecycle-mix');
    expect(s.conduct_findings).toHaveLength(1);
    expect(s.conduct_findings[0]).toMatchObject({ kind: 'idempotency_key_reuse', api_key: `…${org.api_key.slice(-4)}` });
    expect(s.conduct_findings[0].message).toMatch(/idempotency/i);
    expect(dirty.junit('lifecycle-mix')).toMatch(/<testcase classname="k6.lifecycle-mix.conduct" name="idempotency_key_reuse">\s*<failure/);
    expect(dirty.stdout).toMatch(/conduct findings since the run began: 1 \(idempotency_key_reuse 1\)/);
  });
});

describe.skipIf(!K6)('run ids, control tokens and summary folders on a real k6', { timeout: 180_000 }, () => {
  let sim: TestSim;
  let guarded: TestSim;
  beforeAll(async () => {
    sim = await startTestSim({ clock: 'realtime' });
    guarded = await startTestSim({ clock: 'realtime', control_token: 'ctl-secret' });
  });
  afterAll(async () => {
    await sim?.close();
    await guarded?.close();
  });
  const reads = (s: TestSim, extra: Record<string, string> = {}) => ({
    BASE_URL: s.base_url,
    CONTROL_URL: s.control_url,
    LIMIT: '20',
    PHASES: 'under',
    PHASE_DURATION: '2s',
    SUMMARY_DIR: 'out',
    ...extra,
  });

  test('a RUN_ID already used on the server is refused (exit 107, red), a fresh one is drawn when none is given', async () => {
    const first = await runK6('reads', reads(sim, { RUN_ID: 'used-once' }));
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const again = await runK6('reads', reads(sim, { RUN_ID: 'used-once' }));
    expect(again.code).toBe(107);
    expect(again.stdout).toMatch(/FAIL setup: completed/);
    expect(again.stderr).toMatch(/RUN_ID used-once was already used on this server/);
    const a = await runK6('reads', reads(sim));
    const b = await runK6('reads', reads(sim));
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(a.json('reads').run_id).not.toBe(b.json('reads').run_id);
  });

  test('a control plane started with --control-token: CONTROL_TOKEN is sent; without it the run says so (exit 107) instead of falling back to the demo key', async () => {
    const without = await runK6('reads', reads(guarded));
    expect(without.code).toBe(107);
    expect(without.stderr).toMatch(/refuses this client \(401[^)]*\): set CONTROL_TOKEN/);
    const withToken = await runK6('reads', reads(guarded, { CONTROL_TOKEN: 'ctl-secret' }));
    expect(withToken.code, withToken.stdout + withToken.stderr).toBe(0);
    expect(withToken.stdout).toMatch(/keys: 1 organizations created through the control plane/);
  });

  test('summaries land where k6 runs when there is no load/results there; a SUMMARY_DIR that does not exist is an error (exit 107)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'k6-real-elsewhere-'));
    const env: Record<string, string> = reads(sim);
    delete env.SUMMARY_DIR;
    const here = await runK6('reads', env, { cwd, mkdir: false });
    expect(here.code, here.stdout + here.stderr).toBe(0);
    expect(existsSync(join(cwd, 'reads-summary.json'))).toBe(true);
    expect(readFileSync(join(cwd, 'reads-junit.xml'), 'utf8')).toMatch(/failures="0"/);
    const missing = await runK6('reads', reads(sim, { SUMMARY_DIR: 'no-such-folder' }), { cwd, mkdir: false });
    expect(missing.code).toBe(107);
    expect(missing.stdout).toMatch(/FAIL setup: completed {2}\(unusable configuration: SUMMARY_DIR no-such-folder is not a folder under /);
  });
});
