// The verdict of a split k6 run (--execution-segment, k6-operator's parallelism): reads every instance's
// `<script>-seg-*-summary.json`, refuses files that are not one run (same script, run id, plan, thresholds
// and start; each segment once, together covering 0 to 1), adds their figures, and re-checks on the sums
// every threshold one k6 process has (the script's `whole_run_thresholds`), for every script.
// Usage: npm run k6:combine -- load/results/reads-seg-*-summary.json  (exit 0 PASSED, 1 FAILED, 2 refused)
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

export interface PhaseFigures {
  phase: string;
  /** Requests sent (one per iteration), all instances. */
  requests: number;
  rejected_429: number;
  accepted_2xx: number;
  errors: number;
  dropped: number;
  offered_per_s: number;
  accepted_per_s: number;
  planned_per_s: number;
}

export interface Combined {
  script: string;
  instances: number;
  run_id: string | null;
  /** A limit script's limit, else null. */
  limit: number | null;
  /** A limit script's per-phase figures (empty for journey scripts). */
  phases: PhaseFigures[];
  checks: Array<{ name: string; ok: boolean; observed: string }>;
  passed: boolean;
}

/** Summaries that are not one run's: the reason, in one line. */
export class RefusedInputs extends Error {}

const isFigure = (expression: string): boolean => /^\s*(count|rate)\s*>=\s*0\s*$/.test(expression);

/** `0:1/2` → [0, 0.5]; k6 also accepts percentages and decimals. */
function segmentBounds(segment: string): [number, number] {
  const num = (t: string): number => {
    const x = t.trim();
    if (/%$/.test(x)) return Number(x.slice(0, -1)) / 100;
    const f = /^(\d+)\/(\d+)$/.exec(x);
    return f ? Number(f[1]) / Number(f[2]) : Number(x);
  };
  const parts = segment.split(':');
  const b: [number, number] = [num(parts[0]!), num(parts[1]!)];
  if (parts.length !== 2 || !b.every((x) => Number.isFinite(x)))
    throw new RefusedInputs(`segment ${JSON.stringify(segment)} is not an execution segment`);
  return b;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Files that do not belong together are refused: each check names what differs. */
export function checkInputs(reports: any[], names: string[] = reports.map((_r, i) => `#${i + 1}`)): void {
  if (reports.length === 0) throw new RefusedInputs('no summaries given');
  const first = reports[0];
  const nameOf = (i: number) => names[i] ?? `#${i + 1}`;
  reports.forEach((r, i) => {
    if (!r || typeof r !== 'object' || typeof r.script !== 'string') throw new RefusedInputs(`${nameOf(i)} is not a swapsim k6 summary`);
    if (r.script !== first.script) throw new RefusedInputs(`${nameOf(i)} is a ${r.script} summary, ${nameOf(0)} a ${first.script} one`);
    if (typeof r.run_id !== 'string')
      throw new RefusedInputs(`${nameOf(i)} names no run id (written by an older script?): cannot tell which run it belongs to`);
    if (r.run_id !== first.run_id) throw new RefusedInputs(`${nameOf(i)} is from run ${r.run_id}, ${nameOf(0)} from run ${first.run_id}`);
    if (!same(r.plan, first.plan)) throw new RefusedInputs(`${nameOf(i)} and ${nameOf(0)} ran different phase plans`);
    if (!same(r.whole_run_thresholds, first.whole_run_thresholds))
      throw new RefusedInputs(`${nameOf(i)} and ${nameOf(0)} have different thresholds`);
  });
  if (reports.length === 1 && first.segment === null) return;
  const seen = new Map<string, number>();
  reports.forEach((r, i) => {
    if (typeof r.segment !== 'string')
      throw new RefusedInputs(`${nameOf(i)} is a whole run, not a segment: combine the segments of one split run`);
    if (seen.has(r.segment)) throw new RefusedInputs(`segment ${r.segment} given twice (${nameOf(seen.get(r.segment)!)} and ${nameOf(i)})`);
    seen.set(r.segment, i);
  });
  const bounds = reports.map((r) => segmentBounds(r.segment)).sort((a, b) => a[0] - b[0]);
  let at = 0;
  for (const [from, to] of bounds) {
    if (Math.abs(from - at) > 1e-9)
      throw new RefusedInputs(
        `the segments ${from < at ? 'overlap' : 'leave a gap'} at ${at} (given: ${reports.map((r) => r.segment).join(', ')})`,
      );
    at = to;
  }
  if (Math.abs(at - 1) > 1e-9)
    throw new RefusedInputs(
      `the segments cover 0 to ${at} only (given: ${reports.map((r) => r.segment).join(', ')}): an instance's summary is missing`,
    );
  const starts = reports.map((r) => (typeof r.start_ms === 'number' ? r.start_ms : null));
  if (starts.some((s) => s === null)) throw new RefusedInputs('a summary names no start time (written by an older script?)');
  if (reports.every((r) => r.start_agreed === true)) {
    if (!starts.every((s) => s === starts[0]))
      throw new RefusedInputs(
        `the instances started at different agreed times (${starts.map((s) => new Date(s!).toISOString()).join(', ')}): not one run`,
      );
  } else if (Math.max(...(starts as number[])) - Math.min(...(starts as number[])) > START_SPREAD_MAX_MS) {
    throw new RefusedInputs(
      `the instances started ${((Math.max(...(starts as number[])) - Math.min(...(starts as number[]))) / 1000).toFixed(0)} s apart (more than ${START_SPREAD_MAX_MS / 1000} s): not one run`,
    );
  }
}

/** Instances without a control plane start as their own setups end: this far apart at most. */
export const START_SPREAD_MAX_MS = 60_000;

/** One metric's figures added over the instances: counts and passes/fails summed; trend statistics the
 *  largest instance's (an upper bound of the combined percentile, so a `<` threshold holds on the sum too). */
export function combinedValues(reports: any[], key: string): { type: string; values: { [stat: string]: number } } | null {
  const found = reports.map((r) => r.metrics?.[key]).filter((m) => m?.values);
  if (found.length === 0) return null;
  const type: string =
    found[0].type ?? (found[0].values.count !== undefined ? 'counter' : found[0].values.passes !== undefined ? 'rate' : 'trend');
  const sum = (stat: string) => found.reduce((a, m) => a + (m.values[stat] ?? 0), 0);
  if (type === 'counter') return { type, values: { count: sum('count') } };
  if (type === 'rate') {
    const passes = sum('passes');
    const fails = sum('fails');
    return { type, values: { passes, fails, rate: passes + fails > 0 ? passes / (passes + fails) : 0 } };
  }
  const values: { [stat: string]: number } = {};
  for (const m of found) for (const stat of Object.keys(m.values)) values[stat] = Math.max(values[stat] ?? -Infinity, m.values[stat]);
  return { type, values };
}

/** A k6 threshold expression (`count==0`, `rate>=0.95`, `p(95)<2000`) on figures; null when it cannot be read. */
export function evaluate(expression: string, values: { [stat: string]: number }): { ok: boolean; observed: number | undefined } | null {
  const m = /^\s*([a-z]+(?:\(\d+(?:\.\d+)?\))?)\s*(<=|>=|===|==|!=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$/.exec(expression);
  if (!m) return null;
  const observed = values[m[1]!];
  if (observed === undefined) return { ok: false, observed };
  const v = Number(m[3]);
  const ops: { [op: string]: (a: number, b: number) => boolean } = {
    '<': (a, b) => a < b,
    '<=': (a, b) => a <= b,
    '>': (a, b) => a > b,
    '>=': (a, b) => a >= b,
    '==': (a, b) => a === b,
    '===': (a, b) => a === b,
    '!=': (a, b) => a !== b,
  };
  return { ok: ops[m[2]!]!(observed, v), observed };
}

const rateOf = (metrics: any, name: string): { passes: number; fails: number } => {
  const v = metrics[name]?.values;
  return { passes: v?.passes ?? 0, fails: v?.fails ?? 0 };
};

/** A limit script's per-phase figures, all instances added (for the table; the verdict is the thresholds'). */
function phaseFigures(reports: any[], plan: any): PhaseFigures[] {
  return plan.phases.map((p: any) => {
    const sum = (f: (m: any) => number) => reports.reduce((a, r) => a + f(r.metrics || {}), 0);
    const rej = (m: any) => rateOf(m, `rl_rejected{scenario:${p.name}}`);
    const errs = (m: any) => rateOf(m, `rl_errors{scenario:${p.name}}`);
    // rl_errors has a sample per response in every phase; rl_rejected is declared for each phase too.
    const requests = sum((m) => errs(m).passes + errs(m).fails);
    const seconds = p.duration_ms / 1000;
    const rejected_429 = sum((m) => rej(m).passes);
    const errors = sum((m) => errs(m).passes);
    const accepted_2xx = requests - rejected_429 - errors;
    return {
      phase: p.name,
      requests,
      rejected_429,
      accepted_2xx,
      errors,
      dropped: sum((m) => m[`dropped_iterations{scenario:${p.name}}`]?.values?.count ?? 0),
      offered_per_s: requests / seconds,
      accepted_per_s: accepted_2xx / seconds,
      planned_per_s: p.per_s,
    };
  });
}

/** The whole run's thresholds: the script's own list, else (older files) every threshold the summaries carry. */
function wholeRunThresholds(reports: any[]): { [metric: string]: string[] } {
  if (reports[0].whole_run_thresholds && typeof reports[0].whole_run_thresholds === 'object') return reports[0].whole_run_thresholds;
  const t: { [metric: string]: string[] } = {};
  for (const r of reports)
    for (const key of Object.keys(r.metrics || {}))
      for (const expr of Object.keys(r.metrics[key].thresholds || {}))
        if (!isFigure(expr)) (t[key] = t[key] || []).indexOf(expr) < 0 && t[key]!.push(expr);
  return t;
}

/** Checks the inputs belong together (else throws RefusedInputs), adds them, and re-checks every threshold. */
export function combineSummaries(reports: any[], names?: string[]): Combined {
  checkInputs(reports, names);
  const plan = reports[0].plan;
  const checks: Combined['checks'] = [];
  const add = (name: string, ok: boolean, observed: string) => checks.push({ name, ok, observed });
  add(
    'setup completed on every instance',
    reports.every((r) => r.setup_completed === true),
    reports.map((r) => `${r.segment ?? 'whole'}: ${r.setup_completed}`).join(', '),
  );
  const thresholds = wholeRunThresholds(reports);
  for (const metric of Object.keys(thresholds).sort()) {
    for (const expr of thresholds[metric]!) {
      if (isFigure(expr)) continue;
      const c = combinedValues(reports, metric);
      // k6 passes a threshold on a metric with no samples; so does this, and says so.
      if (c === null) {
        add(`${metric}: ${expr}`, true, 'no samples on any instance');
        continue;
      }
      const e = evaluate(expr, c.values);
      if (e === null) add(`${metric}: ${expr}`, false, 'expression not understood');
      else add(`${metric}: ${expr}`, e.ok, observedText(metric, c, e.observed));
    }
  }
  return {
    script: reports[0].script,
    instances: reports.length,
    run_id: reports[0].run_id ?? null,
    limit: plan && typeof plan.limit === 'number' ? plan.limit : null,
    phases: plan && Array.isArray(plan.phases) ? phaseFigures(reports, plan) : [],
    checks,
    passed: checks.every((c) => c.ok),
  };
}

function observedText(metric: string, c: { type: string; values: { [stat: string]: number } }, observed: number | undefined): string {
  if (c.type === 'rate') return `${((c.values.rate ?? 0) * 100).toFixed(2)}% (${c.values.passes} of ${c.values.passes! + c.values.fails!})`;
  if (c.type === 'counter') return `count ${c.values.count}`;
  if (observed === undefined) return `not in the summaries (${Object.keys(c.values).join(', ')})`;
  return `${Math.round(observed * 100) / 100} (${metric.startsWith('http_req_duration') || c.type === 'trend' ? "largest instance's" : 'combined'})`;
}

export function formatCombined(c: Combined): string {
  const rows = c.phases.map(
    (f) =>
      `  ${f.phase.padEnd(6)} planned ${f.planned_per_s.toFixed(2)}/s  offered ${f.offered_per_s.toFixed(2)}/s  accepted ${f.accepted_per_s.toFixed(2)}/s  429s ${f.rejected_429}  dropped ${f.dropped}`,
  );
  const checks = c.checks.map((k) => `  ${k.ok ? 'PASS' : 'FAIL'} ${k.name}  (${k.observed})`);
  const failed = c.checks.filter((k) => !k.ok).length;
  const head = `${c.script}: ${c.instances} instances of run ${c.run_id} combined${c.limit === null ? '' : `, limit ${c.limit}/s`}: ${c.passed ? `PASSED, ${c.checks.length}/${c.checks.length} checks passed` : `FAILED, ${failed} of ${c.checks.length} checks failed`}`;
  return [head, ...rows, ...checks, ''].join('\n');
}

/** The command: exit 0 PASSED, 1 FAILED, 2 when the files cannot be read or do not belong together. */
export function main(files: string[]): number {
  if (files.length === 0) {
    process.stderr.write('usage: npm run k6:combine -- <script>-seg-*-summary.json ...\n');
    return 2;
  }
  try {
    const reports = files.map((f) => {
      try {
        return JSON.parse(readFileSync(f, 'utf8'));
      } catch (e) {
        throw new RefusedInputs(`${f}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
      }
    });
    const combined = combineSummaries(reports, files);
    process.stdout.write(formatCombined(combined));
    return combined.passed ? 0 : 1;
  } catch (e) {
    if (!(e instanceof RefusedInputs)) throw e;
    process.stderr.write(`k6:combine: refused: ${e.message}\n`);
    return 2;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exit(main(process.argv.slice(2)));
}
