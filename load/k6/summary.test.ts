// handleSummary's writers (lib/summary.ts is plain code, no k6 import): the JUnit XML is well formed
// for hostile names, counts failures, and the JSON report leaves setup data (API keys) out; a failed
// setup or unusable configuration is red on stdout, in the JSON and in the JUnit file; k6's own table
// is printed, with Rate metrics' passes and fails named for what they count.
import { describe, expect, test } from 'vitest';
import { describeValues, junitXml, k6Table, summaryOutputs, thresholdResults, xmlEscape } from './lib/summary.ts';

const data = {
  state: { testRunDurationMs: 1500 },
  setup_data: { phases: { under: { key: 'sk_secret_key' } } },
  root_group: { checks: [{ name: 'answered 2xx or 429', passes: 3, fails: 0 }] },
  metrics: {
    'rl_rejected{scenario:over}': { type: 'rate', values: { rate: 0 }, thresholds: { 'rate>0': { ok: false } } },
    dropped_iterations: { type: 'counter', values: { count: 0, rate: 0 }, thresholds: { 'count<=0': { ok: true } } },
    http_reqs: { type: 'counter', values: { count: 3, rate: 2 } },
  },
};

/** What k6 v0.48 hands handleSummary when setup threw: setup_data undefined, thresholds on empty metrics passed. */
const setupFailed = {
  state: { testRunDurationMs: 40 },
  setup_data: undefined,
  root_group: { checks: [] },
  metrics: {
    'rl_rejected{scenario:at}': { type: 'rate', values: { rate: 0, passes: 0, fails: 0 }, thresholds: { 'rate<=0.05': { ok: true } } },
    dropped_iterations: { type: 'counter', values: { count: 0, rate: 0 }, thresholds: { 'count<=0': { ok: true } } },
  },
};

describe('summary outputs', () => {
  test('every threshold becomes one result, in metric order', () => {
    expect(thresholdResults(data).map((r) => [r.metric, r.expression, r.ok])).toEqual([
      ['dropped_iterations', 'count<=0', true],
      ['rl_rejected{scenario:over}', 'rate>0', false],
    ]);
  });

  test('JUnit: one case per threshold, failures counted, markup escaped', () => {
    const xml = junitXml('a<b', thresholdResults(data), 1500);
    expect(xml).toContain('<testsuites name="k6 a&lt;b" tests="2" failures="1" time="1.500">');
    expect(xml).toContain('name="rl_rejected{scenario:over}: rate&gt;0"');
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xmlEscape(`"'&<>`)).toBe('&quot;&apos;&amp;&lt;&gt;');
  });

  test('files go under SUMMARY_DIR; the JSON says pass/fail and holds no API key', () => {
    const out = summaryOutputs('reads', 'reports/load', data);
    expect(Object.keys(out).sort()).toEqual(['reports/load/reads-junit.xml', 'reports/load/reads-summary.json', 'stdout']);
    const json = JSON.parse(out['reports/load/reads-summary.json']!);
    expect(json).toMatchObject({ script: 'reads', passed: false, test_run_duration_ms: 1500 });
    expect(out['reports/load/reads-summary.json']).not.toContain('sk_secret_key');
    expect(out.stdout).toContain('FAIL rl_rejected{scenario:over}: rate>0');
  });
});

describe('a run that did not run is red everywhere', () => {
  for (const [what, extras, reason] of [
    ['setup threw', {}, /setup\(\) did not complete/],
    [
      'the configuration was unusable',
      { config_error: 'unusable configuration: LIMIT must be a number, got "x"' },
      /LIMIT must be a number/,
    ],
  ] as const) {
    test(`${what}: stdout, JSON and JUnit say FAILED although every threshold "passed"`, () => {
      const out = summaryOutputs('firm-rfqs', 'o', setupFailed, extras);
      expect(out.stdout).toMatch(/firm-rfqs: FAILED, 1 of 3 checks failed/);
      expect(out.stdout).toMatch(new RegExp(`FAIL setup: completed .*${reason.source}`));
      const json = JSON.parse(out['o/firm-rfqs-summary.json']!);
      expect(json).toMatchObject({ passed: false, setup_completed: false });
      const xml = out['o/firm-rfqs-junit.xml']!;
      expect(xml).toContain('failures="1"');
      expect(xml).toMatch(/<testcase classname="k6.firm-rfqs" name="setup: completed">\s*<failure message="[^"]*" type="setup">/);
    });
  }

  test('a completed setup passes the setup check, and its notes (which keys) are printed', () => {
    const ok = {
      ...data,
      setup_data: { notes: ['keys: API_KEYS (3 given)'] },
      metrics: { dropped_iterations: data.metrics.dropped_iterations },
    };
    const out = summaryOutputs('reads', 'o', ok);
    expect(out.stdout).toContain('reads: PASSED, 2/2 checks passed');
    expect(out.stdout).toContain('keys: API_KEYS (3 given)');
    expect(JSON.parse(out['o/reads-summary.json']!)).toMatchObject({ passed: true, notes: ['keys: API_KEYS (3 given)'] });
  });
});

describe("k6's table and the labels", () => {
  const full = {
    options: { summaryTrendStats: ['avg', 'p(95)'] },
    metrics: {
      http_req_duration: { type: 'trend', contains: 'time', values: { avg: 1.5, 'p(95)': 1234 } },
      'http_req_duration{expected_response:true}': { type: 'trend', contains: 'time', values: { avg: 1.25, 'p(95)': 3 } },
      data_received: { type: 'counter', contains: 'data', values: { count: 12_345, rate: 2_000 } },
      iterations: { type: 'counter', contains: 'default', values: { count: 30, rate: 9.9 } },
      vus: { type: 'gauge', contains: 'default', values: { value: 1, min: 1, max: 4 } },
      rl_rejected: { type: 'rate', contains: 'default', values: { rate: 0.25, passes: 5, fails: 15 } },
      'rl_rejected{scenario:at}': {
        type: 'rate',
        contains: 'default',
        values: { rate: 0.1, passes: 1, fails: 9 },
        thresholds: { 'rate<=0.05': { ok: false } },
      },
    },
  };

  test('every metric, sub-metrics under theirs, units as k6 prints them', () => {
    const table = k6Table(full);
    const lines = table.split('\n');
    expect(lines.findIndex((l) => l.includes('http_req_duration.'))).toBe(
      lines.findIndex((l) => l.includes('{ expected_response:true }')) - 1,
    );
    expect(table).toMatch(/http_req_duration\.+: avg=1\.50ms p\(95\)=1\.23s/);
    expect(table).toMatch(/data_received\.+: 12\.3 kB {2}2\.0 kB\/s/);
    expect(table).toMatch(/iterations\.+: 30 {2}9\.9\/s/);
    expect(table).toMatch(/vus\.+: 1 {2}min=1 max=4/);
    expect(table).toMatch(/✗ {3}\{ scenario:at \}\.+: 10\.00% {2}429s: 1 {2}not 429: 9/);
  });

  test("a Rate threshold's observed value names what it counts: 429s, not passes", () => {
    expect(describeValues('rl_rejected{scenario:at}', { rate: 0.1, passes: 1, fails: 9 })).toBe('429s 10.00% (1 of 10)');
    expect(describeValues('dropped_iterations', { count: 2, rate: 0.1 })).toBe('count=2 rate=0.1');
    const out = summaryOutputs('reads', 'o', { ...full, setup_data: {} });
    expect(out.stdout).toContain('FAIL rl_rejected{scenario:at}: rate<=0.05  (429s 10.00% (1 of 10))');
    expect(out.stdout).toContain('http_req_duration');
  });
});
