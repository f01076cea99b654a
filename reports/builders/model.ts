// The report model every builder returns: a title and sections of blocks (facts, tables, charts, lists,
// code). Builders stay pure and synchronous; html.ts renders the model (and charts.ts its charts) to a page.
import type { TopLevelSpec } from 'vega-lite';

export type Tone = 'pass' | 'fail' | 'warn' | 'info' | 'muted';

/** A table cell or fact value: plain text, or text with a tone (a coloured pill) and/or monospace. */
export type Cell = string | number | null | undefined | { text: string; tone?: Tone; mono?: boolean; title?: string };

export type Block =
  | { type: 'facts'; items: Array<{ label: string; value: Cell }> }
  | { type: 'table'; caption?: string; columns: string[]; rows: Cell[][]; numeric?: number[]; empty?: string }
  | { type: 'chart'; title?: string; caption?: string; spec: TopLevelSpec }
  | { type: 'list'; ordered: boolean; items: string[]; mono?: boolean; caption?: string }
  | { type: 'code'; label?: string; text: string }
  | { type: 'note'; text: string; tone?: Tone }
  | { type: 'details'; summary: string; blocks: Block[] };

export interface Section {
  id?: string;
  heading: string;
  tone?: Tone;
  /** Short text beside the heading (e.g. "2 of 3 passed"). */
  aside?: string;
  blocks: Block[];
  subsections?: Section[];
}

export interface ReportModel {
  kind: string;
  title: string;
  subtitle?: string;
  /** The headline verdict shown as a big badge. */
  verdict?: { text: string; tone: Tone };
  /** A table of contents row per entry (links to section ids). */
  toc?: Array<{ id: string; label: string; tone?: Tone }>;
  sections: Section[];
}

export const pill = (text: string, tone: Tone): Cell => ({ text, tone });
export const mono = (text: string): Cell => ({ text, mono: true });
export const okCell = (ok: boolean | undefined, yes = 'pass', no = 'FAIL'): Cell =>
  ok === undefined ? pill('n/a', 'muted') : ok ? pill(yes, 'pass') : pill(no, 'fail');

const num = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const num0 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** A number for a person: thousands separators, at most 2 decimals; '–' for missing. */
export function fmt(n: number | undefined | null, digits?: 0): string {
  if (n === undefined || n === null || !Number.isFinite(n)) return '–';
  return digits === 0 ? num0.format(n) : num.format(n);
}

export const pct = (share: number | undefined): string =>
  share === undefined || !Number.isFinite(share) ? '–' : `${num.format(share * 100)}%`;

/** Sim or wall duration in the largest unit that keeps it readable. */
export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '–';
  const a = Math.abs(ms);
  if (a < 1_000) return `${num.format(ms)} ms`;
  if (a < 120_000) return `${num.format(ms / 1_000)} s`;
  if (a < 7_200_000) return `${num.format(ms / 60_000)} min`;
  return `${num.format(ms / 3_600_000)} h`;
}

/** Any input value as short readable text (JSON for objects), for tables built from untrusted input. */
export function show(v: unknown, max = 400): string {
  if (v === undefined) return '–';
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

export const slug = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60) || 'x';
