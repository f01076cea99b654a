// The limit scripts on a real k6 against a realtime swapsim: they pass where the service keeps its limits
// (an evenly spaced client at exactly N/s sees no 429 from the token bucket), fail with exit 99 where the
// keys' limits are not the documented ones (given through API_KEYS, control plane or not), survive a
// latency stall within their budget, and a failed setup or unusable configuration is red everywhere.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdirSync, mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSim, type TestSim } from '../../fake-provider/testing/harness.ts';
import { K6, SKIP_LINE, phaseCounts, runK6 } from './real-k6.ts';

if (!K6) console.log(SKIP_LINE);

describe.skipIf(!K6)('limit scripts on a real k6', () => {
  let sim: TestSim;
  beforeAll(async () => {
    sim = await startTestSim({ clock: 'realtime' });
  });
  afterAll(() => sim?.close());
  const env = (extra: Record<string, string>) => ({
    BASE_URL: sim.base_url,
    CONTROL_URL: sim.control_url,
    PHASE_DURATION: '4s',
    PHASE_GAP: '1s',
    ...extra,
  });

  test('reads at 20/s: under and at see no 429, over is held to the limit; exit 0, k6 table and labelled counts on stdout, files under load/results', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'k6-real-default-dir-'));
    mkdirSync(join(cwd, 'load/results'), { recursive: true });
    const run = await runK6('reads', env({ LIMIT: '20' }), { cwd });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const s = run.json('reads');
    expect(s).toMatchObject({ passed: true, setup_completed: true });
    expect(phaseCounts(s, 'under').rejected).toBe(0);
    expect(phaseCounts(s, 'at')).toMatchObject({ rejected: 0 });
    expect(phaseCounts(s, 'at').requests).toBeGreaterThanOrEqual(76);
    const over = phaseCounts(s, 'over');
    expect(over.rejected).toBeGreaterThan(0);
    // 4 s at 30/s on a bucket of 20 refilled at 20/s: 80 + 20 accepted, within ±10% of the limit plus the burst.
    expect(over.accepted).toBeGreaterThanOrEqual(0.9 * 80);
    expect(over.accepted).toBeLessThanOrEqual(1.1 * 80 + 20);
    expect(run.stdout).toMatch(/http_req_duration\.+: avg=/);
    expect(run.stdout).toMatch(/iterations\.+: \d+/);
    expect(run.stdout).toMatch(/\{ scenario:over \}\.+: [\d.]+% {2}429s: \d+ {2}not 429: \d+/);
    expect(run.stdout).toMatch(/keys: 3 organizations created through the control plane/);
    expect(run.stdout).toMatch(/reads: PASSED/);
    expect(existsSync(join(cwd, 'load/results/reads-junit.xml'))).toBe(true);
  });

  for (const [what, factor, phases] of [
    ['raised x1000', 1000, 'over'],
    ['halved', 0.5, 'under'],
  ] as const) {
    for (const control of [true, false]) {
      test(`keys whose limit is ${what}, given through API_KEYS ${control ? 'beside a control plane' : 'without a control plane'}: exit 99`, async () => {
        const keys = [];
        for (let i = 0; i < 3; i++) keys.push((await sim.newOrg({ rate_limits: { reads: 20 * factor } })).api_key);
        const run = await runK6(
          'reads',
          env({ LIMIT: '20', PHASES: phases, API_KEYS: keys.join(','), SUMMARY_DIR: 'out', ...(control ? {} : { CONTROL_URL: 'off' }) }),
        );
        expect(run.code, run.stdout + run.stderr).toBe(99);
        expect(run.stdout).toMatch(/keys: API_KEYS \(3 given\)/);
        if (control) expect(run.stdout).toMatch(/API_KEYS used instead of new organizations/);
        expect(run.stdout).toMatch(/reads: FAILED/);
        expect(run.json('reads').passed).toBe(false);
      });
    }
  }

  test('a latency stall within LATENCY_BUDGET drops nothing; the old 0.2 s pre-allocation drops and fails', async () => {
    // The first 20 reads of the phase are held 900 ms: at 16/s that needs ~15 VUs busy at once.
    const stall = async () =>
      expect(
        (
          await sim.control('POST', '/faults', {
            target: 'http',
            effect: { delay_ms: 900 },
            match: { method: 'GET', path: '/v1/accounts' },
            times: 20,
          })
        ).status,
      ).toBe(200);
    await stall();
    const sized = await runK6('reads', env({ LIMIT: '20', PHASES: 'under', PHASE_DURATION: '5s', SUMMARY_DIR: 'out' }));
    expect(sized.code, sized.stdout + sized.stderr).toBe(0);
    expect(sized.json('reads').metrics['dropped_iterations{scenario:under}']?.values?.count ?? 0).toBe(0);
    await stall();
    const old = await runK6(
      'reads',
      env({ LIMIT: '20', PHASES: 'under', PHASE_DURATION: '5s', SUMMARY_DIR: 'out', PRE_ALLOCATED_VUS: '4', MAX_VUS: '16' }),
    );
    expect(old.code).toBe(99);
    expect(old.json('reads').metrics['dropped_iterations{scenario:under}'].values.count).toBeGreaterThan(0);
  });

  test('firm RFQs with no control plane and no FIRM_* ids: exit 107, and stdout, JSON and JUnit all say FAILED', async () => {
    const run = await runK6('firm-rfqs', env({ CONTROL_URL: 'off', SUMMARY_DIR: 'out' }));
    expect(run.code).toBe(107);
    expect(run.stdout).toMatch(/firm-rfqs: FAILED/);
    expect(run.stdout).toMatch(/FAIL setup: completed/);
    expect(run.json('firm-rfqs')).toMatchObject({ passed: false, setup_completed: false });
    expect(run.junit('firm-rfqs')).toMatch(/failures="[1-9]/);
  });

  test('an unusable configuration (LIMIT=abc): exit 107, red summary naming it', async () => {
    const run = await runK6('writes', env({ LIMIT: 'abc', SUMMARY_DIR: 'out' }));
    expect(run.code).toBe(107);
    expect(run.stdout).toMatch(/FAIL setup: completed {2}\(unusable configuration: LIMIT must be a number/);
    expect(run.json('writes').passed).toBe(false);
    expect(run.junit('writes')).toContain('unusable configuration');
  });
});
