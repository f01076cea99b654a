// Where run output goes: `reports/out/<timestamp>-<name>/` under the caller's working directory (git-ignored
// here), one folder per run, with the run's report.json beside the report.html the builders make from it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * SWAPSIM_REPORTS_DIR, else `reports/out` under the working directory: an installed package writes into the
 * project that runs it, never into node_modules/swapsim (in this repository the two are the same folder).
 */
export function reportsRoot(): string {
  return process.env.SWAPSIM_REPORTS_DIR ?? resolve(process.cwd(), 'reports', 'out');
}

/** A fresh output folder under `root` (default reportsRoot()). */
export function outputDir(name: string, root = reportsRoot(), now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 60);
  const dir = resolve(root, `${stamp}-${safe}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Writes `report.json` (pretty, stable key order as given) into `dir`; returns its path. */
export function writeReportJson(dir: string, data: unknown): string {
  const path = resolve(dir, 'report.json');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(data, null, 2)}\n`);
  return path;
}
