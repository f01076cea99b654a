// handleSummary's writers (lib/summary.ts is plain code, no k6 import): the JUnit XML is well formed
// for hostile names, counts failures, and the JSON report leaves setup data (API keys) out.
import { describe, expect, test } from 'vitest';
import { junitXml, summaryOutputs, thresholdResults, xmlEscape } from './lib/summary.ts';

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
