// Bench reports on recorded `npm run bench` results: one run (throughput, latency, targets, ratios, the
// fixed-rate case) and the history of two runs, where a req/s drop or p99 rise is flagged as a regression.
import { describe, expect, it } from 'vitest';
import { buildReport } from '../index.ts';
import { assertInert, count, fixture, rowsWith, sectionById } from '../testing/html.ts';
import type { BenchResult } from '../types.ts';

const a = fixture<BenchResult>('bench-recorded-a.json');
const b = fixture<BenchResult>('bench-recorded-b.json');
const before = fixture<BenchResult>('bench-1.json');
const after = fixture<BenchResult>('bench-2.json');

describe('bench report', () => {
  it('shows each case with its figures, the targets missed, the ratios and the fixed-rate run', async () => {
    const { html, kind } = await buildReport(a);
    expect(kind).toBe('bench');
    expect(html).toContain('<span class="verdict tone-fail">2 TARGETS MISSED</span>');
    expect(rowsWith(sectionById(html, 'overview'), 'swapsim (a) balances read, fixed rate')[0]).toMatch(/>1,445<.*>8<.*>166<.*>2,000</s);
    expect(rowsWith(sectionById(html, 'targets'), '(a) p99 at 2000 req/s (ms)')[0]).toMatch(/tone-fail">MISSED<.*&lt; 10.*166/s);
    expect(rowsWith(sectionById(html, 'targets'), 'read/express')[0]).toContain('0.7');
    expect(count(sectionById(html, 'overview'), /<svg /)).toBe(2);
    assertInert(html);
  });

  it('compares with earlier runs when given them', async () => {
    const { html } = await buildReport(b, { history: [{ label: String(a.started_at), result: a }] });
    const history = sectionById(html, 'history');
    expect(count(history, /<svg /)).toBe(2);
    expect(rowsWith(history, 'swapsim (a) balances read')[0]).toMatch(/>3,436<.*>5,451<.*\+58\.64%/s);
  });

  it('bench history flags a regression: req/s down more than 10% or p99 up more than 25%', async () => {
    const { html, kind } = await buildReport({
      kind: 'bench-history',
      runs: [
        { label: before.started_at, result: before },
        { label: after.started_at, result: after },
      ],
    });
    expect(kind).toBe('bench-history');
    expect(html).toContain('<span class="verdict tone-fail">1 REGRESSION</span>');
    const replay = rowsWith(html, 'swapsim idempotent replay')[0];
    expect(replay).toMatch(/>8,816<.*>7,403<.*-16\.03%.*>19<.*\+46\.15%.*REGRESSION/s);
    expect(rowsWith(html, 'swapsim balances read</td>')[0]).toMatch(/\+24\.02%.*tone-pass">ok</s);
    assertInert(html);
  });

  it('survives partial and odd bench files', async () => {
    const { html } = await buildReport({
      kind: 'bench',
      cases: [{ name: '<b>x</b>', requests_per_s: 'fast' }, null, { nope: 1 }],
      ratios: null,
      targets: 'none',
    });
    expect(html).toContain('&lt;b&gt;x&lt;/b&gt;');
    const one = await buildReport({ kind: 'bench-history', runs: [{ label: 'only', result: before }, 'junk'] });
    expect(one.html).toContain('ONE RUN');
  });
});
