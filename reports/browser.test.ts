// End to end in a real browser: headless Chromium (Debian's package, driven by playwright-core) opens a
// generated scenario report and a load report from file://, checks that charts and tables rendered (SVG
// present with a size, marks drawn, no console error, no network request) and saves full-page screenshots
// under the reports output folder. Skips, saying why, only where /usr/bin/chromium is absent.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReport } from './index.ts';
import { outputDir, writeReportJson } from './output.ts';
import { fixture } from './testing/html.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const present = existsSync(CHROMIUM);
// Skipped where Chromium is missing; the title carries why, and scripts/run-tests.mjs prints it on its last line.
const SKIP_NOTE = present ? '' : ` (skipped: no ${CHROMIUM}; Debian: apt-get install -y chromium, .ci/run installs it)`;

let browser: Browser;
let dir: string;

async function report(name: string, data: unknown): Promise<string> {
  const run = join(dir, name);
  mkdirSync(run, { recursive: true });
  writeReportJson(run, data);
  return writeReport(run);
}

interface Seen {
  errors: string[];
  requests: string[];
}

/** Opens a report page, collecting console errors, page errors and any request that is not the file itself. */
async function open(path: string) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const seen: Seen = { errors: [], requests: [] };
  page.on('console', (m) => {
    if (m.type() === 'error') seen.errors.push(m.text());
  });
  page.on('pageerror', (e) => seen.errors.push(e.message));
  page.on('request', (r) => {
    if (r.url() !== pathToFileURL(path).href) seen.requests.push(r.url());
  });
  await page.goto(pathToFileURL(path).href, { waitUntil: 'load' });
  return { page, seen };
}

describe.skipIf(!present)(`reports in headless Chromium${SKIP_NOTE}`, () => {
  beforeAll(async () => {
    dir = outputDir('browser-e2e');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('scenario report: swimlane charts and tables render, the failure shows, no console error', async () => {
    const path = await report('scenario', fixture('scenario-batch.json'));
    const { page, seen } = await open(path);
    const charts = await page.$$eval('figure.chart svg', (svgs) =>
      svgs.map((s) => {
        const r = s.getBoundingClientRect();
        return { w: r.width, h: r.height, marks: s.querySelectorAll('.role-mark path, .role-mark text').length };
      }),
    );
    expect(charts).toHaveLength(3);
    for (const c of charts) {
      expect(c.w).toBeGreaterThan(600);
      expect(c.h).toBeGreaterThan(150);
      expect(c.marks).toBeGreaterThan(20);
    }
    expect(await page.locator('header .verdict').innerText()).toBe('1 FAILED');
    const failRow = page.locator('tr', { hasText: 'got failed (execution_failed)' }).first();
    expect(await failRow.locator('.pill').first().innerText()).toBe('FAIL');
    expect(await page.locator('table tbody tr').count()).toBeGreaterThan(15);
    const shot = join(dir, 'scenario-report.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(50_000);
    expect(seen).toEqual({ errors: [], requests: [] });
    await page.close();
  }, 120_000);

  it('soak report: the runs-over-time chart and the failing property render, no console error', async () => {
    const path = await report('soak', fixture('soak-failing.json'));
    const { page, seen } = await open(path);
    const lines = await page.$$eval('#overview figure.chart svg', (svgs) => svgs.map((s) => s.querySelectorAll('.role-mark path').length));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBeGreaterThanOrEqual(2);
    expect(await page.locator('header .verdict').innerText()).toBe('1 FAILED');
    expect(await page.locator('#property-trading pre').last().innerText()).toContain('SWAPSIM_TRADING_PATH=16:3:0:1:1');
    await page.screenshot({ path: join(dir, 'soak-report.png'), fullPage: true });
    expect(seen).toEqual({ errors: [], requests: [] });
    await page.close();
  }, 120_000);

  it('load report: rate, 429-share and latency charts and the thresholds table render, no console error', async () => {
    const path = await report('load', fixture('k6-1.x-writes.json'));
    const { page, seen } = await open(path);
    const sizes = await page.$$eval('figure.chart svg', (svgs) =>
      svgs.map((s) => s.getBoundingClientRect()).map((r) => [r.width, r.height]),
    );
    expect(sizes).toHaveLength(3);
    for (const [w, h] of sizes) expect(w * h).toBeGreaterThan(20_000);
    expect(await page.locator('#limits svg').first().getByText('limit 20/s').count()).toBe(1);
    expect(await page.locator('#thresholds tbody tr').count()).toBe(11);
    expect(await page.locator('header .verdict').innerText()).toBe('THRESHOLDS PASSED');
    const shot = join(dir, 'load-report.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(50_000);
    expect(seen).toEqual({ errors: [], requests: [] });
    await page.close();
  }, 120_000);
});
