// The four limit-class scripts run under the k6 double (load/k6-double, a test fixture) against an
// in-process swapsim: their own thresholds, evaluated on what they measured, must pass where the
// service behaves and fail where it does not (no 429 when over the limit, a 429 without envelope or
// Retry-After, an under-provisioned generator). Phases are shortened through __ENV; no speed is asserted.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSim, type TestSim } from '../../fake-provider/testing/harness.ts';
import { DEFAULT_PROFILE } from '../../fake-provider/profile.ts';
import { runUnderDouble, type DoubleRun } from '../k6-double/runner.ts';

const script = (name: string) => join(import.meta.dirname, `${name}.ts`);
const outcome = (run: DoubleRun, key: string, expression?: string) => {
  const found = run.thresholds.filter((t) => t.key === key && (expression === undefined || t.expression === expression));
  if (found.length === 0)
    throw new Error(`no threshold ${key} ${expression ?? ''}: ${run.thresholds.map((t) => `${t.key} ${t.expression}`).join(', ')}`);
  return found;
};
const passes = (run: DoubleRun, key: string, expression?: string) => outcome(run, key, expression).every((t) => t.ok && t.evaluated);
const fails = (run: DoubleRun, key: string, expression?: string) => outcome(run, key, expression).some((t) => t.evaluated && !t.ok);
const statuses = (run: DoubleRun, scenario: string) =>
  run.samples.filter((s) => s.metric === 'http_reqs' && s.tags.scenario === scenario).map((s) => Number(s.tags.status));

let sim: TestSim;
let dir: string;
beforeAll(async () => {
  sim = await startTestSim();
  dir = mkdtempSync(join(tmpdir(), 'k6-limits-'));
});
afterAll(() => sim.close());

function envFor(extra: Record<string, string>): Record<string, string> {
  return { BASE_URL: sim.base_url, CONTROL_URL: sim.control_url, PHASE_DURATION: '2s', PHASE_GAP: '500ms', SUMMARY_DIR: 'out', ...extra };
}

describe('reads under, at and over its limit against swapsim', () => {
  let run: DoubleRun;
  beforeAll(async () => {
    // Orgs come from the control plane with reads=10/s; the phases offer 8, 10 and 15 per second.
    run = await runUnderDouble(script('reads'), { cwd: dir, env: envFor({ LIMIT: '10', RUN_ID: 'reads-all' }) });
  });

  test('plans three constant-arrival-rate phases at 80/100/150% on separate keys, one after another', () => {
    const s = run.options.scenarios;
    expect(Object.keys(s)).toEqual(['under', 'at', 'over']);
    expect([s.under.rate, s.at.rate, s.over.rate]).toEqual([8, 10, 15]);
    expect(s.over).toMatchObject({
      executor: 'constant-arrival-rate',
      exec: 'over',
      timeUnit: '1s',
      startTime: '5000ms',
      duration: '2000ms',
    });
    const keys = Object.values((run.setup_data as { phases: Record<string, { key: string }> }).phases).map((p) => p.key);
    expect(new Set(keys).size).toBe(3);
    expect((run.setup_data as any).keys_from).toBe('control-plane');
  });

  test('the polite phase passes: no 429 and no error', () => {
    expect(run.errors).toEqual([]);
    expect(passes(run, 'rl_rejected{scenario:under}', 'rate==0')).toBe(true);
    expect(passes(run, 'rl_errors{scenario:under}')).toBe(true);
    expect(statuses(run, 'under').every((s) => s === 200)).toBe(true);
    expect(statuses(run, 'under').length).toBeGreaterThan(10);
  });

  test('over the limit swapsim answers 429 with the envelope and Retry-After, and the thresholds see it', () => {
    expect(statuses(run, 'over')).toContain(429);
    expect(passes(run, 'rl_rejected{scenario:over,whole_run:yes}', 'rate>0')).toBe(true);
    expect(passes(run, 'rl_429_bad_envelope')).toBe(true);
    expect(passes(run, 'rl_429_missing_retry_after')).toBe(true);
    expect((run.setup_data as any).expect_retry_after).toBe(DEFAULT_PROFILE.rate_limit_retry_after);
  });

  test('the accepted-rate band is ±10% of the limit over the offered 150%, plus one second of the limit per phase', () => {
    // 2 s phases: 0.9·10/15 = 0.6; 1.1·10/15 + 10/(15·2) = 1.07, capped at 1.
    expect(outcome(run, 'rl_accepted{scenario:over,whole_run:yes}').map((t) => t.expression)).toEqual(['rate>=0.6', 'rate<=1']);
  });

  test('handleSummary writes a JSON report and a JUnit file with one case per threshold', () => {
    const json = JSON.parse(readFileSync(join(dir, 'out/reads-summary.json'), 'utf8'));
    expect(json.script).toBe('reads');
    // Every threshold but the figure-only ones (`rate>=0`), and the setup check first.
    const checks = run.thresholds.filter((t) => !/^(count|rate)>=0$/.test(t.expression));
    expect(checks.length).toBeLessThan(run.thresholds.length);
    expect(json.thresholds).toHaveLength(checks.length + 1);
    expect(json.thresholds[0]).toMatchObject({ metric: 'setup', expression: 'completed', ok: true });
    expect(json.passed).toBe(run.passed);
    expect(JSON.stringify(json)).not.toContain((run.setup_data as any).phases.under.key);
    const xml = readFileSync(join(dir, 'out/reads-junit.xml'), 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(checks.length + 1);
    expect(xml).toContain('name="rl_rejected{scenario:over,whole_run:yes}: rate&gt;0"');
    expect(Number(/failures="(\d+)"/.exec(xml)![1])).toBe(run.thresholds.filter((t) => !t.ok).length);
    expect(run.outputs.stdout).toContain('reads:');
  });
});

describe('the over-limit thresholds fail when the service misbehaves', () => {
  test('a service that never answers 429 (an org with very high limits) fails the over phase', async () => {
    const { api_key } = await sim.newOrg({ rate_limits: { reads: 100_000 } });
    // 4 s: the band's top is 1.1·10/15 + 10/(15·4) = 0.9.
    const run = await runUnderDouble(script('reads'), {
      cwd: dir,
      env: envFor({ CONTROL_URL: 'off', API_KEYS: api_key, LIMIT: '10', PHASES: 'over', PHASE_DURATION: '4s', SUMMARY_DIR: 'never429' }),
    });
    expect(statuses(run, 'over').every((s) => s === 200)).toBe(true);
    expect(run.passed).toBe(false);
    expect(fails(run, 'rl_rejected{scenario:over,whole_run:yes}', 'rate>0')).toBe(true);
    expect(fails(run, 'rl_accepted{scenario:over,whole_run:yes}', 'rate<=0.9')).toBe(true);
    expect(readFileSync(join(dir, 'never429/reads-junit.xml'), 'utf8')).toContain(
      '<failure message="threshold rate&gt;0 on rl_rejected{scenario:over,whole_run:yes} failed',
    );
  });

  test('429s without Retry-After fail when it is expected, and pass with EXPECT_RETRY_AFTER=false', async () => {
    const rule = await sim.control('POST', '/faults', {
      target: 'http',
      effect: { http_status: 429, retry_after: false },
      match: { method: 'GET', path: '/v1/accounts' },
      times: 3,
    });
    expect(rule.status).toBe(200);
    const env = envFor({ CONTROL_URL: 'off', API_KEYS: sim.api_key, PHASES: 'under', PHASE_DURATION: '1s', LIMIT: '10' });
    const strict = await runUnderDouble(script('reads'), { cwd: dir, env: { ...env, EXPECT_RETRY_AFTER: 'true' } });
    expect(statuses(strict, 'under').filter((s) => s === 429)).toHaveLength(3);
    expect(fails(strict, 'rl_429_missing_retry_after')).toBe(true);
    expect(passes(strict, 'rl_429_bad_envelope')).toBe(true);
    expect(fails(strict, 'rl_rejected{scenario:under}')).toBe(true);
    await sim.control('POST', '/faults', {
      target: 'http',
      effect: { http_status: 429, retry_after: false },
      match: { method: 'GET', path: '/v1/accounts' },
      times: 3,
    });
    const lenient = await runUnderDouble(script('reads'), { cwd: dir, env: { ...env, EXPECT_RETRY_AFTER: 'false' } });
    expect(statuses(lenient, 'under').filter((s) => s === 429)).toHaveLength(3);
    expect(passes(lenient, 'rl_429_missing_retry_after')).toBe(true);
  });

  test('without EXPECT_RETRY_AFTER the expectation follows the served profile (here: no Retry-After)', async () => {
    const quiet = await startTestSim({ profile: { ...DEFAULT_PROFILE, rate_limit_retry_after: false } });
    try {
      // 16/s for 1 s on a bucket of 4 refilled at 4/s: about half are refused.
      const env = {
        BASE_URL: quiet.base_url,
        CONTROL_URL: quiet.control_url,
        PHASES: 'over',
        PHASE_DURATION: '1s',
        LIMIT: '4',
        OVER_PCT: '400',
        SUMMARY_DIR: 'quiet',
      };
      const run = await runUnderDouble(script('reads'), { cwd: dir, env });
      expect((run.setup_data as { expect_retry_after: boolean }).expect_retry_after).toBe(false);
      expect(statuses(run, 'over')).toContain(429);
      const over429 = run.samples.filter((s) => s.metric === 'rl_429_missing_retry_after');
      expect(over429.every((s) => s.value === 0)).toBe(true);
      expect(passes(run, 'rl_429_missing_retry_after')).toBe(true);
    } finally {
      await quiet.close();
    }
  });

  test('a 429 without the error envelope (a proxy page) fails the envelope threshold', async () => {
    const bare: Server = createServer((_req, res) => {
      res.writeHead(429, { 'content-type': 'text/html', 'retry-after': '1' });
      res.end('<html>slow down</html>');
    });
    await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/v1`;
      const run = await runUnderDouble(script('reads'), {
        cwd: dir,
        env: { BASE_URL: base, CONTROL_URL: 'off', API_KEY: 'k', PHASES: 'over', PHASE_DURATION: '1s', LIMIT: '4', SUMMARY_DIR: 'bare' },
      });
      expect(statuses(run, 'over').every((s) => s === 429)).toBe(true);
      expect(fails(run, 'rl_429_bad_envelope')).toBe(true);
      expect(passes(run, 'rl_429_missing_retry_after')).toBe(true);
    } finally {
      await new Promise<void>((r) => bare.close(() => r()));
    }
  });

  test('an under-provisioned generator (it cannot offer the planned rate) fails dropped_iterations', async () => {
    // 4,000 iterations/s on the double's single VU: most fall due while it is busy and are dropped.
    const run = await runUnderDouble(script('reads'), {
      cwd: dir,
      env: envFor({ CONTROL_URL: 'off', API_KEYS: sim.api_key, PHASES: 'under', PHASE_DURATION: '1s', LIMIT: '5000' }),
    });
    expect(run.samples.some((s) => s.metric === 'dropped_iterations')).toBe(true);
    expect(fails(run, 'dropped_iterations{scenario:under}')).toBe(true);
  });
});

describe('writes, indicative RFQs and firm RFQs: the polite phase passes', () => {
  for (const [name, limit] of [
    ['writes', '4'],
    ['indicative-rfqs', '4'],
    ['firm-rfqs', '2'],
  ] as const) {
    test(`${name}`, async () => {
      const run = await runUnderDouble(script(name), {
        cwd: dir,
        env: envFor({ LIMIT: limit, PHASES: 'under', PHASE_DURATION: '2s', RUN_ID: `polite-${name}` }),
      });
      expect(run.errors).toEqual([]);
      expect(run.thresholds.filter((t) => !t.ok)).toEqual([]);
      const st = statuses(run, 'under');
      expect(st.length).toBeGreaterThan(1);
      expect(st.every((s) => s >= 200 && s < 300)).toBe(true);
      expect(passes(run, 'rl_rejected{scenario:under}', 'rate==0')).toBe(true);
      expect(passes(run, 'rl_errors{scenario:under}')).toBe(true);
      expect(run.passed).toBe(true);
      expect(existsSync(join(dir, `out/${name}-summary.json`))).toBe(true);
    });
  }

  test('firm RFQs against a staging-like target without a control plane or FIRM_* ids: setup says what is missing', async () => {
    await expect(runUnderDouble(script('firm-rfqs'), { cwd: dir, env: envFor({ CONTROL_URL: 'off', PHASES: 'under' }) })).rejects.toThrow(
      /FIRM_ACCOUNT_ID/,
    );
  });

  test('LAYOUT=parallel with one key for three phases is refused in setup', async () => {
    await expect(
      runUnderDouble(script('reads'), { cwd: dir, env: envFor({ CONTROL_URL: 'off', API_KEY: sim.api_key, LAYOUT: 'parallel' }) }),
    ).rejects.toThrow(/one API key per phase/);
  });
});
