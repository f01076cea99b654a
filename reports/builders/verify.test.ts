// Verify report on a recorded result (40 runs, run 23 failing): runs and seeds, the failing case's shrunk
// steps, first divergence, replay command and timeline, conduct findings; defensive on partial input.
import { describe, expect, it } from 'vitest';
import { buildReport } from '../index.ts';
import { assertInert, count, fixture, rowsWith, sectionById } from '../testing/html.ts';
import type { VerifyResult } from '../types.ts';

const result = fixture<VerifyResult>('verify-failing.json');

describe('verify report', () => {
  it('shows runs, seeds and the verdict, with a strip of every run', async () => {
    const { html, kind } = await buildReport(result);
    expect(kind).toBe('verify');
    expect(html).toContain('<span class="verdict tone-fail">1 FAILED</span>');
    expect(html).toContain('39 of 40 runs passed');
    expect(rowsWith(html, '1820517023')[0]).toContain('tone-fail">FAIL<');
    expect(rowsWith(html, '1820517001')[0]).toContain('tone-pass">pass<');
    const overview = sectionById(html, 'overview');
    expect(count(overview, /<svg /)).toBe(1);
    expect(count(overview, /aria-roledescription="tick"/)).toBe(40);
    assertInert(html);
  });

  it('details the failing case: shrunk steps, divergence, replay command, timeline', async () => {
    const { html } = await buildReport(result);
    const failing = sectionById(html, 'case-1-run-23');
    expect(failing).toContain('Shrunk steps (the smallest failing scenario)');
    expect(failing).toMatch(/<li>fault webhook \{&quot;http_status&quot;:503\} ×1<\/li>/);
    const div = rowsWith(failing, 'cred_3ad74d70d9c1000q')[0];
    expect(div).toMatch(/<code>status<\/code>.*<code>consumed<\/code>.*<code>open<\/code>/s);
    expect(failing).toContain('<pre><code>npx swapsim verify --app http://127.0.0.1:3000 --seed 1820517023 --path 23:1:0:0</code></pre>');
    expect(count(failing, /<svg /)).toBe(1);
    expect(failing).toContain('webhook deliveries');
  });

  it('numbers steps once (verify’s own "1. setup" keeps no second number) and labels runs with whole numbers only', async () => {
    const c = { ...result.cases[22], shrunk_steps: ['1. setup: account #0 is created', '2. deposit 1 ETH'] };
    const few = { ...result, runs: 2, cases: [result.cases[0], { ...c, run: 2 }] };
    const { html } = await buildReport(few);
    const labels = [...sectionById(html, 'overview').matchAll(/<text[^>]*>([^<]*)<\/text>/g)]
      .map((m) => m[1])
      .filter((t) => /^[0-9.]+$/.test(t));
    expect(labels.length).toBeGreaterThan(0);
    expect(
      labels.every((t) => /^\d+$/.test(t)),
      labels.join(' '),
    ).toBe(true);
    expect(html).toContain('<li>setup: account #0 is created</li>');
    expect(html).not.toMatch(/<li>\d+\. /);
  });

  it('leads a failing case with its reason, and shows its provider seed and delivery log', async () => {
    const c = {
      ...result.cases[22],
      headline: 'a correctly signed delivery of evt_1 (credit.created) was answered 500',
      sim_seed: 'verify-1/run-23',
      delivery_log: ['evt_1 credit.created: t+10.0s HTTP 500; t+40.0s HTTP 200 → succeeded'],
    };
    const { html } = await buildReport({ ...result, cases: [...result.cases.slice(0, 22), c, ...result.cases.slice(23)] });
    const failing = sectionById(html, 'case-1-run-23');
    expect(failing.indexOf('was answered 500')).toBeLessThan(failing.indexOf('Shrunk steps'));
    expect(failing).toContain('verify-1/run-23');
    expect(failing).toContain('Delivery log of the events involved');
    expect(failing).toContain('t+10.0s HTTP 500; t+40.0s HTTP 200 → succeeded');
    const escaped = await buildReport({ ...result, cases: [{ ...c, headline: '<img src=x>', delivery_log: ['<b>x</b>'] }] });
    assertInert(escaped.html);
  });

  it('lists the client-conduct findings', async () => {
    const { html } = await buildReport(result);
    const conduct = sectionById(html, 'conduct');
    expect(conduct).toContain('2 findings');
    expect(rowsWith(conduct, 'retry_after_ignored')[0]).toContain('req_0a1b2c3d4e5f0001');
    expect(conduct).toContain('write_retried_without_idempotency_key');
  });

  it('passes with no failing case, and survives missing fields', async () => {
    const ok = await buildReport({ ...result, failed: 0, passed: 40, cases: result.cases.filter((c) => c.ok), conduct: [] });
    expect(ok.html).toContain('<span class="verdict tone-pass">PASSED</span>');
    const bare = await buildReport({ kind: 'verify' });
    expect(bare.html).toContain('0 of 0 runs passed');
    const odd = await buildReport({
      kind: 'verify',
      cases: [{ run: 'x', ok: false, divergence: { app: { deep: [1, 2] } }, timeline: 'none' }, 5],
    });
    expect(odd.html).toContain('{&quot;deep&quot;:[1,2]}');
  });

  it('escapes app values and steps', async () => {
    const evil = '</code><script>alert(1)</script>';
    const c = {
      ...result.cases[22],
      shrunk_steps: [evil],
      replay_command: evil,
      divergence: { entity_type: evil, entity_id: evil, field: evil, app: evil, provider: { evil } },
    };
    const { html } = await buildReport({ ...result, app_url: evil, cases: [c] });
    assertInert(html);
    expect(html).toContain('&lt;/code&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});
