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

/**
 * A threshold declared only so that k6 keeps a sub-metric's figures (k6 keeps none unless a threshold names
 * it): `count>=0`, `rate>=0`. It cannot fail, so it is no check: left out of the verdict and the counts.
 */
const isFigure = (expression: string): boolean => /^\s*(count|rate)\s*>=\s*0\s*$/.test(expression);

/** Every threshold of a k6 summary object that is a check (figures left out), in metric order. */
export function thresholdResults(data: any): ThresholdResult[] {
  const out: ThresholdResult[] = [];
  const metrics = data?.metrics || {};
  for (const metric of Object.keys(metrics).sort()) {
    const th = metrics[metric].thresholds || {};
    for (const expression of Object.keys(th))
      if (!isFigure(expression)) out.push({ metric, expression, ok: th[expression].ok === true, values: metrics[metric].values || {} });
  }
  return out;
}

/** Journeys' figures from a summary's metrics: ended, cut off, and failures per step (non-zero ones). */
interface JourneyFigures {
  finished: number;
  unfinished: number;
  ok: number;
  steps_failed: { [step: string]: number };
}

function journeyFigures(metrics: any): JourneyFigures | null {
  if (!metrics || (!metrics.journey_ok && !metrics.journeys_finished)) return null;
  const count = (name: string): number => metrics[name]?.values?.count || 0;
  const steps_failed: { [step: string]: number } = {};
  for (const name of Object.keys(metrics).sort()) {
    const m = /^journey_step_failed\{step:(.+)\}$/.exec(name);
    if (m && count(name) > 0) steps_failed[m[1]!] = count(name);
  }
  const ok = metrics.journey_ok?.values?.passes || 0;
  return { finished: count('journeys_finished'), unfinished: count('journey_unfinished'), ok, steps_failed };
}

const stepList = (steps: { [step: string]: number }): string => {
  const names = Object.keys(steps);
  return names.length === 0 ? 'none' : names.map((n) => `${n} ${steps[n]}`).join(', ');
};

/** What the journeys did, in one line: ok of ended, cut off, failures per step. */
function describeJourneys(j: JourneyFigures): string {
  const started = j.finished + j.unfinished;
  return `${j.ok} of ${started} started journeys ok, ${j.finished} ended, ${j.unfinished} cut off by the end of the run; failed steps: ${stepList(j.steps_failed)}`;
}

interface ConductFindingOut {
  kind: string;
  api_key: string;
  message: string;
}

const kindsOf = (fs: ConductFindingOut[]): { [kind: string]: number } => {
  const k: { [kind: string]: number } = {};
  for (const f of fs) k[f.kind] = (k[f.kind] || 0) + 1;
  return k;
};

/** Journey and conduct thresholds say what lies behind their number: steps, unfinished journeys, findings. */
function explain(results: ThresholdResult[], journeys: JourneyFigures | null, conduct: ConductFindingOut[] | null): ThresholdResult[] {
  return results.map((r) => {
    if (journeys !== null && (r.metric === 'journey_ok' || r.metric === 'journey_unfinished' || r.metric === 'journeys_finished')) {
      const head = r.metric === 'journey_ok' ? `${describeValues(r.metric, r.values)}; ` : '';
      return { ...r, message: `${head}${describeJourneys(journeys)}` };
    }
    if (r.metric === 'conduct_findings' && conduct !== null && conduct.length > 0) {
      const kinds = kindsOf(conduct);
      const first = conduct
        .slice(0, 5)
        .map((f) => `${f.kind} (${f.api_key}): ${f.message}`)
        .join(' | ');
      return {
        ...r,
        message: `${conduct.length} findings since the run began: ${stepList(kinds)}; ${first}${conduct.length > 5 ? ' | …' : ''}`,
      };
    }
    return r;
  });
}

/** The setup check: red when setup did not return (k6 passes setup_data undefined then) or the configuration was unusable. */
function setupResult(data: any, config_error: string | null): ThresholdResult {
  const done = data !== null && typeof data === 'object' && data.setup_data !== undefined && data.setup_data !== null;
  const ok = done && config_error === null;
  const message = ok
    ? undefined
    : (config_error ?? 'setup() did not complete (k6 exits 107; its log above says why): no phase ran, so no threshold means anything');
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
const RATE_LABELS: { [metric: string]: [string, string] } = {
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

/** A JUnit test suite beyond the thresholds: journey steps, conduct finding kinds. */
export interface ExtraSuite {
  name: string;
  cases: Array<{ name: string; failure?: string }>;
}

function suiteXml(script: string, s: ExtraSuite): string[] {
  const failures = s.cases.filter((c) => c.failure !== undefined).length;
  return [
    `  <testsuite name="${xmlEscape(`${script} ${s.name}`)}" tests="${s.cases.length}" failures="${failures}" errors="0">`,
    ...s.cases.map((c) => {
      const open = `    <testcase classname="${xmlEscape(`k6.${script}.${s.name.replace(/\s+/g, '_')}`)}" name="${xmlEscape(c.name)}">`;
      if (c.failure === undefined) return `${open}</testcase>`;
      const msg = xmlEscape(c.failure);
      return `${open}\n      <failure message="${msg}" type="${xmlEscape(s.name)}">${msg}</failure>\n    </testcase>`;
    }),
    '  </testsuite>',
  ];
}

export function junitXml(script: string, results: ThresholdResult[], duration_ms: number, extra: ExtraSuite[] = []): string {
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
    `<testsuites name="k6 ${xmlEscape(script)}" tests="${results.length + extra.reduce((a, x) => a + x.cases.length, 0)}" failures="${failures + extra.reduce((a, x) => a + x.cases.filter((c) => c.failure !== undefined).length, 0)}" time="${(duration_ms / 1000).toFixed(3)}">`,
    `  <testsuite name="${xmlEscape(`${script} thresholds`)}" tests="${results.length}" failures="${failures}" errors="0" time="${(duration_ms / 1000).toFixed(3)}">`,
    ...cases,
    '  </testsuite>',
    ...extra.flatMap((x) => suiteXml(script, x)),
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
  return `${i === 0 ? Math.round(b) : b.toFixed(1)} ${units[i]}`;
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
      return trendStats
        .filter((s) => v[s] !== undefined)
        .map((s) => `${s}=${humanValue(v[s], c)}`)
        .join(' ');
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
  const metrics = data?.metrics || {};
  const trendStats: string[] = data?.options?.summaryTrendStats || ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'];
  const names = Object.keys(metrics).sort((a, b) =>
    baseName(a) === baseName(b)
      ? a === baseName(a)
        ? -1
        : b === baseName(b)
          ? 1
          : a.localeCompare(b)
      : baseName(a).localeCompare(baseName(b)),
  );
  const label = (n: string) => (n.indexOf('{') >= 0 ? `  { ${n.slice(n.indexOf('{') + 1, -1)} }` : n);
  const width = Math.max(30, ...names.map((n) => label(n).length + 3));
  const lines = names.map((n) => {
    // Figure-only declarations (`count>=0`) are no check: no mark.
    const checked = Object.keys(metrics[n].thresholds || {}).filter((e) => !isFigure(e));
    const mark = checked.length > 0 ? (checked.every((e) => metrics[n].thresholds[e].ok) ? '✓' : '✗') : ' ';
    const l = label(n);
    return `   ${mark} ${l}${'.'.repeat(Math.max(1, width - l.length))}: ${metricLine(n, metrics[n], trendStats)}`;
  });
  return lines.join('\n');
}

function textSummary(script: string, results: ThresholdResult[], data?: any, notes: string[] = [], after: string[] = []): string {
  const lines = results.map(
    (r) =>
      `  ${r.ok ? 'PASS' : 'FAIL'} ${r.metric}: ${r.expression}  (${r.message ?? (r.metric === 'setup' ? 'setup returned' : describeValues(r.metric, r.values))})`,
  );
  const failed = results.filter((r) => !r.ok).length;
  const table = data?.metrics ? ['', k6Table(data), ''] : [];
  // "checks": the setup check and k6's thresholds, counted alike here, in the JSON, the JUnit file and `swapsim report`.
  const verdict =
    failed === 0
      ? `${script}: PASSED, ${results.length}/${results.length} checks passed`
      : `${script}: FAILED, ${failed} of ${results.length} checks failed`;
  return [...table, ...notes.map((n) => `  ${n}`), verdict, ...lines, ...after.map((a) => `  ${a}`), ''].join('\n');
}

export interface SummaryExtras {
  /** A limit script's phases: lets `swapsim report` chart offered vs accepted rate against the limit. */
  plan?: unknown;
  /** Why the configuration could not be used (then setup threw it), or null. */
  config_error?: string | null;
  /** Journey scripts: swapsim's conduct findings made since the run began; null when not read here. */
  conduct?: ConductFindingOut[] | null;
  /** The thresholds one k6 process has: `npm run k6:combine` re-checks them on a split run's summaries. */
  whole_run_thresholds?: { [metric: string]: string[] };
}

/** The map handleSummary returns: file paths (and stdout) to contents. */
export function summaryOutputs(script: string, dir: string, data: any, extras: SummaryExtras = {}): { [out: string]: string } {
  const metrics = data?.metrics || {};
  const journeys = journeyFigures(metrics);
  const conduct = extras.conduct ?? null;
  const results = explain([setupResult(data, extras.config_error ?? null), ...thresholdResults(data)], journeys, conduct);
  const duration_ms = data?.state?.testRunDurationMs || 0;
  const setup = data?.setup_data && typeof data.setup_data === 'object' ? data.setup_data : {};
  const notes: string[] = Array.isArray(setup.notes) ? setup.notes : [];
  const after: string[] = [];
  const suites: ExtraSuite[] = [];
  if (journeys !== null) {
    after.push(`journeys: ${describeJourneys(journeys)} (each failure's reason is logged as "journey <id>: <step>: …")`);
    const steps = Object.keys(metrics)
      .map((n) => /^journey_step_failed\{step:(.+)\}$/.exec(n))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => m[1]!);
    suites.push({
      name: 'journey steps',
      cases: steps.map((step) => ({
        name: step,
        ...(journeys.steps_failed[step] ? { failure: `${step} failed in ${journeys.steps_failed[step]} journeys` } : {}),
      })),
    });
  }
  if (conduct !== null) {
    after.push(`conduct findings since the run began: ${conduct.length}${conduct.length > 0 ? ` (${stepList(kindsOf(conduct))})` : ''}`);
    for (const f of conduct.slice(0, 20)) after.push(`  ${f.kind} (${f.api_key}): ${f.message}`);
    if (conduct.length > 20) after.push(`  … ${conduct.length - 20} more in the JSON summary`);
    const kinds = kindsOf(conduct);
    const cases = Object.keys(kinds).map((kind) => ({
      name: kind,
      failure: conduct
        .filter((f) => f.kind === kind)
        .map((f) => `${f.api_key}: ${f.message}`)
        .join('\n'),
    }));
    suites.push({ name: 'conduct', cases: cases.length > 0 ? cases : [{ name: 'no finding since the run began' }] });
  }
  const report = {
    script,
    passed: results.every((r) => r.ok),
    setup_completed: results[0]!.ok,
    test_run_duration_ms: duration_ms,
    run_id: typeof setup.run_id === 'string' ? setup.run_id : null,
    start_ms: typeof setup.start_ms === 'number' ? setup.start_ms : null,
    start_agreed: setup.start_agreed === true,
    notes,
    thresholds: results,
    ...(journeys === null ? {} : { journeys }),
    ...(conduct === null ? {} : { conduct_findings: conduct }),
    checks: data?.root_group ? data.root_group.checks : [],
    metrics,
    ...(extras.plan === undefined ? {} : { plan: extras.plan }),
    ...(extras.whole_run_thresholds === undefined ? {} : { whole_run_thresholds: extras.whole_run_thresholds }),
  };
  // A split run's instances may share SUMMARY_DIR: each names its files by its segment (0:1/2 -> seg-0-1_2).
  const seg = typeof setup.segment === 'string' ? `-seg-${setup.segment.replace(/:/g, '-').replace(/\//g, '_')}` : '';
  return {
    stdout: textSummary(script, results, data, notes, after),
    [`${dir}/${script}${seg}-summary.json`]: JSON.stringify({ ...report, segment: setup.segment ?? null }, null, 2),
    [`${dir}/${script}${seg}-junit.xml`]: junitXml(script, results, duration_ms, suites),
  };
}
