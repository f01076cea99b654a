// Defensive reader of k6's legacy summary JSON (what handleSummary receives, k6 0.48–1.x; also the older
// --summary-export shape): metrics with sub-metric tags, thresholds, checks, run duration. Missing or extra
// fields never throw; whatever cannot be read is left out.
import type { K6SummaryExtras } from '../types.ts';

export interface K6Metric {
  /** Full key as k6 wrote it, e.g. `http_reqs{phase:over,status:429}`. */
  key: string;
  name: string;
  tags: Record<string, string>;
  type: string;
  contains: string;
  values: Record<string, number>;
  thresholds: Array<{ expr: string; ok: boolean }>;
}

interface K6Check {
  path: string;
  name: string;
  passes: number;
  fails: number;
}

export interface K6Summary {
  duration_ms?: number;
  /** The swapsim scripts' own verdict list (`thresholds`: the setup check and every k6 threshold that can
   *  fail), when the file is theirs: what their stdout counts. Absent for a plain k6 summary. */
  verdicts?: Array<{ metric: string; expr: string; ok: boolean; message?: string }>;
  metrics: K6Metric[];
  checks: K6Check[];
  extras: K6SummaryExtras;
  trend_stats: string[];
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** True when `v` looks like a k6 summary (a `metrics` map of k6 metric entries), not one of our report kinds. */
export function isK6Summary(v: unknown): boolean {
  if (!isObj(v) || !isObj(v.metrics) || typeof v.kind === 'string') return false;
  const entries = Object.values(v.metrics);
  return (
    entries.length > 0 &&
    entries.some((m) => isObj(m) && (typeof m.type === 'string' || isObj(m.values) || finite(m.count) || finite(m.avg) || finite(m.rate)))
  );
}

/** `name{a:b,c:d}` → name + tags. Tag values may contain ':' (URLs), so only the first one splits. */
export function parseMetricKey(key: string): { name: string; tags: Record<string, string> } {
  const m = /^([^{]*)\{(.*)\}\s*$/.exec(key);
  if (!m) return { name: key.trim(), tags: {} };
  const tags: Record<string, string> = {};
  for (const part of m[2].split(',')) {
    const i = part.indexOf(':');
    if (i > 0) tags[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return { name: m[1].trim(), tags };
}

export function parseK6Summary(raw: unknown): K6Summary {
  const data = isObj(raw) ? raw : {};
  const metrics = isObj(data.metrics) ? Object.entries(data.metrics).flatMap(([key, m]) => (isObj(m) ? [metric(key, m)] : [])) : [];
  const state = isObj(data.state) ? data.state : {};
  const options = isObj(data.options) ? data.options : {};
  // The swapsim k6 scripts' own summary file keeps k6's `metrics` and adds script, test_run_duration_ms,
  // checks (root_group's) and thresholds; raw handleSummary data has state/root_group instead.
  const duration_ms = finite(state.testRunDurationMs)
    ? state.testRunDurationMs
    : finite(data.test_run_duration_ms)
      ? data.test_run_duration_ms
      : undefined;
  const extras = extrasOf(data.swapsim) ?? extrasFromPlan(data.plan) ?? {};
  if (extras.script === undefined && typeof data.script === 'string') extras.script = data.script;
  const verdicts = Array.isArray(data.thresholds)
    ? data.thresholds
        .filter(isObj)
        .filter((t) => typeof t.metric === 'string' && typeof t.expression === 'string' && typeof t.ok === 'boolean')
        .map((t) => ({
          metric: t.metric as string,
          expr: t.expression as string,
          ok: t.ok as boolean,
          ...(typeof t.message === 'string' ? { message: t.message } : {}),
        }))
    : undefined;
  return {
    duration_ms,
    ...(verdicts === undefined ? {} : { verdicts }),
    metrics: metrics.sort((a, b) => a.key.localeCompare(b.key)),
    checks: data.root_group !== undefined ? checksOf(data.root_group) : checksOf({ checks: data.checks }),
    extras,
    trend_stats: Array.isArray(options.summaryTrendStats)
      ? options.summaryTrendStats.filter((s): s is string => typeof s === 'string')
      : [],
  };
}

function metric(key: string, m: Record<string, unknown>): K6Metric {
  const { name, tags } = parseMetricKey(key);
  // handleSummary nests figures under `values`; --summary-export puts them at the top level.
  const source = isObj(m.values) ? m.values : m;
  const values: Record<string, number> = {};
  for (const [k, v] of Object.entries(source)) if (finite(v)) values[k] = v;
  const type = typeof m.type === 'string' ? m.type : guessType(values);
  return {
    key,
    name,
    tags,
    type,
    contains: typeof m.contains === 'string' ? m.contains : '',
    values,
    thresholds: thresholdsOf(m.thresholds),
  };
}

const guessType = (v: Record<string, number>): string =>
  'count' in v
    ? 'counter'
    : 'passes' in v || 'fails' in v
      ? 'rate'
      : 'avg' in v || 'med' in v
        ? 'trend'
        : 'value' in v
          ? 'gauge'
          : 'unknown';

function thresholdsOf(t: unknown): Array<{ expr: string; ok: boolean }> {
  if (!isObj(t)) return [];
  return Object.entries(t).flatMap(([expr, v]) => {
    if (isObj(v) && typeof v.ok === 'boolean') return [{ expr, ok: v.ok }];
    // --summary-export writes `expr: true` when the threshold FAILED (was crossed).
    if (typeof v === 'boolean') return [{ expr, ok: !v }];
    return [];
  });
}

function checksOf(group: unknown, acc: K6Check[] = []): K6Check[] {
  if (!isObj(group)) return acc;
  const checks = Array.isArray(group.checks) ? group.checks : isObj(group.checks) ? Object.values(group.checks) : [];
  for (const c of checks) {
    if (!isObj(c)) continue;
    acc.push({
      path: typeof group.path === 'string' ? group.path : '',
      name: String(c.name ?? '?'),
      passes: finite(c.passes) ? c.passes : 0,
      fails: finite(c.fails) ? c.fails : 0,
    });
  }
  const groups = Array.isArray(group.groups) ? group.groups : isObj(group.groups) ? Object.values(group.groups) : [];
  for (const g of groups) checksOf(g, acc);
  return acc;
}

/** A limit plan (limit_class, limit, phases of {name, per_s, duration_ms, start_ms}) as the load scripts build it. */
function extrasFromPlan(x: unknown): K6SummaryExtras | undefined {
  if (!isObj(x) || !Array.isArray(x.phases)) return undefined;
  const limit_class = typeof x.limit_class === 'string' ? x.limit_class : undefined;
  const limit_per_s = finite(x.limit) ? x.limit : undefined;
  return {
    phases: x.phases
      .filter(isObj)
      .filter((p) => typeof p.name === 'string')
      .map((p) => ({
        name: p.name as string,
        limit_class,
        limit_per_s,
        offered_rate_per_s: finite(p.per_s) ? p.per_s : undefined,
        duration_s: finite(p.duration_ms) ? p.duration_ms / 1000 : undefined,
        start_s: finite(p.start_ms) ? p.start_ms / 1000 : undefined,
      })),
  };
}

function extrasOf(x: unknown): K6SummaryExtras | undefined {
  if (!isObj(x)) return undefined;
  const phases = Array.isArray(x.phases)
    ? x.phases
        .filter(isObj)
        .filter((p) => typeof p.name === 'string')
        .map((p) => ({
          name: p.name as string,
          limit_class: typeof p.limit_class === 'string' ? p.limit_class : undefined,
          limit_per_s: finite(p.limit_per_s) ? p.limit_per_s : undefined,
          offered_rate_per_s: finite(p.offered_rate_per_s) ? p.offered_rate_per_s : undefined,
          duration_s: finite(p.duration_s) ? p.duration_s : undefined,
          start_s: finite(p.start_s) ? p.start_s : undefined,
        }))
    : undefined;
  return { script: typeof x.script === 'string' ? x.script : undefined, phases };
}
