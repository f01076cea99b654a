// Soak report (`kind: soak`, from scripts/soak.ts): the model properties run many times. A table of every
// property, the runs-over-time chart, and per property its figures and, when it failed, fast-check's seed,
// path, shrunk counterexample, the error it threw and the command that replays it.
import type { TopLevelSpec } from 'vega-lite';
import type { SoakFailure, SoakProperty, SoakResult } from '../types.ts';
import { type Block, type Cell, duration, fmt, mono, okCell, pill, type ReportModel, type Section, show, slug } from './model.ts';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]).filter(isObj) : []);
const n = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown, d = '–'): string => (typeof v === 'string' ? v : v === undefined || v === null ? d : show(v));

/** A property failed when it says so, or when it reached no verdict (an error instead of a result). */
const failedProp = (p: Partial<SoakProperty>): boolean => p.passed !== true;

export function buildSoak(input: Partial<SoakResult>): ReportModel {
  const props = arr<Partial<SoakProperty>>(input.properties);
  const failed = props.filter(failedProp).length;
  const sections: Section[] = [overview(input, props, failed), ...props.map(propertySection)];
  return {
    kind: 'soak',
    title: `Property soak: ${props.map((p) => str(p.name, '?')).join(', ') || 'no properties'}`,
    subtitle: `seed ${str(input.seed)} · ${fmt(n(input.runs_requested), 0)} runs each · started ${str(input.started_at)}`,
    verdict: failed
      ? { text: `${failed} FAILED`, tone: 'fail' }
      : props.length
        ? { text: 'PASSED', tone: 'pass' }
        : { text: 'NOTHING RAN', tone: 'warn' },
    toc: sections.map((s) => ({ id: s.id!, label: s.heading, tone: s.tone })),
    sections,
  };
}

function overview(r: Partial<SoakResult>, props: Array<Partial<SoakProperty>>, failed: number): Section {
  const blocks: Block[] = [
    {
      type: 'facts',
      items: [
        { label: 'started', value: str(r.started_at) },
        { label: 'command', value: mono(str(r.command)) },
        { label: 'seed', value: mono(str(r.seed)) },
        { label: 'runs per property', value: fmt(n(r.runs_requested), 0) },
        { label: 'passed', value: pill(fmt(props.length - failed, 0), 'pass') },
        { label: 'failed', value: pill(fmt(failed, 0), failed ? 'fail' : 'muted') },
        { label: 'wall time', value: duration(n(r.wall_ms)) },
        { label: 'machine', value: `${fmt(n(r.machine?.cpus), 0)} cpus, node ${str(r.machine?.node, '?')}` },
      ],
    },
  ];
  const chart = progressChart(props);
  if (chart) blocks.push(chart);
  blocks.push(propertiesTable(props));
  return {
    id: 'overview',
    heading: 'Overview',
    tone: failed ? 'fail' : props.length ? 'pass' : undefined,
    aside: `${props.length - failed} of ${props.length} properties passed`,
    blocks,
  };
}

function propertiesTable(props: Array<Partial<SoakProperty>>): Block {
  const rows = props.map((p): Cell[] => [
    str(p.name),
    okCell(!failedProp(p), 'passed', p.error && !arr(p.failures).length ? 'NO VERDICT' : 'FAILED'),
    `${fmt(n(p.runs), 0)} / ${fmt(n(p.runs_requested), 0)}`,
    mono(str(p.seed)),
    duration(n(p.wall_ms)),
    fmt(n(p.runs_per_s)),
    arr(p.failures).length,
  ]);
  return {
    type: 'table',
    columns: ['property', 'result', 'runs', 'seed', 'wall time', 'runs/s', 'failures'],
    rows,
    numeric: [2, 4, 5, 6],
    empty: 'No property ran.',
  };
}

/** Runs done over wall time, one line per property; absent when no samples were recorded. */
function progressChart(props: Array<Partial<SoakProperty>>): Block | undefined {
  const values = props.flatMap((p) =>
    arr<{ elapsed_ms: unknown; runs: unknown }>(p.samples)
      .map((s) => ({ property: str(p.name, '?'), elapsed_s: (n(s.elapsed_ms) ?? NaN) / 1000, runs: n(s.runs) }))
      .filter((s) => Number.isFinite(s.elapsed_s) && s.runs !== undefined),
  );
  if (values.length < 2) return undefined;
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values },
    width: 760,
    height: 220,
    layer: [
      {
        mark: { type: 'line', strokeWidth: 2, interpolate: 'monotone' },
        encoding: {
          x: { field: 'elapsed_s', type: 'quantitative', title: 'wall time (s)' },
          y: { field: 'runs', type: 'quantitative', title: 'runs done' },
          color: { field: 'property', type: 'nominal', title: 'property' },
        },
      },
      {
        mark: { type: 'point', filled: true, size: 18 },
        encoding: {
          x: { field: 'elapsed_s', type: 'quantitative' },
          y: { field: 'runs', type: 'quantitative' },
          color: { field: 'property', type: 'nominal' },
        },
      },
    ],
  } as unknown as TopLevelSpec;
  return {
    type: 'chart',
    title: 'Runs done over time',
    caption: 'The slope is the run rate; a flat end on a failing property is fast-check shrinking.',
    spec,
  };
}

function propertySection(p: Partial<SoakProperty>, i: number): Section {
  const failures = arr<Partial<SoakFailure>>(p.failures);
  const bad = failedProp(p);
  const blocks: Block[] = [
    {
      type: 'table',
      columns: ['property', 'test file', 'runs requested', 'runs done', 'seed', 'result', 'wall time', 'runs/s'],
      numeric: [2, 3, 6, 7],
      rows: [
        [
          str(p.name),
          mono(str(p.test_file)),
          fmt(n(p.runs_requested), 0),
          fmt(n(p.runs), 0),
          mono(str(p.seed)),
          okCell(!bad, 'passed', 'FAILED'),
          duration(n(p.wall_ms)),
          fmt(n(p.runs_per_s)),
        ],
      ],
    },
  ];
  if (p.error) blocks.push({ type: 'note', tone: 'fail', text: `No verdict from the test: ${str(p.error)}` });
  for (const f of failures) blocks.push(...failureBlocks(f));
  if (bad && !failures.length && !p.error)
    blocks.push({
      type: 'note',
      tone: 'warn',
      text: 'Marked failed, but no fast-check failure was recorded; see vitest.log beside report.json.',
    });
  return {
    id: `property-${slug(str(p.name, String(i + 1)))}`,
    heading: `Property ${str(p.name, String(i + 1))}`,
    tone: bad ? 'fail' : 'pass',
    aside: bad ? 'failed' : `${fmt(n(p.runs), 0)} runs passed`,
    blocks,
  };
}

function failureBlocks(f: Partial<SoakFailure>): Block[] {
  const blocks: Block[] = [
    {
      type: 'facts',
      items: [
        { label: 'seed', value: mono(str(f.seed)) },
        { label: 'path', value: mono(str(f.path)) },
        { label: 'replayPath', value: mono(str(f.replay_path)) },
        { label: 'failed after', value: f.after_runs === undefined ? '–' : `${fmt(n(f.after_runs), 0)} runs` },
        { label: 'shrunk', value: f.shrinks === undefined ? '–' : `${fmt(n(f.shrinks), 0)} times` },
      ],
    },
    { type: 'code', label: 'Counterexample (the shrunk command list, as fast-check printed it)', text: str(f.counterexample) },
  ];
  if (f.error) blocks.push({ type: 'code', label: 'What the shrunk case threw', text: str(f.error) });
  if (f.replay_command) blocks.push({ type: 'code', label: 'Replay it', text: str(f.replay_command) });
  return blocks;
}
