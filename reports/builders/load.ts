// Load report from a k6 summary: per limit class and phase the offered rate, the accepted rate and the 429
// share against the documented limit line; latency percentiles; thresholds and checks with pass/fail.
import type { TopLevelSpec } from 'vega-lite';
import { DEFAULT_RATE_LIMITS } from '../../fake-provider/http/rate-limits.ts';
import { COLORS } from './charts.ts';
import { type K6Metric, type K6Summary, parseK6Summary } from './k6-summary.ts';
import { type Block, type Cell, duration, fmt, mono, okCell, pct, pill, type ReportModel, type Section } from './model.ts';

/** Tags that say what happened to a request, not which phase sent it. */
const OUTCOME_TAGS = new Set([
  'status',
  'expected_response',
  'name',
  'method',
  'url',
  'error',
  'error_code',
  'check',
  'group',
  'proto',
  'tls_version',
  'rate_limited',
  'throttled',
  'whole_run',
]);
const CLASS_TAGS = ['limit_class', 'class', 'limit'];

export interface LimitPhase {
  key: string;
  label: string;
  limit_class?: string;
  limit_per_s?: number;
  duration_s?: number;
  requests: number;
  throttled: number;
  offered_per_s?: number;
  accepted_per_s?: number;
  throttled_share?: number;
  dropped: number;
  latency?: Record<string, number>;
}

/** A limit class named anywhere in `text` (tag value, scenario or script name). */
function classIn(text: string): string | undefined {
  const t = text.toLowerCase();
  if (/firm/.test(t)) return 'firm_rfqs';
  if (/indicative/.test(t)) return 'indicative_rfqs';
  if (/write/.test(t)) return 'writes';
  if (/read/.test(t)) return 'reads';
  return undefined;
}

const groupTags = (m: K6Metric): Record<string, string> => Object.fromEntries(Object.entries(m.tags).filter(([k]) => !OUTCOME_TAGS.has(k)));
const keyOf = (tags: Record<string, string>): string =>
  Object.keys(tags)
    .sort()
    .map((k) => `${k}:${tags[k]}`)
    .join(',');
const outcomeFree = (m: K6Metric): boolean => Object.keys(m.tags).every((k) => !OUTCOME_TAGS.has(k));
/** Per-response rate metrics (one sample per response): their passes + fails count the responses. */
const PER_RESPONSE = /rejected|accepted|errors|429|rate_?limited|throttl/i;
const REJECTED = /rejected|429|rate_?limited|throttl/i;
const PHASE_METRICS = /^(http_reqs|iterations|http_req_duration|dropped_iterations)$/;

/** Groups the summary's sub-metrics into phases (a tag set such as {scenario:over}); the whole run when untagged. */
export function limitPhases(s: K6Summary, hint = ''): LimitPhase[] {
  const groups = new Map<string, Record<string, string>>();
  for (const m of s.metrics) {
    if (!PHASE_METRICS.test(m.name) && !PER_RESPONSE.test(m.name)) continue;
    const g = groupTags(m);
    if (Object.keys(g).length) groups.set(keyOf(g), g);
  }
  for (const p of s.extras.phases ?? [])
    if (![...groups.values()].some((g) => Object.values(g).includes(p.name))) groups.set(`phase:${p.name}`, { phase: p.name });
  if (groups.size === 0 && s.metrics.some((m) => m.name === 'http_reqs' || PER_RESPONSE.test(m.name))) groups.set('', {});
  const single = groups.size === 1;
  return [...groups.entries()]
    .map(([key, tags]) => phaseOf(s, key, tags, hint, single))
    .sort(
      (a, b) =>
        (a.limit_class ?? '').localeCompare(b.limit_class ?? '') ||
        (a.offered_per_s ?? 0) - (b.offered_per_s ?? 0) ||
        phaseRank(a.label) - phaseRank(b.label),
    );
}

const phaseRank = (label: string): number => ['under', 'at', 'over'].findIndex((p) => label.split(' · ').includes(p));

function phaseOf(s: K6Summary, key: string, tags: Record<string, string>, hint: string, single: boolean): LimitPhase {
  const mine = s.metrics.filter((m) => keyOf(groupTags(m)) === key);
  const exact = (name: string): K6Metric | undefined => mine.find((m) => m.name === name && outcomeFree(m));
  const rate = (re: RegExp): K6Metric | undefined => mine.find((m) => m.type === 'rate' && re.test(m.name) && outcomeFree(m));
  const extra = (s.extras.phases ?? []).find((p) => Object.values(tags).includes(p.name));
  const perResponse = mine.find((m) => m.type === 'rate' && PER_RESPONSE.test(m.name) && outcomeFree(m));
  const iterations = exact('iterations')?.values.count;
  const dropped = exact('dropped_iterations')?.values.count ?? 0;
  const requests =
    exact('http_reqs')?.values.count ??
    (perResponse ? (perResponse.values.passes ?? 0) + (perResponse.values.fails ?? 0) : (iterations ?? 0));
  const throttled = throttledCount(mine, requests);
  const errors = rate(/errors/)?.values.passes ?? 0;
  const accepted = rate(/accepted/)?.values.passes ?? Math.max(0, requests - throttled - errors);
  // A window per phase comes from the script's plan; the whole run's duration only fits a lone phase.
  const duration_s = extra?.duration_s ?? (single && s.duration_ms !== undefined ? s.duration_ms / 1000 : undefined);
  const tagClass = CLASS_TAGS.map((t) => tags[t]).find((v) => v !== undefined);
  const limit_class = normClass(extra?.limit_class ?? tagClass) ?? classIn(Object.values(tags).join(' ')) ?? classIn(hint);
  const limit_per_s =
    extra?.limit_per_s ?? (limit_class ? (DEFAULT_RATE_LIMITS as unknown as Record<string, number>)[limit_class] : undefined);
  const per_s = (n: number | undefined): number | undefined => (n !== undefined && duration_s ? n / duration_s : undefined);
  const label =
    Object.entries(tags)
      .filter(([k]) => !CLASS_TAGS.includes(k))
      .map(([, v]) => v)
      .join(' · ') || (key ? key : 'whole run');
  return {
    key,
    label,
    limit_class,
    limit_per_s,
    duration_s,
    requests,
    throttled,
    dropped,
    offered_per_s: extra?.offered_rate_per_s ?? per_s(iterations !== undefined ? iterations + dropped : requests),
    accepted_per_s:
      extra?.offered_rate_per_s !== undefined && requests > 0 && duration_s === undefined
        ? (extra.offered_rate_per_s * accepted) / requests
        : per_s(accepted),
    throttled_share: requests > 0 ? throttled / requests : undefined,
    latency: exact('http_req_duration')?.values,
  };
}

const normClass = (c: string | undefined): string | undefined => (c === undefined ? undefined : (classIn(c) ?? c));

/** 429s in a phase: `http_reqs{…,status:429}`, else a rate (passes) or counter named like rejected, rate_limited or 429. */
function throttledCount(ms: K6Metric[], requests: number): number {
  const byStatus = ms.find((m) => m.name === 'http_reqs' && m.tags.status === '429');
  if (byStatus) return byStatus.values.count ?? 0;
  const custom = ms.find(
    (m) => REJECTED.test(m.name) && (m.type === 'rate' || m.type === 'counter') && !/envelope|retry_after/.test(m.name) && outcomeFree(m),
  );
  if (!custom) return 0;
  if (custom.type === 'counter') return custom.values.count ?? 0;
  return custom.values.passes ?? Math.round((custom.values.rate ?? 0) * requests);
}

export function buildLoad(raw: unknown, opts: { name?: string } = {}): ReportModel {
  const s = parseK6Summary(raw);
  const hint = `${s.extras.script ?? ''} ${opts.name ?? ''}`;
  const phases = limitPhases(s, hint);
  // The scripts' own list when there is one (their setup check included, their figure-only `>=0` declarations
  // left out), so the page counts what their stdout counts; else every k6 threshold.
  const valuesOf = (key: string): Record<string, number> => s.metrics.find((m) => m.key === key)?.values ?? {};
  const thresholds =
    s.verdicts !== undefined
      ? s.verdicts.map((t) => ({ metric: t.metric, expr: t.expr, ok: t.ok, values: valuesOf(t.metric) }))
      : s.metrics.flatMap((m) => m.thresholds.map((t) => ({ metric: m.key, values: m.values, ...t })));
  const failedThresholds = thresholds.filter((t) => !t.ok).length;
  const checks = s.checks;
  const checkFails = checks.reduce((n, c) => n + c.fails, 0);
  const val = (name: string, v: string): number | undefined => s.metrics.find((m) => m.key === name)?.values[v];
  const overview: Section = {
    id: 'overview',
    heading: 'Overview',
    tone: failedThresholds ? 'fail' : thresholds.length ? 'pass' : undefined,
    aside: thresholds.length
      ? `${thresholds.length - failedThresholds} of ${thresholds.length} thresholds passed`
      : 'no thresholds defined',
    blocks: [
      {
        type: 'facts',
        items: [
          { label: 'test duration', value: duration(s.duration_ms) },
          { label: 'requests', value: fmt(val('http_reqs', 'count'), 0) },
          { label: 'request rate', value: `${fmt(val('http_reqs', 'rate'))}/s` },
          { label: 'iterations', value: fmt(val('iterations', 'count'), 0) },
          { label: 'dropped iterations', value: fmt(val('dropped_iterations', 'count') ?? 0, 0) },
          { label: 'failed requests', value: pct(val('http_req_failed', 'rate')) },
          { label: 'p95 latency', value: `${fmt(val('http_req_duration', 'p(95)'))} ms` },
          { label: 'checks', value: checks.length ? pill(`${checkFails} failed`, checkFails ? 'fail' : 'pass') : '–' },
        ],
      },
    ],
  };
  const sections: Section[] = [
    overview,
    limitsSection(phases),
    latencySection(s),
    thresholdsSection(thresholds),
    checksSection(checks),
    metricsSection(s),
  ];
  return {
    kind: 'load',
    title: `Load test${s.extras.script ? ` ${s.extras.script}` : opts.name ? ` ${opts.name}` : ''}`,
    subtitle: `k6 summary · ${duration(s.duration_ms)} · ${fmt(val('http_reqs', 'count'), 0)} requests`,
    verdict: failedThresholds
      ? { text: `${failedThresholds} THRESHOLD${failedThresholds === 1 ? '' : 'S'} FAILED`, tone: 'fail' }
      : thresholds.length
        ? { text: 'THRESHOLDS PASSED', tone: 'pass' }
        : { text: 'NO THRESHOLDS', tone: 'info' },
    toc: sections.filter((x) => x.id).map((x) => ({ id: x.id!, label: x.heading, tone: x.tone })),
    sections,
  };
}

function limitsSection(phases: LimitPhase[]): Section {
  const rows = phases.map((p): Cell[] => [
    p.limit_class ?? pill('unknown', 'muted'),
    p.label,
    p.limit_per_s !== undefined ? `${fmt(p.limit_per_s)}/s` : '–',
    fmt(p.offered_per_s),
    fmt(p.accepted_per_s),
    fmt(p.requests, 0),
    fmt(p.throttled, 0),
    p.throttled_share === undefined ? '–' : pill(pct(p.throttled_share), p.throttled > 0 ? 'warn' : 'pass'),
    fmt(p.dropped, 0),
  ]);
  const blocks: Block[] = [];
  const drawable = phases.filter((p) => p.offered_per_s !== undefined);
  if (drawable.length) blocks.push(ratesChart(drawable));
  if (phases.some((p) => p.throttled_share !== undefined)) blocks.push(shareChart(phases.filter((p) => p.throttled_share !== undefined)));
  blocks.push({
    type: 'table',
    columns: ['limit class', 'phase', 'documented limit', 'offered /s', 'accepted /s', 'requests', '429s', '429 share', 'dropped'],
    numeric: [3, 4, 5, 6, 8],
    rows,
    empty: 'No requests were recorded (no http_reqs metric).',
  });
  if (phases.some((p) => p.offered_per_s === undefined))
    blocks.push({
      type: 'note',
      tone: 'muted',
      text: 'Some phases have no time window in this summary, so their rates are not drawn (counts and 429 shares are exact). A script gives each phase its window with a `plan` or `swapsim.phases` block in its summary JSON.',
    });
  return { id: 'limits', heading: 'Rate limits', aside: `${phases.length} phase${phases.length === 1 ? '' : 's'}`, blocks };
}

function ratesChart(phases: LimitPhase[]): Block {
  const values = phases.flatMap((p) => [
    { cls: p.limit_class ?? 'unknown', phase: p.label, measure: 'offered', rate: p.offered_per_s ?? 0, limit: p.limit_per_s },
    { cls: p.limit_class ?? 'unknown', phase: p.label, measure: 'accepted', rate: p.accepted_per_s ?? 0, limit: p.limit_per_s },
  ]);
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values },
    facet: { column: { field: 'cls', type: 'nominal', title: null, header: { labelFontSize: 13, labelFontWeight: 600 } } },
    resolve: { scale: { x: 'independent', y: 'independent' } },
    spec: {
      width: { step: 56 },
      height: 240,
      layer: [
        {
          mark: { type: 'bar', cornerRadiusTopLeft: 3, cornerRadiusTopRight: 3 },
          encoding: {
            x: { field: 'phase', type: 'nominal', sort: null, title: 'phase', axis: { labelAngle: 0, labelLimit: 120 } },
            xOffset: { field: 'measure', sort: ['offered', 'accepted'] },
            y: { field: 'rate', type: 'quantitative', title: 'requests / s' },
            color: {
              field: 'measure',
              type: 'nominal',
              title: null,
              sort: ['offered', 'accepted'],
              scale: { domain: ['offered', 'accepted', 'documented limit'], range: ['#9ec5fe', COLORS.info, COLORS.fail] },
            },
          },
        },
        {
          mark: { type: 'rule', color: COLORS.fail, strokeDash: [6, 4], strokeWidth: 2 },
          encoding: { y: { field: 'limit', type: 'quantitative', aggregate: 'max' } },
        },
        {
          transform: [
            { aggregate: [{ op: 'max', field: 'limit', as: 'limit' }] },
            { calculate: "'limit ' + format(datum.limit, ',.4~f') + '/s'", as: 'limit_label' },
          ],
          mark: { type: 'text', align: 'right', baseline: 'bottom', dy: -3, color: COLORS.fail, fontSize: 11, fontWeight: 600 },
          encoding: { x: { value: 'width' }, y: { field: 'limit', type: 'quantitative' }, text: { field: 'limit_label' } },
        },
      ],
    },
  } as unknown as TopLevelSpec;
  return {
    type: 'chart',
    title: 'Offered vs accepted rate, against the documented limit (dashed red line)',
    caption: 'Accepted = requests that did not get a 429. At or under the limit both bars match; over it, accepted should sit on the line.',
    spec,
  };
}

function shareChart(phases: LimitPhase[]): Block {
  const values = phases.map((p) => ({
    name: `${p.limit_class ?? '?'} · ${p.label}`,
    share: p.throttled_share ?? 0,
    throttled: p.throttled > 0 ? 'some 429s' : 'no 429s',
  }));
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values },
    width: 560,
    height: { step: 22 },
    layer: [
      {
        mark: { type: 'bar', cornerRadiusEnd: 3 },
        encoding: {
          y: { field: 'name', type: 'nominal', sort: null, title: null, axis: { labelLimit: 240 } },
          x: { field: 'share', type: 'quantitative', title: '429 share of requests', axis: { format: '.0%' }, scale: { domain: [0, 1] } },
          color: {
            field: 'throttled',
            type: 'nominal',
            title: null,
            scale: { domain: ['no 429s', 'some 429s'], range: [COLORS.pass, COLORS.warn] },
          },
        },
      },
      {
        mark: { type: 'text', align: 'left', dx: 4, fontSize: 11, color: COLORS.ink },
        encoding: {
          y: { field: 'name', type: 'nominal', sort: null },
          x: { field: 'share', type: 'quantitative' },
          text: { field: 'share', type: 'quantitative', format: '.1%' },
        },
      },
    ],
  } as unknown as TopLevelSpec;
  return { type: 'chart', title: '429 share per phase', spec };
}

const LAT_STATS = ['min', 'med', 'avg', 'p(90)', 'p(95)', 'p(99)', 'max'];

function latencySection(s: K6Summary): Section {
  const trends = s.metrics.filter((m) => m.type === 'trend' && (m.contains === 'time' || /duration|latency|_ms$|waiting/.test(m.name)));
  const stats = LAT_STATS.filter((st) => trends.some((m) => m.values[st] !== undefined));
  const rows = trends.map((m): Cell[] => [mono(m.key), ...stats.map((st) => fmt(m.values[st]))]);
  const blocks: Block[] = [];
  const durations = trends.filter((m) => m.name === 'http_req_duration');
  if (durations.length) blocks.push(latencyChart(durations));
  blocks.push({
    type: 'table',
    columns: ['metric (ms)', ...stats],
    rows,
    numeric: stats.map((_, i) => i + 1),
    empty: 'No latency trends in the summary.',
  });
  return { id: 'latency', heading: 'Latency', aside: 'milliseconds', blocks };
}

function latencyChart(ms: K6Metric[]): Block {
  const all = ['med', 'p(90)', 'p(95)', 'p(99)', 'max'];
  const colors: Record<string, string> = { med: '#1a7f37', 'p(90)': '#0969da', 'p(95)': '#8250df', 'p(99)': '#e8590c', max: '#cf222e' };
  const pts = all.filter((p) => ms.some((m) => m.values[p] !== undefined));
  const values = ms.flatMap((m) => pts.filter((p) => m.values[p] !== undefined).map((p) => ({ metric: m.key, stat: p, ms: m.values[p] })));
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values },
    width: 640,
    height: { step: 26 },
    layer: [
      {
        mark: { type: 'rule', color: '#d0d7de', strokeWidth: 2 },
        encoding: {
          y: { field: 'metric', type: 'nominal', title: null, axis: { labelLimit: 320 } },
          x: { field: 'ms', aggregate: 'min', type: 'quantitative' },
          x2: { field: 'ms', aggregate: 'max' },
        },
      },
      {
        mark: { type: 'point', filled: true, size: 80 },
        encoding: {
          y: { field: 'metric', type: 'nominal' },
          x: { field: 'ms', type: 'quantitative', title: 'ms' },
          color: {
            field: 'stat',
            type: 'nominal',
            title: 'percentile',
            sort: pts,
            scale: { domain: pts, range: pts.map((p) => colors[p]) },
          },
        },
      },
    ],
  } as unknown as TopLevelSpec;
  return { type: 'chart', title: 'http_req_duration percentiles', spec };
}

/** The figure a threshold expression tests (`p(95)<500` → the p(95) value), as k6 reported it. */
function observed(expr: string, values: Record<string, number>): string {
  const stat = /^\s*([a-z_]+(?:\(\d+(?:\.\d+)?\))?)/i.exec(expr)?.[1];
  const v = stat === undefined ? undefined : values[stat];
  if (v === undefined) return '–';
  return stat === 'rate' ? `${fmt(v * 100)}%` : fmt(v);
}

function thresholdsSection(ts: Array<{ metric: string; expr: string; ok: boolean; values: Record<string, number> }>): Section {
  const failed = ts.filter((t) => !t.ok).length;
  const rows = [...ts]
    .sort((a, b) => Number(a.ok) - Number(b.ok))
    .map((t): Cell[] => [okCell(t.ok), mono(t.metric), mono(t.expr), observed(t.expr, t.values)]);
  return {
    id: 'thresholds',
    heading: 'Thresholds',
    tone: failed ? 'fail' : ts.length ? 'pass' : undefined,
    aside: ts.length ? `${failed} failed` : '',
    blocks: [
      {
        type: 'table',
        columns: ['result', 'metric', 'threshold', 'observed'],
        rows,
        numeric: [3],
        empty: 'The script defined no thresholds.',
      },
    ],
  };
}

function checksSection(cs: K6Summary['checks']): Section {
  const rows = cs.map((c): Cell[] => [okCell(c.fails === 0), c.path.replace(/^::/, '') || '–', c.name, fmt(c.passes, 0), fmt(c.fails, 0)]);
  const failed = cs.filter((c) => c.fails > 0).length;
  return {
    id: 'checks',
    heading: 'Checks',
    tone: failed ? 'fail' : cs.length ? 'pass' : undefined,
    aside: cs.length ? `${failed} of ${cs.length} with failures` : '',
    blocks: [{ type: 'table', columns: ['result', 'group', 'check', 'passes', 'fails'], rows, numeric: [3, 4], empty: 'No checks.' }],
  };
}

function metricsSection(s: K6Summary): Section {
  const rows = s.metrics.map((m): Cell[] => [
    mono(m.key),
    m.type,
    Object.entries(m.values)
      .map(([k, v]) => `${k}=${fmt(v)}`)
      .join('  '),
  ]);
  return {
    heading: 'All metrics',
    blocks: [
      {
        type: 'details',
        summary: `${s.metrics.length} metrics as k6 reported them`,
        blocks: [{ type: 'table', columns: ['metric', 'type', 'values'], rows }],
      },
    ],
  };
}
