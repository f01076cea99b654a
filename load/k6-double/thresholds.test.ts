// The double's threshold evaluation (a test fixture's own logic): k6's selectors, aggregations and
// comparison forms the scripts use, the no-sample rule, and refusals of what k6 would refuse.
import { describe, expect, test } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluateThresholds, parseExpression, parseSelector, percentile } from './thresholds.ts';
import { bundleForDouble, canonicalHeader } from './runner.ts';
import type { MetricType, Sample } from './protocol.ts';

const s = (metric: string, type: MetricType, value: number, tags: Record<string, string> = {}): Sample => ({
  metric,
  type,
  time: type === 'trend',
  value,
  tags,
});
const one = (thresholds: Record<string, string[]>, samples: Sample[], duration_ms = 1000) =>
  evaluateThresholds(thresholds, samples, duration_ms);

describe('threshold evaluation', () => {
  test('selectors and expressions parse as k6 writes them', () => {
    expect(parseSelector('rl_rejected{scenario:over}')).toEqual({ metric: 'rl_rejected', tags: { scenario: 'over' } });
    expect(parseSelector('http_req_duration{expected_response:true,name:/rfqs}')).toEqual({
      metric: 'http_req_duration',
      tags: { expected_response: 'true', name: '/rfqs' },
    });
    expect(parseExpression('p(95)<500')).toEqual({ agg: 'p(95)', pct: 95, op: '<', value: 500 });
    expect(parseExpression('rate<=0.7333')).toMatchObject({ agg: 'rate', op: '<=', value: 0.7333 });
    expect(() => parseExpression('rate ~ 1')).toThrow(/not understood/);
  });

  test('count==0 and count>0 on counters, sub-metrics filtered by tag', () => {
    const samples = [s('c', 'counter', 0, { scenario: 'a' }), s('c', 'counter', 2, { scenario: 'b' })];
    const r = one({ 'c{scenario:a}': ['count==0'], 'c{scenario:b}': ['count==0', 'count>0'], c: ['count>=2', 'rate==2'] }, samples);
    expect(r.map((x) => [x.key, x.expression, x.ok])).toEqual([
      ['c{scenario:a}', 'count==0', true],
      ['c{scenario:b}', 'count==0', false],
      ['c{scenario:b}', 'count>0', true],
      ['c', 'count>=2', true],
      ['c', 'rate==2', true],
    ]);
  });

  test('rate<0.01 on a rate metric counts non-zero samples', () => {
    const samples = [...Array.from({ length: 99 }, () => s('r', 'rate', 0)), s('r', 'rate', 1)];
    expect(one({ r: ['rate<0.01'] }, samples)[0]!.ok).toBe(false);
    expect(one({ r: ['rate<=0.01'] }, samples)[0]!.ok).toBe(true);
  });

  test('p(95)<500 on a trend interpolates between ranks as k6 does', () => {
    const samples = Array.from({ length: 101 }, (_v, i) => s('t', 'trend', i * 10));
    expect(percentile([0, 10], 50)).toBe(5);
    const [r] = one({ t: ['p(95)<951'] }, samples);
    expect(r!.values['p(95)']).toBe(950);
    expect(r!.ok).toBe(true);
    expect(one({ t: ['p(95)<950', 'avg==500', 'max==1000', 'med==500'] }, samples).map((x) => x.ok)).toEqual([false, true, true, true]);
  });

  test('a (sub-)metric without samples is not evaluated and does not fail, as in k6', () => {
    const [r] = one({ 'r{scenario:none}': ['rate>0'] }, [s('r', 'rate', 1, { scenario: 'other' })]);
    expect(r).toMatchObject({ ok: true, evaluated: false });
  });

  test('the object form (abortOnFail) is read; an aggregation the metric type lacks is refused', () => {
    const [r] = evaluateThresholds({ c: [{ threshold: 'count==1', abortOnFail: true }] }, [s('c', 'counter', 1)], 1000);
    expect(r!.ok).toBe(true);
    expect(() => one({ c: ['p(95)<1'] }, [s('c', 'counter', 1)])).toThrow(/not an aggregation of counter/);
  });

  test('response headers are canonicalized the way k6 (Go) presents them', () => {
    expect(canonicalHeader('retry-after')).toBe('Retry-After');
    expect(canonicalHeader('x-request-id')).toBe('X-Request-Id');
  });

  test('a script importing a k6 module the double does not implement fails to bundle, loudly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k6-double-refuse-'));
    const entry = join(dir, 'uses-crypto.ts');
    writeFileSync(entry, "import crypto from 'k6/crypto';\nexport default function () { crypto.sha256('x', 'hex'); }\n");
    await expect(bundleForDouble(entry, dir)).rejects.toThrow(/does not implement k6\/crypto/);
  });
});
