// The verdict of a split k6 run (--execution-segment, k6-operator's parallelism): reads the limit scripts'
// `<script>-seg-*-summary.json` files of every instance, adds their counts per phase, and judges the
// combined figures as one k6 process would: offered and accepted rate per phase, 429s, errors, drops.
// Usage: node --import tsx load/k6-split/combine.ts load/results/reads-seg-*-summary.json  (exit 1 on FAIL)
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
  limit: number;
  phases: PhaseFigures[];
  checks: Array<{ name: string; ok: boolean; observed: string }>;
  passed: boolean;
}

const rateOf = (metrics: any, name: string): { passes: number; fails: number } => {
  const v = metrics[name]?.values;
  return { passes: v?.passes ?? 0, fails: v?.fails ?? 0 };
};

/** Adds the instances' counts per phase and checks them against the plan every summary carries. */
export function combineSummaries(reports: any[]): Combined {
  if (reports.length === 0) throw new Error('no summaries given');
  const plan = reports[0].plan;
  if (!plan || !Array.isArray(plan.phases)) throw new Error(`${reports[0].script}: no phase plan (not a limit script's summary)`);
  const phases: PhaseFigures[] = plan.phases.map((p: any) => {
    const sum = (f: (m: any) => number) => reports.reduce((a, r) => a + f(r.metrics || {}), 0);
    const rej = (m: any) => rateOf(m, `rl_rejected{scenario:${p.name}}`);
    const requests = sum((m) => rej(m).passes + rej(m).fails);
    const seconds = p.duration_ms / 1000;
    // Every response is a 2xx, a 429 or an error (rl_errors); only the over phase declares rl_accepted.
    const rejected_429 = sum((m) => rej(m).passes);
    const errors = sum((m) => rateOf(m, `rl_errors{scenario:${p.name}}`).passes);
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
  const checks: Combined['checks'] = [];
  const add = (name: string, ok: boolean, observed: string) => checks.push({ name, ok, observed });
  add('setup completed on every instance', reports.every((r) => r.setup_completed === true), reports.map((r) => `${r.segment ?? 'whole'}: ${r.setup_completed}`).join(', '));
  for (const f of phases) {
    const p = plan.phases.find((x: any) => x.name === f.phase);
    const share = f.requests > 0 ? f.rejected_429 / f.requests : 0;
    add(`${f.phase}: no answer but 2xx or 429`, f.errors === 0, `${f.errors}`);
    add(`${f.phase}: dropped <= ${(plan.max_dropped_fraction * 100).toFixed(1)}% of offered`, f.dropped <= Math.floor(plan.max_dropped_fraction * p.per_s * (p.duration_ms / 1000)), `${f.dropped}`);
    if (f.phase === 'under') add('under: no 429', f.rejected_429 === 0, `${f.rejected_429} of ${f.requests}`);
    if (f.phase === 'at') add(`at: 429s <= ${(plan.at_max_rejected * 100).toFixed(1)}%`, share <= plan.at_max_rejected, `${(share * 100).toFixed(2)}%`);
    if (f.phase === 'over') {
      const seconds = p.duration_ms / 1000;
      const lo = ((1 - plan.tolerance) * plan.limit) / p.per_s;
      const hi = Math.min(1, ((1 + plan.tolerance) * plan.limit) / p.per_s + plan.limit / (p.per_s * seconds));
      const frac = f.requests > 0 ? f.accepted_2xx / f.requests : 0;
      add('over: some 429s', f.rejected_429 > 0, `${f.rejected_429} of ${f.requests}`);
      add(`over: accepted fraction in [${lo.toFixed(4)}, ${hi.toFixed(4)}]`, frac >= lo && frac <= hi, `${frac.toFixed(4)} (${f.accepted_per_s.toFixed(2)}/s accepted of ${f.offered_per_s.toFixed(2)}/s offered; limit ${plan.limit}/s)`);
    }
  }
  const envelope = reports.reduce((a, r) => a + (r.metrics?.rl_429_bad_envelope?.values?.count ?? 0), 0);
  const retryAfter = reports.reduce((a, r) => a + (r.metrics?.rl_429_missing_retry_after?.values?.count ?? 0), 0);
  add('every 429 carries the envelope', envelope === 0, `${envelope} without`);
  add('every 429 carries Retry-After (when expected)', retryAfter === 0, `${retryAfter} without`);
  return { script: reports[0].script, instances: reports.length, limit: plan.limit, phases, checks, passed: checks.every((c) => c.ok) };
}

export function formatCombined(c: Combined): string {
  const rows = c.phases.map((f) => `  ${f.phase.padEnd(6)} planned ${f.planned_per_s.toFixed(2)}/s  offered ${f.offered_per_s.toFixed(2)}/s  accepted ${f.accepted_per_s.toFixed(2)}/s  429s ${f.rejected_429}  dropped ${f.dropped}`);
  const checks = c.checks.map((k) => `  ${k.ok ? 'PASS' : 'FAIL'} ${k.name}  (${k.observed})`);
  return [`${c.script}: ${c.instances} instances combined, limit ${c.limit}/s: ${c.passed ? 'PASSED' : 'FAILED'}`, ...rows, ...checks, ''].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error('usage: node --import tsx load/k6-split/combine.ts <script>-seg-*-summary.json ...');
    process.exit(2);
  }
  const combined = combineSummaries(files.map((f) => JSON.parse(readFileSync(f, 'utf8'))));
  process.stdout.write(formatCombined(combined));
  process.exit(combined.passed ? 0 : 1);
}
