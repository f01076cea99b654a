// Soak report on recorded `npm run test:soak` results: a passing run (core and trading, 30 runs each) and
// the same run with trading failing (seed, path, shrunk counterexample, error, replay command).
import { describe, expect, it } from 'vitest';
import { buildReport } from '../index.ts';
import { assertInert, count, fixture, rowsWith, sectionById } from '../testing/html.ts';
import type { SoakResult } from '../types.ts';

const passing = fixture<SoakResult>('soak-passing.json');
const failing = fixture<SoakResult>('soak-failing.json');

describe('soak report', () => {
  it('shows every property with its runs, seed, wall time and runs/s, and the runs-over-time chart', async () => {
    const { html, kind } = await buildReport(passing);
    expect(kind).toBe('soak');
    expect(html).toContain('<span class="verdict tone-pass">PASSED</span>');
    const overview = sectionById(html, 'overview');
    expect(overview).toContain('2 of 2 properties passed');
    expect(rowsWith(overview, '>core<')[0]).toMatch(/tone-pass">passed<.*30 \/ 30.*<code>20260101<\/code>.*2\.09 s.*14\.35/s);
    expect(rowsWith(overview, '>trading<')[0]).toMatch(/30 \/ 30.*7\.12/s);
    expect(count(overview, /<svg /)).toBe(1);
    expect(count(overview, /aria-roledescription="line mark"/)).toBe(2);
    expect(sectionById(html, 'property-trading')).toContain('30 runs passed');
    expect(html).not.toContain('Replay it');
    assertInert(html);
  });

  it('details the failing property: seed, path, replayPath, shrunk counterexample, error and the replay command', async () => {
    const { html } = await buildReport(failing);
    expect(html).toContain('<span class="verdict tone-fail">1 FAILED</span>');
    expect(rowsWith(sectionById(html, 'overview'), '>trading<')[0]).toMatch(/tone-fail">FAILED<.*17 \/ 30/s);
    const trading = sectionById(html, 'property-trading');
    expect(trading).toMatch(/<dt>path<\/dt><dd><code>16:3:0:1:1<\/code>/);
    expect(trading).toMatch(/<dt>replayPath<\/dt><dd><code>BA:F<\/code>/);
    expect(trading).toMatch(/<dt>shrunk<\/dt><dd>4 times/);
    expect(trading).toContain('cancel(account#0, credit#0, destination#0),advance(600000) /*replayPath=&quot;BA:F&quot;*/]</code></pre>');
    expect(trading).toContain('consumed by trade trd_0c2d5e71a3b4000k, cancel cnl_51aa09e2f7d6000m');
    expect(trading).toContain(
      '<pre><code>SWAPSIM_TRADING_SEED=20260101 SWAPSIM_TRADING_PATH=16:3:0:1:1 npx vitest run scenarios/model-trading</code></pre>',
    );
    expect(sectionById(html, 'property-core')).not.toContain('Replay it');
    assertInert(html);
  });

  it('a property with no verdict fails the report; partial and hostile input is survived and escaped', async () => {
    const noVerdict = await buildReport({
      ...passing,
      properties: [{ name: 'core', passed: false, failures: [], error: 'beforeAll hook timed out' }],
    });
    expect(noVerdict.html).toContain('1 FAILED');
    expect(noVerdict.html).toContain('No verdict from the test: beforeAll hook timed out');
    const bare = await buildReport({ kind: 'soak' });
    expect(bare.html).toContain('NOTHING RAN');
    const evil = '</code><script>alert(1)</script>';
    const odd = await buildReport({
      kind: 'soak',
      properties: [
        { name: evil, passed: false, samples: 'x', failures: [{ seed: 'x', counterexample: evil, replay_command: evil }, null] },
        7,
      ],
    });
    assertInert(odd.html);
    expect(odd.html).toContain('&lt;/code&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});
