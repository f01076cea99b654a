// handleSummary outputs, written without remote imports (offline, bundled): on stdout k6's usual end-of-test
// table (every metric, as k6 prints it when no handleSummary is given) with the thresholds and what keys
// were used; under SUMMARY_DIR a JSON report and a JUnit XML file (one test case per threshold expression).
// A run whose setup failed (or whose configuration was unusable) is red in all three, whatever the
// thresholds say: k6 passes thresholds on metrics with no samples. setup_data is left out: it holds API keys.

export interface ThresholdResult {
  metric: string;
  expression: string;
  ok: boolean;
  values: { [stat: string]: number };
  /** Why it failed, where a number does not say it (setup). */
  message?: string;
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

/** The setup check: red when setup did not return (k6 passes setup_data undefined then) or the configuration was unusable. */
export function setupResult(data: any, config_error: string | null): ThresholdResult {
  const done = data !== null && typeof data === 'object' && data.setup_data !== undefined && data.setup_data !== null;
  const ok = done && config_error === null;
  const message = ok ? undefined : config_error ?? 'setup() did not complete (k6 exits 107; its log above says why): no phase ran, so no threshold means anything';
  return { metric: 'setup', expression: 'completed', ok, values: {}, ...(message === undefined ? {} : { message }) };
}

export function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const round4 = (x: number): number => Math.round(x * 10000) / 10000;

/**
 * What a Rate metric's passes and fails mean, by metric name: k6 prints "✓ passes ✗ fails", where a pass
 * is a true sample (on rl_rejected, a 429). These labels say it.
 */
export const RATE_LABELS: { [metric: string]: [string, string] } = {
  rl_rejected: ['429s', 'not 429'],
  rl_accepted: ['2xx', 'not 2xx'],
  rl_errors: ['neither 2xx nor 429', '2xx or 429'],
  journey_ok: ['journeys ok', 'journeys failed'],
  http_req_failed: ['failed requests', 'ok requests'],
  checks: ['checks passed', 'checks failed'],
};

const baseName = (metric: string): string => metric.replace(/\{.*$/, '');

/** One threshold's observed values in words: `429s 2.1% (5 of 240)` rather than `rate=0.021 passes=5 fails=235`. */
export function describeValues(metric: string, values: { [stat: string]: number }): string {
  const labels = RATE_LABELS[baseName(metric)];
  if (labels && values.rate !== undefined && values.passes !== undefined) {
    const total = values.passes + (values.fails ?? 0);
    return `${labels[0]} ${(values.rate * 100).toFixed(2)}% (${values.passes} of ${total})`;
  }
  return Object.keys(values)
    .map((k) => `${k}=${round4(values[k]!)}`)
    .join(' ');
}

export function junitXml(script: string, results: ThresholdResult[], duration_ms: number): string {
  const failures = results.filter((r) => !r.ok).length;
  const cases = results.map((r) => {
    const name = xmlEscape(`${r.metric}: ${r.expression}`);
    const open = `    <testcase classname="${xmlEscape(`k6.${script}`)}" name="${name}">`;
    if (r.ok) return `${open}</testcase>`;
    const msg = xmlEscape(r.message ?? `threshold ${r.expression} on ${r.metric} failed; observed ${describeValues(r.metric, r.values)}`);
    return `${open}\n      <failure message="${msg}" type="${r.metric === 'setup' ? 'setup' : 'threshold'}">${msg}</failure>\n    </testcase>`;
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

// ---- k6's end-of-test table, reproduced (k6 prints none of it once a script defines handleSummary) ----

function humanTime(ms: number): string {
  if (ms >= 60_000) return `${Math.floor(ms / 60_000)}m${((ms % 60_000) / 1000).toFixed(2)}s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)}s`;
  if (ms >= 1) return `${ms.toFixed(2)}ms`;
  return `${(ms * 1000).toFixed(2)}µs`;
}

function humanBytes(b: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (b >= 1000 && i < units.length - 1) {
    b /= 1000;
    i++;
  }
  return `${i === 0 ? b : b.toFixed(1)} ${units[i]}`;
}

function humanValue(v: number, contains: string): string {
  if (contains === 'time') return humanTime(v);
  if (contains === 'data') return humanBytes(v);
  return String(round4(v));
}

function metricLine(name: string, m: any, trendStats: string[]): string {
  const v = m.values || {};
  const c = m.contains || 'default';
  switch (m.type) {
    case 'trend':
      return trendStats.filter((s) => v[s] !== undefined).map((s) => `${s}=${humanValue(v[s], c)}`).join(' ');
    case 'counter':
      return `${humanValue(v.count ?? 0, c)}  ${c === 'data' ? `${humanBytes(v.rate ?? 0)}/s` : `${round4(v.rate ?? 0)}/s`}`;
    case 'gauge':
      return `${humanValue(v.value ?? 0, c)}  min=${humanValue(v.min ?? 0, c)} max=${humanValue(v.max ?? 0, c)}`;
    case 'rate': {
      const [yes, no] = RATE_LABELS[baseName(name)] || ['true', 'false'];
      return `${((v.rate ?? 0) * 100).toFixed(2)}%  ${yes}: ${v.passes ?? 0}  ${no}: ${v.fails ?? 0}`;
    }
    default:
      return JSON.stringify(v);
  }
}

/** k6's end-of-test metrics table: every metric, sub-metrics indented under theirs, names padded with dots. */
export function k6Table(data: any): string {
  const metrics = (data && data.metrics) || {};
  const trendStats: string[] = (data && data.options && data.options.summaryTrendStats) || ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'];
  const names = Object.keys(metrics).sort((a, b) => (baseName(a) === baseName(b) ? (a === baseName(a) ? -1 : b === baseName(b) ? 1 : a.localeCompare(b)) : baseName(a).localeCompare(baseName(b))));
  const label = (n: string) => (n.indexOf('{') >= 0 ? `  { ${n.slice(n.indexOf('{') + 1, -1)} }` : n);
  const width = Math.max(30, ...names.map((n) => label(n).length + 3));
  const lines = names.map((n) => {
    const mark = metrics[n].thresholds ? (Object.keys(metrics[n].thresholds).every((e) => metrics[n].thresholds[e].ok) ? '✓' : '✗') : ' ';
    const l = label(n);
    return `   ${mark} ${l}${'.'.repeat(Math.max(1, width - l.length))}: ${metricLine(n, metrics[n], trendStats)}`;
  });
  return lines.join('\n');
}

export function textSummary(script: string, results: ThresholdResult[], data?: any, notes: string[] = []): string {
  const lines = results.map((r) => `  ${r.ok ? 'PASS' : 'FAIL'} ${r.metric}: ${r.expression}  (${r.message ?? (r.metric === 'setup' ? 'setup returned' : describeValues(r.metric, r.values))})`);
  const failed = results.filter((r) => !r.ok).length;
  const table = data && data.metrics ? ['', k6Table(data), ''] : [];
  const verdict = failed === 0 ? `${script}: PASSED, ${results.length}/${results.length} thresholds passed` : `${script}: FAILED, ${failed} of ${results.length} checks failed`;
  return [...table, ...notes.map((n) => `  ${n}`), verdict, ...lines, ''].join('\n');
}

export interface SummaryExtras {
  /** A limit script's phases: lets `swapsim report` chart offered vs accepted rate against the limit. */
  plan?: unknown;
  /** Why the configuration could not be used (then setup threw it), or null. */
  config_error?: string | null;
}

/** The map handleSummary returns: file paths (and stdout) to contents. */
export function summaryOutputs(script: string, dir: string, data: any, extras: SummaryExtras = {}): { [out: string]: string } {
  const results = [setupResult(data, extras.config_error ?? null), ...thresholdResults(data)];
  const duration_ms = (data && data.state && data.state.testRunDurationMs) || 0;
  const setup = data && data.setup_data && typeof data.setup_data === 'object' ? data.setup_data : {};
  const notes: string[] = Array.isArray(setup.notes) ? setup.notes : [];
  const report = {
    script,
    passed: results.every((r) => r.ok),
    setup_completed: results[0]!.ok,
    test_run_duration_ms: duration_ms,
    notes,
    thresholds: results,
    checks: data && data.root_group ? data.root_group.checks : [],
    metrics: (data && data.metrics) || {},
    ...(extras.plan === undefined ? {} : { plan: extras.plan }),
  };
  // A split run's instances may share SUMMARY_DIR: each names its files by its segment (0:1/2 -> seg-0-1_2).
  const seg = typeof setup.segment === 'string' ? `-seg-${setup.segment.replace(/:/g, '-').replace(/\//g, '_')}` : '';
  return {
    stdout: textSummary(script, results, data, notes),
    [`${dir}/${script}${seg}-summary.json`]: JSON.stringify({ ...report, segment: setup.segment ?? null }, null, 2),
    [`${dir}/${script}${seg}-junit.xml`]: junitXml(script, results, duration_ms),
  };
}
