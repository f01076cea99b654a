// Self-benchmark reports: one `npm run bench` result (throughput, latency, targets, ratios) and the bench
// history (successive results side by side, each case compared with the run before it so a regression shows).
import type { TopLevelSpec } from 'vega-lite';
import type { BenchCase, BenchResult } from '../types.ts';
import { COLORS } from './charts.ts';
import { type Block, type Cell, fmt, mono, okCell, pill, type ReportModel, type Section } from './model.ts';

/** A req/s drop or a p99 rise beyond these fractions, against the previous run, is flagged as a regression. */
const REGRESSION = { rps_drop: 0.1, p99_rise: 0.25 } as const;

export interface BenchRun {
  label: string;
  source?: string;
  result: Partial<BenchResult>;
}

const arr = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]).filter((x) => typeof x === 'object' && x !== null) : []);
const n = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const casesOf = (r: Partial<BenchResult>): BenchCase[] => arr<BenchCase>(r.cases).filter((c) => typeof c.name === 'string');

export function buildBench(r: Partial<BenchResult>, history: BenchRun[] = []): ReportModel {
  const cases = casesOf(r);
  const targets = arr<NonNullable<BenchResult['targets']>[number]>(r.targets);
  const missed = targets.filter((t) => t.ok !== true).length;
  const errors = cases.reduce((s, c) => s + (n(c.errors) ?? 0), 0);
  const sections: Section[] = [
    {
      id: 'overview',
      heading: 'Overview',
      tone: missed ? 'fail' : targets.length ? 'pass' : undefined,
      aside: targets.length ? `${targets.length - missed} of ${targets.length} targets met` : '',
      blocks: [
        {
          type: 'facts',
          items: [
            { label: 'started', value: String(r.started_at ?? '–') },
            { label: 'command', value: mono(String(r.command ?? '–')) },
            { label: 'cpus', value: fmt(n(r.machine?.cpus), 0) },
            { label: 'node', value: String(r.machine?.node ?? '–') },
            { label: 'cases', value: cases.length },
            { label: 'errors', value: pill(fmt(errors, 0), errors ? 'fail' : 'pass') },
          ],
        },
        ...(cases.length ? [throughputChart(cases), latencyChart(cases)] : []),
        casesTable(cases),
      ],
    },
    {
      id: 'targets',
      heading: 'Targets',
      tone: missed ? 'fail' : targets.length ? 'pass' : undefined,
      blocks: [targetsTable(targets), ratiosTable(r.ratios)],
    },
  ];
  const fixed = cases.filter((c) => n(c.offered_rate_per_s) !== undefined);
  if (fixed.length) sections.push({ id: 'fixed-rate', heading: 'Fixed-rate runs', blocks: [fixedRateTable(fixed)] });
  if (history.length) {
    const h = historySections([...history, { label: `${r.started_at ?? 'this run'} (this run)`, result: r }]);
    sections.push({ id: 'history', heading: 'Compared with earlier runs', tone: h.tone, aside: h.aside, blocks: h.blocks });
  }
  return {
    kind: 'bench',
    title: 'Self-benchmark',
    subtitle: `${String(r.started_at ?? '')} · ${cases.length} cases · ${fmt(n(r.machine?.cpus), 0)} cpus · node ${String(r.machine?.node ?? '?')}`,
    verdict: missed
      ? { text: `${missed} TARGET${missed === 1 ? '' : 'S'} MISSED`, tone: 'fail' }
      : targets.length
        ? { text: 'TARGETS MET', tone: 'pass' }
        : { text: 'MEASURED', tone: 'info' },
    toc: sections.map((s) => ({ id: s.id!, label: s.heading, tone: s.tone })),
    sections,
  };
}

/** Bench history: the given runs in order, oldest first. */
export function buildBenchHistory(runs: BenchRun[]): ReportModel {
  const h = historySections(runs);
  const sources: Cell[][] = runs.map((x, i) => [
    i + 1,
    x.label,
    String(x.result.command ?? ''),
    `${fmt(n(x.result.machine?.cpus), 0)} cpus, node ${String(x.result.machine?.node ?? '?')}`,
    x.source ? mono(x.source) : null,
  ]);
  return {
    kind: 'bench-history',
    title: `Bench history: ${runs.length} runs`,
    subtitle: runs.length ? `${runs[0].label} → ${runs[runs.length - 1].label}` : 'no runs',
    verdict: h.regressions
      ? { text: `${h.regressions} REGRESSION${h.regressions === 1 ? '' : 'S'}`, tone: 'fail' }
      : { text: runs.length > 1 ? 'NO REGRESSION' : 'ONE RUN', tone: runs.length > 1 ? 'pass' : 'info' },
    sections: [
      { id: 'history', heading: 'Runs side by side', tone: h.tone, aside: h.aside, blocks: h.blocks },
      {
        id: 'sources',
        heading: 'Runs',
        blocks: [{ type: 'table', columns: ['#', 'started', 'command', 'machine', 'file'], rows: sources, numeric: [0] }],
      },
    ],
  };
}

function historySections(runs: BenchRun[]): { blocks: Block[]; regressions: number; tone: Section['tone']; aside: string } {
  const points = runs.flatMap((run, i) =>
    casesOf(run.result).map((c) => ({
      run: i + 1,
      label: run.label,
      case: c.name,
      rps: n(c.requests_per_s),
      p99: n(c.latency_p99_ms),
      p50: n(c.latency_p50_ms),
    })),
  );
  const names = [...new Set(points.map((p) => p.case))];
  const rows: Cell[][] = [];
  let regressions = 0;
  for (const name of names) {
    const series = points.filter((p) => p.case === name);
    const last = series[series.length - 1];
    const prev = series.length > 1 ? series[series.length - 2] : undefined;
    const rpsDelta = prev?.rps && last.rps !== undefined ? last.rps / prev.rps - 1 : undefined;
    const p99Delta = prev?.p99 && last.p99 !== undefined ? last.p99 / prev.p99 - 1 : undefined;
    const worse = (rpsDelta !== undefined && rpsDelta < -REGRESSION.rps_drop) || (p99Delta !== undefined && p99Delta > REGRESSION.p99_rise);
    if (worse) regressions++;
    rows.push([
      name,
      ...runs.map((_, i) => fmt(points.find((p) => p.case === name && p.run === i + 1)?.rps, 0)),
      delta(rpsDelta, false),
      fmt(last.p99),
      delta(p99Delta, true),
      prev ? okCell(!worse, 'ok', 'REGRESSION') : pill('first run', 'muted'),
    ]);
  }
  const columns = ['case', ...runs.map((_, i) => `req/s #${i + 1}`), 'req/s vs prev', 'p99 ms (last)', 'p99 vs prev', 'verdict'];
  const blocks: Block[] = [];
  if (points.length)
    blocks.push(
      historyChart(points, 'rps', 'requests / s', 'Throughput per run (higher is better)'),
      historyChart(points, 'p99', 'p99 ms', 'p99 latency per run (lower is better)'),
    );
  blocks.push({
    type: 'table',
    columns,
    rows,
    numeric: columns.map((_, i) => i).filter((i) => i > 0 && i < columns.length - 1),
    empty: 'No bench cases.',
  });
  blocks.push({
    type: 'note',
    tone: 'muted',
    text: `A case regresses when its req/s drops more than ${REGRESSION.rps_drop * 100}% or its p99 rises more than ${REGRESSION.p99_rise * 100}% against the previous run. Runs on a busy or different machine are not comparable: check the machine column.`,
  });
  return {
    blocks,
    regressions,
    tone: regressions ? 'fail' : runs.length > 1 ? 'pass' : undefined,
    aside: regressions ? `${regressions} regression${regressions === 1 ? '' : 's'}` : runs.length > 1 ? 'no regression' : '',
  };
}

const delta = (d: number | undefined, lowerIsBetter: boolean): Cell => {
  if (d === undefined) return null;
  const text = `${d >= 0 ? '+' : ''}${fmt(d * 100)}%`;
  const bad = lowerIsBetter ? d > REGRESSION.p99_rise : d < -REGRESSION.rps_drop;
  const good = lowerIsBetter ? d < 0 : d > 0;
  return pill(text, bad ? 'fail' : good ? 'pass' : 'muted');
};

function historyChart(points: Array<Record<string, unknown>>, field: 'rps' | 'p99', title: string, heading: string): Block {
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values: points.filter((p) => p[field] !== undefined) },
    facet: { field: 'case', type: 'nominal', title: null, header: { labelFontWeight: 600, labelFontSize: 12 } },
    columns: 3,
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: 240,
      height: 130,
      layer: [
        {
          mark: { type: 'line', color: COLORS.info, strokeWidth: 2 },
          encoding: {
            x: { field: 'run', type: 'ordinal', title: 'run #', axis: { labelAngle: 0 } },
            y: { field, type: 'quantitative', title, scale: { zero: field === 'rps' } },
          },
        },
        {
          mark: { type: 'point', filled: true, size: 60, color: COLORS.info },
          encoding: { x: { field: 'run', type: 'ordinal' }, y: { field, type: 'quantitative' } },
        },
      ],
    },
  } as unknown as TopLevelSpec;
  return { type: 'chart', title: heading, spec };
}

function throughputChart(cases: BenchCase[]): Block {
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values: cases.map((c) => ({ name: c.name, rps: n(c.requests_per_s) ?? 0 })) },
    width: 640,
    height: { step: 26 },
    layer: [
      {
        mark: { type: 'bar', color: COLORS.info, cornerRadiusEnd: 3 },
        encoding: {
          y: { field: 'name', type: 'nominal', sort: null, title: null, axis: { labelLimit: 260 } },
          x: { field: 'rps', type: 'quantitative', title: 'requests / s' },
        },
      },
      {
        mark: { type: 'text', align: 'left', dx: 4, fontSize: 11 },
        encoding: {
          y: { field: 'name', type: 'nominal', sort: null },
          x: { field: 'rps', type: 'quantitative' },
          text: { field: 'rps', type: 'quantitative', format: ',.0f' },
        },
      },
    ],
  } as unknown as TopLevelSpec;
  return { type: 'chart', title: 'Throughput per case', spec };
}

function latencyChart(cases: BenchCase[]): Block {
  const values = cases
    .flatMap((c) => [
      { name: c.name, stat: 'p50', ms: n(c.latency_p50_ms) },
      { name: c.name, stat: 'p99', ms: n(c.latency_p99_ms) },
    ])
    .filter((v) => v.ms !== undefined);
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values },
    width: 640,
    height: { step: 26 },
    layer: [
      {
        mark: { type: 'rule', color: '#d0d7de', strokeWidth: 2 },
        encoding: {
          y: { field: 'name', type: 'nominal', sort: null, title: null, axis: { labelLimit: 260 } },
          x: { field: 'ms', aggregate: 'min', type: 'quantitative' },
          x2: { field: 'ms', aggregate: 'max' },
        },
      },
      {
        mark: { type: 'point', filled: true, size: 90 },
        encoding: {
          y: { field: 'name', type: 'nominal', sort: null },
          x: { field: 'ms', type: 'quantitative', title: 'latency (ms)' },
          color: {
            field: 'stat',
            type: 'nominal',
            title: 'percentile',
            scale: { domain: ['p50', 'p99'], range: [COLORS.pass, COLORS.fault] },
          },
        },
      },
    ],
  } as unknown as TopLevelSpec;
  return { type: 'chart', title: 'Latency p50 → p99 per case', spec };
}

function casesTable(cases: BenchCase[]): Block {
  const rows = cases.map((c): Cell[] => [
    c.name,
    fmt(n(c.requests_per_s), 0),
    fmt(n(c.latency_p50_ms)),
    fmt(n(c.latency_p99_ms)),
    n(c.errors) ? pill(fmt(n(c.errors), 0), 'fail') : '0',
    fmt(n(c.offered_rate_per_s), 0),
  ]);
  return {
    type: 'table',
    columns: ['case', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'offered /s'],
    rows,
    numeric: [1, 2, 3, 4, 5],
    empty: 'No cases.',
  };
}

function targetsTable(ts: NonNullable<BenchResult['targets']>): Block {
  return {
    type: 'table',
    caption: 'Targets',
    columns: ['result', 'target', 'wanted', 'measured'],
    rows: ts.map((t): Cell[] => [okCell(t.ok === true, 'met', 'MISSED'), String(t.label ?? '?'), String(t.target ?? ''), fmt(n(t.value))]),
    numeric: [3],
    empty: 'No targets recorded.',
  };
}

function ratiosTable(ratios: unknown): Block {
  const rows =
    ratios && typeof ratios === 'object' ? Object.entries(ratios as Record<string, unknown>).map(([k, v]): Cell[] => [k, fmt(n(v))]) : [];
  return { type: 'table', caption: 'Ratios', columns: ['ratio', 'value'], rows, numeric: [1], empty: 'No ratios recorded.' };
}

function fixedRateTable(cases: BenchCase[]): Block {
  const rows = cases.map((c): Cell[] => [
    c.name,
    fmt(n(c.offered_rate_per_s), 0),
    fmt(n(c.requests_per_s), 0),
    fmt(n(c.latency_p99_ms)),
    n(c.errors) ? pill(fmt(n(c.errors), 0), 'fail') : '0',
  ]);
  return { type: 'table', columns: ['case', 'offered /s', 'achieved /s', 'p99 ms', 'errors'], rows, numeric: [1, 2, 3, 4] };
}
