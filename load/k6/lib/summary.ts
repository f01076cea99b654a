// handleSummary outputs, written without remote imports (offline, bundled): a JSON report and a JUnit
// XML file (one test case per threshold expression) under SUMMARY_DIR, and a short text on stdout.
// setup_data is left out on purpose: it holds API keys.

export interface ThresholdResult {
  metric: string;
  expression: string;
  ok: boolean;
  values: { [stat: string]: number };
}

/** Every threshold of a k6 summary object, in metric order. */
export function thresholdResults(data: any): ThresholdResult[] {
  const out: ThresholdResult[] = [];
  const metrics = (data && data.metrics) || {};
  for (const metric of Object.keys(metrics).sort()) {
    const th = metrics[metric].thresholds || {};
    for (const expression of Object.keys(th)) out.push({ metric, expression, ok: th[expression].ok === true, values: metrics[metric].values || {} });
  }
  return out;
}

export function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function formatValues(values: { [stat: string]: number }): string {
  return Object.keys(values)
    .map((k) => `${k}=${Math.round(values[k]! * 10000) / 10000}`)
    .join(' ');
}

export function junitXml(script: string, results: ThresholdResult[], duration_ms: number): string {
  const failures = results.filter((r) => !r.ok).length;
  const cases = results.map((r) => {
    const name = xmlEscape(`${r.metric}: ${r.expression}`);
    const open = `    <testcase classname="${xmlEscape(`k6.${script}`)}" name="${name}">`;
    if (r.ok) return `${open}</testcase>`;
    const msg = xmlEscape(`threshold ${r.expression} on ${r.metric} failed; observed ${formatValues(r.values)}`);
    return `${open}\n      <failure message="${msg}" type="threshold">${msg}</failure>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="k6 ${xmlEscape(script)}" tests="${results.length}" failures="${failures}" time="${(duration_ms / 1000).toFixed(3)}">`,
    `  <testsuite name="${xmlEscape(`${script} thresholds`)}" tests="${results.length}" failures="${failures}" errors="0" time="${(duration_ms / 1000).toFixed(3)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

export function textSummary(script: string, results: ThresholdResult[]): string {
  const lines = results.map((r) => `  ${r.ok ? 'PASS' : 'FAIL'} ${r.metric}: ${r.expression}  (${formatValues(r.values)})`);
  const failed = results.filter((r) => !r.ok).length;
  return [`${script}: ${results.length - failed}/${results.length} thresholds passed`, ...lines, ''].join('\n');
}

/** The map handleSummary returns: file paths (and stdout) to contents. `plan` (a limit script's phases)
 *  lets `swapsim report` chart offered vs accepted rate against the limit. */
export function summaryOutputs(script: string, dir: string, data: any, plan?: unknown): { [out: string]: string } {
  const results = thresholdResults(data);
  const duration_ms = (data && data.state && data.state.testRunDurationMs) || 0;
  const report = {
    script,
    passed: results.every((r) => r.ok),
    test_run_duration_ms: duration_ms,
    thresholds: results,
    checks: data && data.root_group ? data.root_group.checks : [],
    metrics: (data && data.metrics) || {},
    ...(plan === undefined ? {} : { plan }),
  };
  return {
    stdout: textSummary(script, results),
    [`${dir}/${script}-summary.json`]: JSON.stringify(report, null, 2),
    [`${dir}/${script}-junit.xml`]: junitXml(script, results, duration_ms),
  };
}
