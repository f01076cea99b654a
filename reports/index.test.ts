// writeReport / writeBenchHistory on real folders: report.html beside a run's report.json, a raw k6 summary
// copied into a new output folder, a bench report compared with earlier bench folders, and the clear errors.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildReport, findBenchRuns, ReportInputError, reportKind, writeBenchHistory, writeReport } from './index.ts';
import { writeReportJson } from './output.ts';
import { assertInert, fixture } from './testing/html.ts';

const fresh = (): string => mkdtempSync(join(tmpdir(), 'swapsim-reports-'));
const runDir = (root: string, name: string, data: unknown): string => {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeReportJson(dir, data);
  return dir;
};

describe('report kinds', () => {
  it('dispatches on kind and recognizes k6 summaries', () => {
    expect(reportKind(fixture('scenario-batch.json'))).toBe('scenario-batch');
    expect(reportKind(fixture('verify-failing.json'))).toBe('verify');
    expect(reportKind(fixture('bench-1.json'))).toBe('bench');
    expect(reportKind(fixture('k6-0.48-reads.json'))).toBe('k6-summary');
    expect(reportKind({ kind: 'k6-summary' })).toBeUndefined();
    expect(reportKind({ kind: 'nope', metrics: { http_reqs: { type: 'counter' } } })).toBeUndefined();
  });

  it('refuses unknown input with a message naming what it got', async () => {
    await expect(buildReport({ kind: 'nope' })).rejects.toThrow(
      /not a report input \(kind "nope"\); expected kind scenario \| scenario-batch/,
    );
    await expect(buildReport([1, 2])).rejects.toThrow(ReportInputError);
    await expect(buildReport(null)).rejects.toThrow(/not a report input \(object\)/);
  });

  it('the inertness check itself trips on active content', () => {
    expect(() => assertInert('<p><img src=x onerror=alert(1)></p>')).toThrow(/active tag/);
    expect(() => assertInert('<svg><a href="https://x">y</a></svg>')).toThrow(/active tag/);
    expect(() => assertInert('<p>&lt;img src=x onerror=alert(1)&gt;</p>')).not.toThrow();
  });
});

describe('writeReport', () => {
  it('writes report.html beside a run folder’s report.json and returns its path', async () => {
    const root = fresh();
    const dir = runDir(root, '20260101-000000-scenario', fixture('scenario-batch.json'));
    const path = await writeReport(dir);
    expect(path).toBe(join(dir, 'report.html'));
    expect(readFileSync(path, 'utf8')).toMatch(/^<!doctype html>[\s\S]*Scenario run: 3 scenarios[\s\S]*<\/html>\n$/);
    // Naming the report.json itself is the same folder.
    expect(await writeReport(join(dir, 'report.json'))).toBe(path);
  });

  it('puts a raw k6 summary into a new output folder with a copy as report.json', async () => {
    const root = fresh();
    const src = join(fresh(), 'writes-summary.json');
    writeFileSync(src, JSON.stringify(fixture('k6-1.x-writes.json')));
    const path = await writeReport(src, { root });
    expect(dirname(path).startsWith(root)).toBe(true);
    expect(basename(dirname(path))).toMatch(/^\d{8}-\d{6}-load-writes-summary$/);
    expect(JSON.parse(readFileSync(join(dirname(path), 'report.json'), 'utf8'))).toEqual(fixture('k6-1.x-writes.json'));
    expect(readFileSync(path, 'utf8')).toContain('THRESHOLDS PASSED');
  });

  it('compares a bench run with the bench runs in earlier folders beside it, not later ones', async () => {
    const root = fresh();
    runDir(root, '20261120-091403-bench', fixture('bench-1.json'));
    runDir(root, '20261121-000000-scenario', fixture('scenario-batch.json'));
    const mine = runDir(root, '20261122-180247-bench', fixture('bench-2.json'));
    runDir(root, '20261123-000000-bench', fixture('bench-recorded-a.json'));
    expect(findBenchRuns(root).map((p) => basename(dirname(p)))).toEqual([
      '20261120-091403-bench',
      '20261122-180247-bench',
      '20261123-000000-bench',
    ]);
    const html = readFileSync(await writeReport(mine), 'utf8');
    expect(html).toContain('Compared with earlier runs');
    expect(html).toContain('req/s #2');
    expect(html).not.toContain('req/s #3');
    expect(readFileSync(await writeReport(mine, { history: false }), 'utf8')).not.toContain('Compared with earlier runs');
  });

  it('fails clearly on a missing path, a folder without report.json, non-JSON and unknown JSON, writing nothing', async () => {
    const root = fresh();
    await expect(writeReport(join(root, 'missing'), { root })).rejects.toThrow(/no such file or folder/);
    mkdirSync(join(root, 'empty'));
    await expect(writeReport(join(root, 'empty'), { root })).rejects.toThrow(/holds no report\.json/);
    writeFileSync(join(root, 'bad.json'), '{oops');
    await expect(writeReport(join(root, 'bad.json'), { root })).rejects.toThrow(/bad\.json is not JSON/);
    writeFileSync(join(root, 'other.json'), '{"hello":1}');
    await expect(writeReport(join(root, 'other.json'), { root })).rejects.toThrow(ReportInputError);
    expect(readdirSync(root).sort()).toEqual(['bad.json', 'empty', 'other.json']);
  });
});

describe('writeBenchHistory', () => {
  it('puts every bench run of the reports folder side by side, oldest first', async () => {
    const root = fresh();
    runDir(root, '20261122-180247-bench', fixture('bench-2.json'));
    runDir(root, '20261120-091403-bench', fixture('bench-1.json'));
    const path = await writeBenchHistory([], { root });
    const history = JSON.parse(readFileSync(join(dirname(path), 'report.json'), 'utf8'));
    expect(history.kind).toBe('bench-history');
    expect(history.runs.map((r: { label: string }) => r.label)).toEqual(['2026-11-20T09:14:03.118Z', '2026-11-22T18:02:47.530Z']);
    expect(readFileSync(path, 'utf8')).toContain('1 REGRESSION');
  });

  it('takes the files given, and refuses a non-bench file or an empty folder', async () => {
    const root = fresh();
    const a = runDir(root, 'a', fixture('bench-recorded-a.json'));
    const b = join(runDir(root, 'b', fixture('bench-recorded-b.json')), 'report.json');
    expect(readFileSync(await writeBenchHistory([a, b], { root }), 'utf8')).toContain('Bench history: 2 runs');
    const v = join(runDir(root, 'v', fixture('verify-failing.json')), 'report.json');
    await expect(writeBenchHistory([v], { root })).rejects.toThrow(/is not a bench result \(kind "verify"\)/);
    await expect(writeBenchHistory([], { root: fresh() })).rejects.toThrow(/no bench results found/);
  });
});
