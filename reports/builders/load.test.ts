// Load report on recorded k6 summaries: a k6 0.48-style handleSummary object (reads; 429s as status
// sub-metrics, one threshold failed) and a 1.x-era summary as the swapsim writes script saves it (rate
// metrics per scenario, with its phase plan). Per-phase figures, thresholds, checks; defensive parsing.
import { describe, expect, it } from 'vitest';
import { buildReport } from '../index.ts';
import { assertInert, count, fixture, rowsWith, sectionById } from '../testing/html.ts';
import { isK6Summary, parseK6Summary, parseMetricKey } from './k6-summary.ts';
import { limitPhases } from './load.ts';

const old = fixture('k6-0.48-reads.json');
const v1 = fixture('k6-1.x-writes.json');

describe('k6 summary parsing', () => {
  it('splits sub-metric keys into name and tags (values may hold colons)', () => {
    expect(parseMetricKey('http_reqs{scenario:over,status:429}')).toEqual({ name: 'http_reqs', tags: { scenario: 'over', status: '429' } });
    expect(parseMetricKey('http_req_duration{url:http://x:4010/v1}')).toEqual({
      name: 'http_req_duration',
      tags: { url: 'http://x:4010/v1' },
    });
    expect(parseMetricKey('plain')).toEqual({ name: 'plain', tags: {} });
  });

  it('recognizes both shapes and nothing else', () => {
    expect(isK6Summary(old)).toBe(true);
    expect(isK6Summary(v1)).toBe(true);
    expect(isK6Summary({ kind: 'bench', metrics: { a: { type: 'counter' } } })).toBe(false);
    expect(isK6Summary({ metrics: {} })).toBe(false);
    expect(isK6Summary([1])).toBe(false);
  });

  it('0.48 shape: per phase requests and 429s from status sub-metrics; no window, so no rates', () => {
    const phases = limitPhases(parseK6Summary(old), 'reads');
    expect(phases.map((p) => [p.limit_class, p.label, p.limit_per_s, p.requests, p.throttled])).toEqual([
      ['reads', 'under', 100, 2400, 0],
      ['reads', 'at', 100, 3000, 12],
      ['reads', 'over', 100, 4500, 1487],
    ]);
    expect(phases[2].throttled_share).toBeCloseTo(1487 / 4500, 6);
    expect(phases.every((p) => p.offered_per_s === undefined)).toBe(true);
  });

  it('1.x shape with a plan: offered and accepted rate per phase against the limit', () => {
    const phases = limitPhases(parseK6Summary(v1));
    expect(phases.map((p) => [p.limit_class, p.label, p.limit_per_s, p.offered_per_s, p.requests, p.throttled])).toEqual([
      ['writes', 'under', 20, 16, 480, 0],
      ['writes', 'at', 20, 20, 600, 9],
      ['writes', 'over', 20, 30, 900, 297],
    ]);
    expect(phases[2].accepted_per_s).toBeCloseTo(603 / 30, 6);
    expect(phases[0].accepted_per_s).toBeCloseTo(16, 6);
  });

  it('reads the older --summary-export shape (figures at top level, thresholds true when crossed)', () => {
    const exported = {
      metrics: {
        http_reqs: { count: 50, rate: 5 },
        http_req_duration: { avg: 3, med: 2, 'p(95)': 9, thresholds: { 'p(95)<5': true, 'avg<10': false } },
      },
      root_group: { checks: {} },
    };
    expect(isK6Summary(exported)).toBe(true);
    const s = parseK6Summary(exported);
    expect(s.metrics.map((m) => [m.key, m.type])).toEqual([
      ['http_req_duration', 'trend'],
      ['http_reqs', 'counter'],
    ]);
    expect(s.metrics[0].thresholds).toEqual([
      { expr: 'p(95)<5', ok: false },
      { expr: 'avg<10', ok: true },
    ]);
  });

  it('never throws on missing, extra or wrong-typed fields', () => {
    const weird = {
      metrics: {
        http_reqs: { values: { count: 'x', rate: 2 } },
        'http_reqs{scenario:a': null,
        x: { type: 'trend', values: null, thresholds: { 'p(95)<1': 'yes', 'p(99)<2': true } },
      },
      root_group: { groups: { a: { checks: { c: { name: 'c', passes: 1 } } } } },
      state: 'no',
      extra: [1],
    };
    const s = parseK6Summary(weird);
    expect(s.metrics.find((m) => m.key === 'x')?.thresholds).toEqual([{ expr: 'p(99)<2', ok: false }]);
    expect(s.checks).toEqual([{ path: '', name: 'c', passes: 1, fails: 0 }]);
    for (const input of [undefined, null, 3, 'x', [], {}, { metrics: [] }, weird]) expect(() => parseK6Summary(input)).not.toThrow();
  });
});

describe('load report', () => {
  it('0.48: the failed threshold headlines, with the observed value; counts and 429 shares per phase', async () => {
    const { html, kind } = await buildReport(old, { name: 'reads-summary' });
    expect(kind).toBe('load');
    expect(html).toContain('<span class="verdict tone-fail">1 THRESHOLD FAILED</span>');
    const failed = rowsWith(sectionById(html, 'thresholds'), 'http_req_duration{scenario:over}')[0];
    expect(failed).toMatch(/tone-fail">FAIL<.*p\(95\)&lt;50.*61\.2/s);
    const over = rowsWith(sectionById(html, 'limits'), '>over<')[0];
    expect(over).toMatch(/>reads<.*>100\/s<.*>4,500<.*>1,487<.*33\.04%/s);
    expect(sectionById(html, 'limits')).toContain('have no time window');
    expect(rowsWith(sectionById(html, 'checks'), '429 carries Retry-After')[0]).toContain('tone-fail">FAIL<');
    expect(count(html, /<svg /)).toBe(2); // 429 share + latency
    assertInert(html);
  });

  it('1.x: offered vs accepted chart with the limit line, and every threshold passed', async () => {
    const { html } = await buildReport(v1);
    expect(html).toContain('<span class="verdict tone-pass">THRESHOLDS PASSED</span>');
    const limits = sectionById(html, 'limits');
    expect(count(limits, /<svg /)).toBe(2);
    expect(limits).toContain('>limit 20/s<');
    expect(rowsWith(limits, '>over<')[0]).toMatch(/>30<.*>20\.1<.*>900<.*>297<.*33%/s);
    expect(rowsWith(sectionById(html, 'thresholds'), 'rl_accepted{scenario:over}').length).toBe(2);
    expect(rowsWith(sectionById(html, 'latency'), '>http_req_duration<')[0]).toMatch(/4\.12.*6\.41.*15\.8.*41\.2.*98\.4/s);
  });

  it('escapes metric keys, threshold expressions and check names', async () => {
    const evil = '<script>alert(1)</script>';
    const data = structuredClone(v1);
    data.metrics[`http_reqs{scenario:${evil}}`] = {
      type: 'counter',
      contains: 'default',
      values: { count: 3, rate: 1 },
      thresholds: { [evil]: { ok: false } },
    };
    data.checks.push({ name: evil, path: evil, passes: 1, fails: 1 });
    data.script = evil;
    const { html } = await buildReport(data);
    assertInert(html);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});
