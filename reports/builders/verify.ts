// Verify report (`kind: verify`): runs and seeds, a pass/fail strip of every case, and per failing case the
// reason in one line, its shrunk steps, the finding (app vs provider), the delivery log of the events
// involved, the replay command and its timeline; conduct findings.
import type { TopLevelSpec } from 'vega-lite';
import type { VerifyCase, VerifyResult } from '../types.ts';
import { COLORS } from './charts.ts';
import { conductTable } from './conduct.ts';
import { type Block, type Cell, duration, fmt, mono, okCell, pill, type ReportModel, type Section, show } from './model.ts';
import { cleanEntries, timelineChart, timelineTable } from './timeline.ts';

const arr = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]).filter((x) => x !== null && x !== undefined) : []);
const str = (v: unknown, d = ''): string => (typeof v === 'string' ? v : v === undefined || v === null ? d : String(v));

/** A step verify already numbered (`1. setup: …`), without its number: the ordered list numbers it. */
const unnumbered = (step: string): string => step.replace(/^\d+\.\s+/, '');

export function buildVerify(input: Partial<VerifyResult>): ReportModel {
  const cases = arr<Partial<VerifyCase>>(input.cases).filter((c) => typeof c === 'object');
  const failing = cases.filter((c) => c.ok !== true);
  const runs = typeof input.runs === 'number' ? input.runs : cases.length;
  const failed = typeof input.failed === 'number' ? input.failed : failing.length;
  const passed = typeof input.passed === 'number' ? input.passed : runs - failed;
  const conduct = arr(input.conduct);
  const overview: Section = {
    id: 'overview',
    heading: 'Overview',
    tone: failed > 0 ? 'fail' : 'pass',
    aside: `${passed} of ${runs} runs passed`,
    blocks: [
      {
        type: 'facts',
        items: [
          { label: 'app under test', value: mono(str(input.app_url, '–')) },
          { label: 'seed', value: mono(str(input.seed, '–')) },
          { label: 'runs', value: fmt(runs, 0) },
          ...(typeof input.concurrency === 'number' ? [{ label: 'runs at once', value: fmt(input.concurrency, 0) }] : []),
          { label: 'passed', value: pill(fmt(passed, 0), 'pass') },
          { label: 'failed', value: pill(fmt(failed, 0), failed ? 'fail' : 'muted') },
          { label: 'conduct findings', value: pill(fmt(conduct.length, 0), conduct.length ? 'warn' : 'muted') },
          { label: 'wall time', value: duration(input.wall_ms) },
          { label: 'started', value: str(input.started_at, '–') },
        ],
      },
      ...(cases.length ? [stripChart(cases)] : []),
      { type: 'details', summary: `All ${cases.length} cases`, blocks: [casesTable(cases)] },
    ],
  };
  const failSections = failing.map((c, i) => failingCase(c, i));
  return {
    kind: 'verify',
    title: `Verify ${str(input.app_url, 'run')}`,
    subtitle: `seed ${str(input.seed, '–')} · ${fmt(runs, 0)} runs · started ${str(input.started_at, '–')}`,
    verdict:
      failed > 0
        ? { text: `${failed} FAILED`, tone: 'fail' }
        : conduct.length
          ? { text: 'PASSED, CONDUCT FINDINGS', tone: 'warn' }
          : { text: 'PASSED', tone: 'pass' },
    toc: [
      { id: 'overview', label: 'Overview' },
      ...failSections.map((s) => ({ id: s.id!, label: s.heading, tone: 'fail' as const })),
      { id: 'conduct', label: 'Client conduct', tone: conduct.length ? 'warn' : 'pass' },
    ],
    sections: [
      overview,
      ...failSections,
      {
        id: 'conduct',
        heading: 'Client conduct',
        aside: `${conduct.length} finding${conduct.length === 1 ? '' : 's'}`,
        tone: conduct.length ? 'warn' : 'pass',
        blocks: [conductTable(conduct)],
      },
    ],
  };
}

function stripChart(cases: Array<Partial<VerifyCase>>): Block {
  const values = cases.map((c, i) => ({
    run: typeof c.run === 'number' ? c.run : i + 1,
    result: c.ok === true ? 'passed' : 'failed',
    seed: str(c.seed),
  }));
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: 820,
    height: 34,
    data: { values },
    mark: { type: 'tick', thickness: 3, size: 28 },
    encoding: {
      x: { field: 'run', type: 'quantitative', title: 'run', scale: { zero: false, nice: false }, axis: { tickMinStep: 1, format: 'd' } },
      color: {
        field: 'result',
        type: 'nominal',
        title: 'result',
        scale: { domain: ['passed', 'failed'], range: [COLORS.pass, COLORS.fail] },
      },
    },
  } as unknown as TopLevelSpec;
  return { type: 'chart', title: 'Runs', caption: 'One tick per run; red ticks are failing runs, detailed below.', spec };
}

function casesTable(cases: Array<Partial<VerifyCase>>): Block {
  const rows = cases.map((c): Cell[] => [
    fmt(c.run, 0),
    mono(str(c.seed, '–')),
    okCell(c.ok === true),
    arr(c.steps).length,
    c.divergence ? `${show(c.divergence.entity_type)} ${show(c.divergence.entity_id)}.${show(c.divergence.field)}` : null,
  ]);
  return { type: 'table', columns: ['run', 'seed', 'result', 'steps', 'divergence'], rows, numeric: [0, 3] };
}

function failingCase(c: Partial<VerifyCase>, i: number): Section {
  const entries = cleanEntries(c.timeline);
  const shrunk = arr<unknown>(c.shrunk_steps);
  const blocks: Block[] = [
    {
      type: 'facts',
      items: [
        { label: 'run', value: fmt(c.run, 0) },
        { label: 'seed', value: mono(str(c.seed, '–')) },
        { label: 'steps (original)', value: fmt(arr(c.steps).length, 0) },
        { label: 'steps (shrunk)', value: shrunk.length ? fmt(shrunk.length, 0) : '–' },
        ...(c.sim_seed ? [{ label: 'provider seed', value: mono(str(c.sim_seed)) }] : []),
      ],
    },
  ];
  if (c.headline) blocks.unshift({ type: 'note', text: str(c.headline), tone: 'fail' });
  if (c.divergence) blocks.push(divergenceTable(c.divergence));
  else blocks.push({ type: 'note', text: 'No divergence was recorded for this case.', tone: 'muted' });
  if (c.replay_command) blocks.push({ type: 'code', label: 'Replay it', text: str(c.replay_command) });
  blocks.push({
    type: 'list',
    ordered: true,
    mono: true,
    caption: shrunk.length ? 'Shrunk steps (the smallest failing scenario)' : 'Steps (not shrunk)',
    items: (shrunk.length ? shrunk : arr<unknown>(c.steps)).map((s) => unnumbered(show(s))),
  });
  const log = arr<unknown>(c.delivery_log);
  if (log.length)
    blocks.push({
      type: 'list',
      ordered: false,
      mono: true,
      caption: 'Delivery log of the events involved (sim time from the run start)',
      items: log.map((l) => show(l)),
    });
  const chart = timelineChart(entries, { title: 'Timeline of the shrunk case' });
  if (chart) blocks.push(chart, { type: 'details', summary: `All ${entries.length} timeline entries`, blocks: [timelineTable(entries)] });
  return {
    id: `case-${i + 1}-run-${str(c.run, String(i))}`,
    heading: `Failing run ${str(c.run, String(i + 1))}`,
    tone: 'fail',
    aside: `seed ${str(c.seed, '–')}`,
    blocks,
  };
}

function divergenceTable(d: NonNullable<VerifyCase['divergence']>): Block {
  return {
    type: 'table',
    caption: 'First divergence: what the app believes vs what the provider holds',
    columns: ['entity', 'field', 'app says', 'provider says'],
    rows: [[`${show(d.entity_type)} ${show(d.entity_id)}`, mono(show(d.field)), mono(show(d.app, 2000)), mono(show(d.provider, 2000))]],
  };
}
