// The swimlane timeline shared by scenario and verify reports: one lane per entity over sim time, each
// state a coloured segment, events/deliveries/faults/expectations as markers, faults also as a dashed rule.
import type { TopLevelSpec } from 'vega-lite';
import type { TimelineEntry } from '../types.ts';
import { COLORS } from './theme.ts';
import { type Block, type Cell, duration, fmt, okCell, pill } from './model.ts';

/** Most lanes drawn in one chart; the rest stay in the table below it. */
const MAX_LANES = 40;
/** Most rows of the full timeline table: a webhook retry storm must not make a page nobody can open. */
const MAX_TABLE_ROWS = 2_000;
const LANE_PX = 26;

const BAD = /fail|flag|expire|reject|orphan|suspend|deactivat|error|timeout|insufficient|dropped/i;
const DONE = /settled|verified|confirmed|claimed|exported|active|success|filled|delivered|completed|ready|passed|reconfirmed|consumed/i;
/** A segment's colour says how the state reads at a glance: in progress, done well, or went wrong. */
const stateTone = (state: string): 'done' | 'bad' | 'progress' => (BAD.test(state) ? 'bad' : DONE.test(state) ? 'done' : 'progress');

const MARKERS = ['event', 'step', 'delivery ok', 'delivery failed', 'fault fired', 'check passed', 'check failed'] as const;
type Marker = (typeof MARKERS)[number];
const MARKER_COLOR: Record<Marker, string> = {
  event: '#57606a',
  step: '#8250df',
  'delivery ok': COLORS.pass,
  'delivery failed': COLORS.fail,
  'fault fired': COLORS.fault,
  'check passed': COLORS.pass,
  'check failed': COLORS.fail,
};
const MARKER_SHAPE: Record<Marker, string> = {
  event: 'circle',
  step: 'square',
  'delivery ok': 'diamond',
  'delivery failed': 'diamond',
  'fault fired': 'triangle-down',
  'check passed': 'circle',
  'check failed': 'cross',
};

type LaneOf = (e: TimelineEntry) => string;
const entityLane = (e: TimelineEntry): string => `${e.entity_type || '?'} ${e.entity_id || ''}`.trim();

/**
 * Which lane an entry goes to: the scenario's steps on top, all webhook delivery attempts in one lane (one
 * per delivery would drown the chart), faults on the lane of the entity they name when there is one.
 */
export function laneResolver(entries: TimelineEntry[]): LaneOf {
  const byId = new Map<string, string>();
  for (const e of entries)
    if ((e.kind === 'transition' || e.kind === 'event') && e.entity_id && !byId.has(e.entity_id)) byId.set(e.entity_id, entityLane(e));
  return (e) => {
    if (e.kind === 'expectation') return 'checks';
    if (e.kind === 'step' && (!e.entity_id || e.entity_type === 'scenario')) return 'steps';
    if (e.kind === 'delivery' || e.entity_type === 'webhook_delivery') return 'webhook deliveries';
    if (e.kind === 'fault') return byId.get(e.entity_id) ?? `fault: ${e.entity_type}`;
    return entityLane(e);
  };
}

function markerOf(e: TimelineEntry): Marker | null {
  switch (e.kind) {
    case 'event':
      return 'event';
    case 'step':
      return 'step';
    case 'delivery':
      return e.ok === false ? 'delivery failed' : 'delivery ok';
    case 'fault':
      return 'fault fired';
    case 'expectation':
      return e.ok === false ? 'check failed' : 'check passed';
    default:
      return null;
  }
}

export interface TimelineOptions {
  start_ms?: number;
  end_ms?: number;
  title?: string;
}

/** Entries with usable fields only: anything else in a recorded file is skipped, never a crash. */
export function cleanEntries(raw: unknown): TimelineEntry[] {
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((e): e is TimelineEntry => typeof e === 'object' && e !== null && Number.isFinite((e as TimelineEntry).sim_ms))
    .map((e) => ({ ...e, entity_type: String(e.entity_type ?? ''), entity_id: String(e.entity_id ?? ''), kind: e.kind }))
    .sort((a, b) => a.sim_ms - b.sim_ms);
}

/**
 * The swimlane chart for a run's timeline, or null when there is nothing to draw. The x axis is the order of
 * distinct sim times (each one a column, labelled with its sim time): a scenario waits seconds for
 * confirmations and then does its interesting work in milliseconds, which a linear time axis would crush.
 */
export function timelineChart(entries: TimelineEntry[], opts: TimelineOptions = {}): Extract<Block, { type: 'chart' }> | null {
  if (entries.length === 0) return null;
  const start = Math.min(opts.start_ms ?? entries[0].sim_ms, entries[0].sim_ms);
  const end = Math.max(opts.end_ms ?? 0, entries[entries.length - 1].sim_ms);
  const laneOf = laneResolver(entries);
  const all = laneOrder(entries, laneOf);
  const lanes = all.slice(0, MAX_LANES);
  const inLane = new Set(lanes);
  const merged = mergeSame(segmentsOf(entries, end, laneOf)).filter((s) => inLane.has(s.lane));
  // Columns only where something visible happens: a self-transition adds no column.
  const visible = [
    ...merged.map((s) => s.from_ms),
    ...entries.filter((e) => e.kind !== 'transition' && inLane.has(laneOf(e))).map((e) => e.sim_ms),
  ];
  const times = [...new Set([start, ...visible, end])].sort((p, q) => p - q);
  const col = new Map(times.map((ms, i) => [ms, i]));
  const pos = (ms: number): number => col.get(ms) ?? 0;
  // One tail column past the end, so the state an entity ends in (often the point of the run) has room.
  const tail = times.length;
  const px_per_col = WIDTH_PX / tail;
  const segments = merged.map((s) => ({ ...s, p0: pos(s.from_ms), p1: s.to_ms >= end ? tail : pos(s.to_ms) }));
  // A label only where its segment has room for it: overlapping labels are worse than none (the table has all).
  const labels = segments.map((s) => ({ ...s, room_px: (s.p1 - s.p0) * px_per_col - 6 })).filter((s) => s.room_px >= 26);
  const markers = entries.flatMap((e) => {
    const m = markerOf(e);
    const lane = laneOf(e);
    return m && inLane.has(lane) ? [{ lane, p: pos(e.sim_ms), marker: m }] : [];
  });
  const faults = entries.filter((e) => e.kind === 'fault').map((e) => ({ p: pos(e.sim_ms) }));
  const ticks = tickColumns(times.length);
  const labelMap = `{${ticks.map((i) => `${i}: '${offsetLabel(times[i] - start)}'`).join(', ')}}[datum.value]`;
  const x = {
    scale: { domain: [0, tail], nice: false, zero: true },
    axis: {
      title: 'sim time from start (one column per distinct time, in order)',
      grid: true,
      values: ticks,
      labelExpr: labelMap,
      labelOverlap: true,
    },
  };
  const y = {
    field: 'lane',
    type: 'nominal' as const,
    sort: lanes,
    scale: { domain: lanes, paddingInner: 0.25 },
    axis: { title: null, labelLimit: 230, labelFontSize: 11 },
  };
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: WIDTH_PX,
    height: Math.max(60, lanes.length * LANE_PX),
    resolve: { scale: { color: 'independent', shape: 'independent' } },
    layer: [
      {
        data: { values: faults },
        mark: { type: 'rule', strokeDash: [4, 3], color: COLORS.fault, strokeWidth: 1.4, opacity: 0.8 },
        encoding: { x: { field: 'p', type: 'quantitative', ...x } },
      },
      {
        data: { values: segments },
        mark: { type: 'bar', cornerRadius: 3, height: { band: 0.72 } },
        encoding: {
          x: { field: 'p0', type: 'quantitative', ...x },
          x2: { field: 'p1' },
          y,
          color: {
            field: 'tone',
            type: 'nominal',
            title: 'state',
            scale: { domain: ['progress', 'done', 'bad'], range: ['#b6d4fe', '#a6e3b4', '#ffb8b3'] },
            legend: { title: 'state', labelExpr: "{progress: 'in progress', done: 'done / ok', bad: 'failed / flagged'}[datum.label]" },
          },
        },
      },
      {
        data: { values: labels },
        mark: {
          type: 'text',
          align: 'left',
          baseline: 'middle',
          dx: 5,
          fontSize: 10.5,
          color: COLORS.ink,
          limit: { expr: 'datum.room_px' },
        },
        encoding: { x: { field: 'p0', type: 'quantitative', ...x }, y, text: { field: 'state' } },
      },
      {
        data: { values: markers },
        mark: { type: 'point', filled: true, size: 64, stroke: 'white', strokeWidth: 1, opacity: 1 },
        encoding: {
          x: { field: 'p', type: 'quantitative', ...x },
          y,
          color: {
            field: 'marker',
            type: 'nominal',
            title: 'marker',
            scale: { domain: [...MARKERS], range: MARKERS.map((m) => MARKER_COLOR[m]) },
            legend: { labelLimit: 200 },
          },
          shape: {
            field: 'marker',
            type: 'nominal',
            title: 'marker',
            scale: { domain: [...MARKERS], range: MARKERS.map((m) => MARKER_SHAPE[m]) },
          },
        },
      },
    ],
  } as unknown as TopLevelSpec;
  const hidden = all.length - lanes.length;
  const caption = `${lanes.length} lane${lanes.length === 1 ? '' : 's'}${hidden > 0 ? ` (${hidden} more in the table)` : ''} over ${duration(end - start)} of sim time; coloured segments are states (labelled with the state entered), dashed orange lines are injected faults.`;
  return { type: 'chart', title: opts.title ?? 'Timeline', caption, spec };
}

const WIDTH_PX = 740;

/** About ten evenly spread columns to label, always the first and the last. */
function tickColumns(n: number): number[] {
  if (n <= 1) return [0];
  const step = Math.max(1, Math.ceil((n - 1) / 10));
  const out: number[] = [];
  for (let i = 0; i < n - 1; i += step) out.push(i);
  if (n - 1 - out[out.length - 1] < step / 2 && out.length > 1) out.pop();
  return [...out, n - 1];
}

/** `+12.5s`: short, no quotes or backslashes (it is spliced into a vega expression). */
function offsetLabel(ms: number): string {
  if (ms < 1_000) return `+${Math.round(ms)}ms`;
  if (ms < 120_000) return `+${(ms / 1_000).toFixed(1)}s`;
  if (ms < 7_200_000) return `+${(ms / 60_000).toFixed(1)}min`;
  return `+${(ms / 3_600_000).toFixed(1)}h`;
}

/** A self-transition (confirmations counted in context) is the same state: one segment, not many. */
function mergeSame(segs: Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const s of segs) {
    const prev = out[out.length - 1];
    if (prev && prev.lane === s.lane && prev.state === s.state && prev.to_ms === s.from_ms) prev.to_ms = s.to_ms;
    else out.push({ ...s });
  }
  return out;
}

function laneOrder(entries: TimelineEntry[], laneOf: LaneOf): string[] {
  const seen: string[] = [];
  const set = new Set<string>();
  for (const e of entries) {
    const l = laneOf(e);
    if (!set.has(l)) {
      set.add(l);
      seen.push(l);
    }
  }
  // Steps first, checks last: the script on top, the verdicts at the bottom.
  const last = ['webhook deliveries', 'checks'];
  return [
    ...seen.filter((l) => l === 'steps'),
    ...seen.filter((l) => l !== 'steps' && !last.includes(l)),
    ...last.filter((l) => set.has(l)),
  ];
}

interface Segment {
  lane: string;
  state: string;
  tone: string;
  from_ms: number;
  to_ms: number;
}
function segmentsOf(entries: TimelineEntry[], end_ms: number, laneOf: LaneOf): Segment[] {
  const byLane = new Map<string, TimelineEntry[]>();
  for (const e of entries) {
    if (e.kind !== 'transition' || typeof e.to !== 'string') continue;
    const l = laneOf(e);
    byLane.set(l, [...(byLane.get(l) ?? []), e]);
  }
  const out: Segment[] = [];
  for (const [lane, ts] of byLane) {
    ts.forEach((e, i) => {
      const next = ts[i + 1]?.sim_ms ?? end_ms;
      out.push({ lane, state: e.to!, tone: stateTone(e.to!), from_ms: e.sim_ms, to_ms: Math.max(next, e.sim_ms) });
    });
  }
  return out;
}

/** Every entry as a row: the exact record behind the picture. */
export function timelineTable(entries: TimelineEntry[], start_ms = entries[0]?.sim_ms ?? 0): Extract<Block, { type: 'table' }> {
  const shown = entries.slice(0, MAX_TABLE_ROWS);
  const rows: Cell[][] = shown.map((e) => [
    fmt(e.sim_ms - start_ms, 0),
    `${e.entity_type} ${e.entity_id}`.trim(),
    kindCell(e),
    e.kind === 'transition' ? `${e.from ?? '∅'} → ${e.to ?? '?'}` : (e.event_type ?? ''),
    e.detail ?? '',
    e.ok === undefined ? null : okCell(e.ok),
  ]);
  const caption =
    shown.length < entries.length
      ? `First ${fmt(shown.length, 0)} of ${fmt(entries.length, 0)} entries; all of them are in report.json.`
      : undefined;
  return { type: 'table', caption, columns: ['+sim ms', 'entity', 'kind', 'what', 'detail', 'ok'], rows, numeric: [0] };
}

const kindCell = (e: TimelineEntry): Cell =>
  e.kind === 'fault' ? pill('fault', 'warn') : e.kind === 'expectation' ? pill('check', e.ok === false ? 'fail' : 'pass') : e.kind;

/** The faults that fired, from a timeline. */
export function faultsTable(entries: TimelineEntry[], start_ms = entries[0]?.sim_ms ?? 0): Extract<Block, { type: 'table' }> {
  const rows = entries
    .filter((e) => e.kind === 'fault')
    .map((e): Cell[] => [duration(e.sim_ms - start_ms), `${e.entity_type} ${e.entity_id}`.trim(), e.detail ?? e.event_type ?? '']);
  return { type: 'table', columns: ['at', 'target', 'fault fired'], rows, numeric: [0], empty: 'No injected fault fired.' };
}
