// Report entry points: buildReport(input) dispatches on `kind` (or recognizes a k6 summary) to a builder and
// renders self-contained HTML; writeReport(dir|file) writes report.html beside report.json and returns its path.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { buildBench, buildBenchHistory, type BenchRun } from './builders/bench.ts';
import { renderHtml } from './builders/html.ts';
import { isK6Summary } from './builders/k6-summary.ts';
import { buildLoad } from './builders/load.ts';
import type { ReportModel } from './builders/model.ts';
import { buildScenarioBatch, buildScenarioRun } from './builders/scenario.ts';
import { buildSoak } from './builders/soak.ts';
import { buildVerify } from './builders/verify.ts';
import { outputDir, reportsRoot, writeReportJson } from './output.ts';
import type { BenchHistory, BenchResult } from './types.ts';

export type { ReportModel };
export const REPORT_KINDS = ['scenario', 'scenario-batch', 'verify', 'bench', 'bench-history', 'soak', 'k6-summary'] as const;

/** Input that cannot become a report: unreadable, not JSON, or of no known kind. The CLI exits 2 on it. */
export class ReportInputError extends Error {
  override name = 'ReportInputError';
}

export interface BuildOptions {
  /** A name for reports whose input carries none (a k6 summary's file name). */
  name?: string;
  /** Earlier bench runs to compare a bench result with. */
  history?: BenchRun[];
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The report kind of a parsed input, or undefined when it is none we know. */
export function reportKind(input: unknown): (typeof REPORT_KINDS)[number] | undefined {
  if (isObj(input) && typeof input.kind === 'string')
    return (REPORT_KINDS as readonly string[]).includes(input.kind) && input.kind !== 'k6-summary'
      ? (input.kind as (typeof REPORT_KINDS)[number])
      : undefined;
  return isK6Summary(input) ? 'k6-summary' : undefined;
}

/** The report model for an input (exposed for tests and for callers that want the figures, not the page). */
export function buildModel(input: unknown, opts: BuildOptions = {}): ReportModel {
  const kind = reportKind(input);
  const data = input as Record<string, unknown>;
  switch (kind) {
    case 'scenario':
      return buildScenarioRun(data);
    case 'scenario-batch':
      return buildScenarioBatch(data);
    case 'verify':
      return buildVerify(data);
    case 'bench':
      return buildBench(data as Partial<BenchResult>, opts.history ?? []);
    case 'bench-history':
      return buildBenchHistory(
        Array.isArray(data.runs)
          ? (data.runs as BenchRun[]).filter(isObj).map((r) => ({
              label: String(r.label ?? ''),
              source: typeof r.source === 'string' ? r.source : undefined,
              result: isObj(r.result) ? r.result : {},
            }))
          : [],
      );
    case 'soak':
      return buildSoak(data);
    case 'k6-summary':
      return buildLoad(input, { name: opts.name });
    default: {
      const got = isObj(input) && 'kind' in input ? `kind ${JSON.stringify(input.kind)}` : Array.isArray(input) ? 'an array' : typeof input;
      throw new ReportInputError(
        `not a report input (${got}); expected kind ${REPORT_KINDS.filter((k) => k !== 'k6-summary').join(' | ')} or a k6 handleSummary JSON`,
      );
    }
  }
}

/**
 * Builds the self-contained HTML report for a parsed input; `json` is what belongs in report.json.
 * @example const { html } = await buildReport(JSON.parse(readFileSync('report.json', 'utf8')));
 */
export async function buildReport(
  input: unknown,
  opts: BuildOptions = {},
): Promise<{ html: string; json: unknown; kind: string; title: string }> {
  const model = buildModel(input, opts);
  return { html: await renderHtml(model), json: input, kind: model.kind, title: model.title };
}

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ReportInputError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ReportInputError(`${path} is not JSON: ${(err as Error).message}`);
  }
}

export interface WriteOptions {
  /** Where a raw file's new output folder goes (default reportsRoot(): reports/out under the working directory, or SWAPSIM_REPORTS_DIR). */
  root?: string;
  /** Compare a bench result with earlier bench runs found beside its folder (default true). */
  history?: boolean;
}

/**
 * Writes report.html for a run folder (its report.json) or a file: a folder's report.json gets the page
 * beside it; any other JSON file (a k6 summary, a copied result) gets a new output folder holding a copy as
 * report.json. Returns the report.html path. Throws ReportInputError on unreadable or unknown input.
 * @example const path = await writeReport(dir); console.log(`report: ${path}`);
 */
export async function writeReport(dirOrFile: string, opts: WriteOptions = {}): Promise<string> {
  const target = resolve(dirOrFile);
  if (!existsSync(target)) throw new ReportInputError(`no such file or folder: ${dirOrFile}`);
  const isDir = statSync(target).isDirectory();
  const jsonPath = isDir ? join(target, 'report.json') : target;
  if (isDir && !existsSync(jsonPath)) throw new ReportInputError(`${dirOrFile} holds no report.json`);
  const input = readJson(jsonPath);
  const kind = reportKind(input);
  const name = basename(jsonPath, extname(jsonPath));
  let dir = dirname(jsonPath);
  if (basename(jsonPath) !== 'report.json') {
    if (!kind) buildModel(input); // throws the clear error before a folder is made
    dir = outputDir(`${kind === 'k6-summary' ? 'load' : kind}-${name}`, opts.root);
    writeReportJson(dir, input);
  }
  const history = kind === 'bench' && opts.history !== false ? earlierBenchRuns(dir) : [];
  const { html } = await buildReport(input, { name, history });
  const out = join(dir, 'report.html');
  writeFileSync(out, html);
  return out;
}

/** Bench report.json files in the output folders of `root`, oldest first (folders are named by timestamp). */
export function findBenchRuns(root = reportsRoot()): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(root, d.name, 'report.json'))
    .filter((p) => existsSync(p) && safeKind(p) === 'bench')
    .sort();
}

const safeKind = (path: string): string | undefined => {
  try {
    return reportKind(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return undefined;
  }
};

const benchRun = (path: string): BenchRun => {
  const result = readJson(path) as BenchResult;
  if (reportKind(result) !== 'bench')
    throw new ReportInputError(`${path} is not a bench result (kind ${JSON.stringify((result as { kind?: unknown })?.kind)})`);
  return { label: String(result.started_at ?? basename(dirname(path))), source: path, result };
};

/** Up to `max` bench runs written before the one in `dir`, from the folders beside it. */
function earlierBenchRuns(dir: string, max = 9): BenchRun[] {
  const mine = join(dir, 'report.json');
  return findBenchRuns(dirname(dir))
    .filter((p) => p < mine)
    .slice(-max)
    .map(benchRun);
}

/**
 * Writes a bench-history report from the given BenchResult files (or every bench run under the reports
 * folder) into a new output folder; returns the report.html path.
 * @example const path = await writeBenchHistory(); // all of reports/out/*\/report.json of kind bench
 */
export async function writeBenchHistory(files: string[] = [], opts: WriteOptions = {}): Promise<string> {
  const paths = files.length
    ? files.map((f) => (existsSync(f) && statSync(f).isDirectory() ? join(f, 'report.json') : f))
    : findBenchRuns(opts.root);
  if (paths.length === 0)
    throw new ReportInputError(
      `no bench results found${files.length ? '' : ` under ${opts.root ?? reportsRoot()}`}; run npm run bench first`,
    );
  const runs = paths.map((p) => benchRun(resolve(p))).sort((a, b) => a.label.localeCompare(b.label));
  const history: BenchHistory = { kind: 'bench-history', runs: runs as BenchHistory['runs'] };
  const dir = outputDir('bench-history', opts.root);
  writeReportJson(dir, history);
  const { html } = await buildReport(history);
  const out = join(dir, 'report.html');
  writeFileSync(out, html);
  return out;
}
