import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSwapsim } from '../fake-provider/testing/swapsim-cli.ts';

const FIXTURES = new URL('../reports/fixtures/', import.meta.url).pathname;
const ROOT = mkdtempSync(join(tmpdir(), 'swapsim-report-cli-'));

const swapsim = (args: string[]) => runSwapsim(args, { SWAPSIM_REPORTS_DIR: ROOT });

describe('swapsim report', () => {
  it('writes report.html for a run folder and prints its path', async () => {
    const dir = join(ROOT, '20260101-000000-verify');
    mkdirSync(dir);
    copyFileSync(join(FIXTURES, 'verify-failing.json'), join(dir, 'report.json'));
    const { code, out, err } = await swapsim(['report', dir]);
    expect(code, err).toBe(0);
    expect(out).toBe(`${join(dir, 'report.html')}\n`);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('Verify http://127.0.0.1:3000');
  });

  it('writes a k6 summary file into a new folder under the reports root', async () => {
    const { code, out } = await swapsim(['report', join(FIXTURES, 'k6-0.48-reads.json')]);
    expect(code).toBe(0);
    const path = out.trim();
    expect(path).toMatch(new RegExp(`^${ROOT}/\\d{8}-\\d{6}-load-k6-0\\.48-reads/report\\.html$`));
    expect(existsSync(path.replace(/report\.html$/, 'report.json'))).toBe(true);
  });

  it('writes under reports/out in the working directory without SWAPSIM_REPORTS_DIR (not beside its own files)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'swapsim-report-cwd-'));
    const { code, out, err } = await runSwapsim(['report', join(FIXTURES, 'k6-0.48-reads.json')], { SWAPSIM_REPORTS_DIR: undefined }, cwd);
    expect(code, err).toBe(0);
    expect(out.trim()).toMatch(new RegExp(`^${cwd}/reports/out/\\d{8}-\\d{6}-load-k6-0\\.48-reads/report\\.html$`));
    expect(existsSync(out.trim())).toBe(true);
  });

  it('exits 2 with a clear message on missing, non-JSON or unknown input, and with no path', async () => {
    const bad = join(ROOT, 'bad.json');
    writeFileSync(bad, '{"kind":"mystery"}');
    const cases: Array<[string[], RegExp]> = [
      [['report', join(ROOT, 'nope')], /^swapsim report: no such file or folder: .*nope\n$/],
      [['report', bad], /^swapsim report: not a report input \(kind "mystery"\)/],
      [['report'], /^swapsim report: name a run folder or a JSON file \(or pass --history\)\n$/],
    ];
    const results = await Promise.all(cases.map(([args]) => swapsim(args)));
    results.forEach(({ code, out, err }, i) => {
      expect(code).toBe(2);
      expect(out).toBe('');
      expect(err).toMatch(cases[i][1]);
    });
  });

  it('--history puts the given bench results side by side', async () => {
    const { code, out, err } = await swapsim(['report', '--history', join(FIXTURES, 'bench-1.json'), join(FIXTURES, 'bench-2.json')]);
    expect(code, err).toBe(0);
    expect(readFileSync(out.trim(), 'utf8')).toContain('1 REGRESSION');
  });
});
