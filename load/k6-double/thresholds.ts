// TEST FIXTURE, not a load tool. k6's threshold semantics over the samples the double collected:
// `metric{tag:value,...}` selects a (sub-)metric, expressions are `agg op number` with the
// aggregations k6 defines per metric type (counter: count, rate; rate: rate; trend: avg, min, med,
// max, p(N); gauge: value, min, max). As in k6, a (sub-)metric without samples is not evaluated
// and passes: the scripts therefore add a sample to every metric they put a threshold on.
import type { MetricType, Sample } from './protocol.ts';

export interface Selector {
  metric: string;
  tags: { [tag: string]: string };
}

export function parseSelector(key: string): Selector {
  const m = /^([^{}]+)(?:\{(.*)\})?$/.exec(key.trim());
  if (!m) throw new Error(`k6 double: bad threshold metric ${key}`);
  const tags: { [tag: string]: string } = {};
  for (const part of (m[2] ?? '').split(',').filter((p) => p.trim() !== '')) {
    const i = part.indexOf(':');
    if (i < 0) throw new Error(`k6 double: bad tag filter ${part} in ${key}`);
    tags[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return { metric: m[1]!.trim(), tags };
}

export function select(samples: Sample[], sel: Selector): Sample[] {
  const tagKeys = Object.keys(sel.tags);
  return samples.filter((s) => s.metric === sel.metric && tagKeys.every((t) => s.tags[t] === sel.tags[t]));
}

/** k6's percentile: linear interpolation between the closest ranks. */
export function percentile(sorted: number[], pct: number): number {
  if (sorted.length === 0) return 0;
  const i = (pct / 100) * (sorted.length - 1);
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (i - lo);
}

export function aggregate(
  type: MetricType,
  samples: Sample[],
  duration_ms: number,
  extraPercentiles: number[] = [],
): { [stat: string]: number } {
  const values = samples.map((s) => s.value);
  switch (type) {
    case 'counter': {
      const count = values.reduce((a, b) => a + b, 0);
      return { count, rate: duration_ms > 0 ? count / (duration_ms / 1000) : 0 };
    }
    case 'rate': {
      const passes = values.filter((v) => v !== 0).length;
      return { rate: values.length ? passes / values.length : 0, passes, fails: values.length - passes };
    }
    case 'gauge':
      return { value: values.length ? values[values.length - 1]! : 0, min: Math.min(...values), max: Math.max(...values) };
    case 'trend': {
      const sorted = [...values].sort((a, b) => a - b);
      const out: { [stat: string]: number } = {
        avg: values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0,
        min: sorted[0] ?? 0,
        med: percentile(sorted, 50),
        max: sorted[sorted.length - 1] ?? 0,
        'p(90)': percentile(sorted, 90),
        'p(95)': percentile(sorted, 95),
      };
      for (const p of extraPercentiles) out[`p(${p})`] = percentile(sorted, p);
      return out;
    }
  }
}

export interface Expression {
  agg: string;
  pct: number | null;
  op: '<' | '<=' | '>' | '>=' | '==' | '===' | '!=';
  value: number;
}

export function parseExpression(text: string): Expression {
  const m = /^\s*(count|rate|value|avg|min|max|med|p\((\d+(?:\.\d+)?)\))\s*(<=|>=|===|==|!=|<|>)\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*$/.exec(
    text,
  );
  if (!m) throw new Error(`k6 double: threshold expression not understood: ${text}`);
  return {
    agg: m[2] !== undefined ? `p(${Number(m[2])})` : m[1]!,
    pct: m[2] !== undefined ? Number(m[2]) : null,
    op: m[3] as Expression['op'],
    value: Number(m[4]),
  };
}

function compare(a: number, op: Expression['op'], b: number): boolean {
  switch (op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case '==':
    case '===':
      return a === b;
    case '!=':
      return a !== b;
  }
}

const ALLOWED: { [t in MetricType]: (agg: string) => boolean } = {
  counter: (a) => a === 'count' || a === 'rate',
  rate: (a) => a === 'rate',
  gauge: (a) => a === 'value' || a === 'min' || a === 'max',
  trend: (a) => ['avg', 'min', 'max', 'med'].includes(a) || a.startsWith('p('),
};

export interface ThresholdOutcome {
  /** The key as the script wrote it, e.g. `rl_rejected{scenario:over}`. */
  key: string;
  expression: string;
  ok: boolean;
  /** false when the (sub-)metric had no samples (k6 then does not fail the threshold). */
  evaluated: boolean;
  values: { [stat: string]: number };
  type: MetricType | null;
}

type ThresholdSpec = string | { threshold: string; abortOnFail?: boolean; delayAbortEval?: string };

/** Every threshold of `options.thresholds` evaluated at the end of the run (abortOnFail is not simulated). */
export function evaluateThresholds(
  thresholds: { [key: string]: ThresholdSpec[] },
  samples: Sample[],
  duration_ms: number,
): ThresholdOutcome[] {
  const out: ThresholdOutcome[] = [];
  for (const key of Object.keys(thresholds)) {
    const sel = parseSelector(key);
    const picked = select(samples, sel);
    const type = picked[0]?.type ?? samples.find((s) => s.metric === sel.metric)?.type ?? null;
    for (const spec of thresholds[key]!) {
      const expression = typeof spec === 'string' ? spec : spec.threshold;
      const e = parseExpression(expression);
      if (type === null || picked.length === 0) {
        out.push({ key, expression, ok: true, evaluated: false, values: {}, type });
        continue;
      }
      if (!ALLOWED[type](e.agg)) throw new Error(`k6 double: ${e.agg} is not an aggregation of ${type} metric ${key}`);
      const values = aggregate(type, picked, duration_ms, e.pct === null ? [] : [e.pct]);
      out.push({ key, expression, ok: compare(values[e.agg]!, e.op, e.value), evaluated: true, values, type });
    }
  }
  return out;
}
