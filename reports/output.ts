// Where run output goes: `reports/out/<timestamp>-<name>/` (git-ignored), one folder per run, with the
// run's report.json beside the report.html the builders make from it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPORTS_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), 'out');

/** A fresh output folder; `root` defaults to reports/out (override with SWAPSIM_REPORTS_DIR). */
export function outputDir(name: string, root = process.env.SWAPSIM_REPORTS_DIR ?? REPORTS_ROOT, now = new Date()): string {
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
  writeFileSync(path, JSON.stringify(data, null, 2) + '\n');
  return path;
}
