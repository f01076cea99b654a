// Scenario report: one run (`kind: scenario`) or a batch (`kind: scenario-batch`): per run the verdict,
// the steps, the swimlane timeline, the expectations with pass/fail, the faults that fired and conduct.
import type { ExpectationResult, ScenarioBatch, ScenarioRun } from '../types.ts';
import { conductTable } from './conduct.ts';
import { type Block, type Cell, duration, fmt, okCell, pill, type ReportModel, type Section, show, slug } from './model.ts';
import { cleanEntries, faultsTable, timelineChart, timelineTable } from './timeline.ts';

const arr = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);
const str = (v: unknown, d = ''): string => (typeof v === 'string' ? v : v === undefined || v === null ? d : String(v));

export function buildScenarioBatch(input: Partial<ScenarioBatch>): ReportModel {
  const runs = arr<Partial<ScenarioRun>>(input.runs).filter((r) => typeof r === 'object' && r !== null);
  const failed = runs.filter((r) => r.ok !== true);
  const ids = runs.map((r, i) => `run-${i + 1}-${slug(str(r.name, 'run'))}`);
  const overview: Section = {
    id: 'overview',
    heading: 'Overview',
    aside: `${runs.length - failed.length} of ${runs.length} passed`,
    tone: failed.length ? 'fail' : 'pass',
    blocks: [
      {
        type: 'facts',
        items: [
          { label: 'scenarios', value: runs.length },
          { label: 'passed', value: pill(String(input.passed ?? runs.length - failed.length), 'pass') },
          { label: 'failed', value: pill(String(input.failed ?? failed.length), failed.length ? 'fail' : 'muted') },
          { label: 'seed', value: { text: str(input.seed, '–'), mono: true } },
          { label: 'started', value: str(input.started_at, '–') },
        ],
      },
      {
        type: 'table',
        columns: ['scenario', 'result', 'tags', 'sim time', 'wall', 'checks', 'faults', 'why it failed'],
        numeric: [3, 4],
        rows: runs.map(runRow),
      },
    ],
  };
  return {
    kind: 'scenario',
    title: runs.length === 1 ? `Scenario ${str(runs[0].name)}` : `Scenario run: ${runs.length} scenarios`,
    subtitle: `seed ${str(input.seed, '–')} · started ${str(input.started_at, '–')}`,
    verdict: failed.length ? { text: `${failed.length} FAILED`, tone: 'fail' } : { text: 'ALL PASSED', tone: 'pass' },
    toc: runs.map((r, i) => ({ id: ids[i], label: str(r.name, `run ${i + 1}`), tone: r.ok === true ? 'pass' : 'fail' })),
    sections: [overview, ...runs.map((r, i) => runSection(r, ids[i]))],
  };
}

export function buildScenarioRun(run: Partial<ScenarioRun>): ReportModel {
  return buildScenarioBatch({ kind: 'scenario-batch', seed: run.seed, started_at: undefined, runs: [run as ScenarioRun] });
}

function runRow(r: Partial<ScenarioRun>): Cell[] {
  const exps = arr<ExpectationResult>(r.expectations);
  const faults = cleanEntries(r.timeline).filter((e) => e.kind === 'fault').length;
  return [
    str(r.name, '?'),
    okCell(r.ok === true),
    arr<string>(r.tags).join(', '),
    duration(num(r.ended_sim_ms) - num(r.started_sim_ms)),
    duration(num(r.wall_ms)),
    `${exps.filter((e) => e.ok === true).length}/${exps.length}`,
    faults,
    r.ok === true ? '' : show(r.error ?? 'failed', 160),
  ];
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : NaN);

function runSection(r: Partial<ScenarioRun>, id: string): Section {
  const entries = cleanEntries(r.timeline);
  const start = Number.isFinite(num(r.started_sim_ms)) ? num(r.started_sim_ms) : entries[0]?.sim_ms;
  const end = Number.isFinite(num(r.ended_sim_ms)) ? num(r.ended_sim_ms) : undefined;
  const exps = arr<ExpectationResult>(r.expectations).filter((e) => typeof e === 'object' && e !== null);
  const chart = timelineChart(entries, { start_ms: start, end_ms: end, title: 'Timeline (one lane per entity)' });
  const blocks: Block[] = [
    {
      type: 'facts',
      items: [
        { label: 'result', value: okCell(r.ok === true, 'passed', 'FAILED') },
        { label: 'seed', value: { text: str(r.seed, '–'), mono: true } },
        { label: 'sim time', value: duration(num(r.ended_sim_ms) - num(r.started_sim_ms)) },
        { label: 'wall time', value: duration(num(r.wall_ms)) },
        { label: 'timeline entries', value: fmt(entries.length, 0) },
        { label: 'tags', value: arr<string>(r.tags).join(', ') || '–' },
      ],
    },
  ];
  if (r.summary) blocks.push({ type: 'note', text: str(r.summary), tone: 'muted' });
  if (r.ok !== true)
    blocks.push({ type: 'note', text: `Failed: ${show(r.error ?? firstFailed(exps) ?? 'no reason recorded', 2000)}`, tone: 'fail' });
  if (chart) blocks.push(chart);
  else blocks.push({ type: 'note', text: 'No timeline was recorded for this run.', tone: 'muted' });
  blocks.push(expectationsTable(exps, start));
  const subsections: Section[] = [
    {
      heading: 'Steps',
      aside: `${arr(r.steps).length}`,
      blocks: [{ type: 'list', ordered: true, mono: true, items: arr<unknown>(r.steps).map((s) => show(s)) }],
    },
    { heading: 'Injected faults', blocks: [faultsTable(entries, start)] },
    { heading: 'Client conduct', blocks: [conductTable(r.conduct)] },
  ];
  if (entries.length)
    subsections.push({
      heading: 'Timeline entries',
      blocks: [{ type: 'details', summary: `All ${entries.length} entries`, blocks: [timelineTable(entries, start)] }],
    });
  return {
    id,
    heading: str(r.name, 'scenario'),
    tone: r.ok === true ? 'pass' : 'fail',
    aside: r.ok === true ? 'passed' : 'FAILED',
    blocks,
    subsections,
  };
}

const firstFailed = (exps: ExpectationResult[]): string | undefined => exps.find((e) => e.ok !== true)?.label;

function expectationsTable(exps: ExpectationResult[], start_ms?: number): Extract<Block, { type: 'table' }> {
  const details = exps.some((e) => e.detail);
  const rows = exps.map((e): Cell[] => [
    okCell(e.ok === true),
    str(e.label, '?'),
    ...(details ? [show(e.detail ?? '')] : []),
    typeof e.sim_ms === 'number' && start_ms !== undefined && Number.isFinite(start_ms) ? duration(e.sim_ms - start_ms) : null,
  ]);
  const columns = ['result', 'expectation', ...(details ? ['detail'] : []), 'at'];
  return { type: 'table', caption: 'Expectations', columns, rows, numeric: [columns.length - 1], empty: 'No expectations were recorded.' };
}
