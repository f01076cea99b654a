// Scenario report on a recorded batch (three runs: a reorg, a cancel retried after a broadcast fault, and a
// deliberately failing expectation): verdicts, the swimlane SVG, the failed expectation marked, faults, escaping.
import { describe, expect, it } from 'vitest';
import { buildModel, buildReport } from '../index.ts';
import { assertInert, count, fixture, rowsWith, sectionById } from '../testing/html.ts';
import type { ScenarioBatch } from '../types.ts';
import { laneResolver, timelineChart } from './timeline.ts';

const batch = fixture<ScenarioBatch>('scenario-batch.json');

describe('scenario report', () => {
  it('headlines the failure and lists every run with its result', async () => {
    const { html, kind } = await buildReport(batch);
    expect(kind).toBe('scenario');
    expect(html).toMatch(/<span class="verdict tone-fail">1 FAILED<\/span>/);
    expect(rowsWith(html, 'trade-reorg-out-leg')[0]).toContain('tone-pass">pass<');
    const failingRow = rowsWith(html, '>trade-settles-despite-execution-fault<')[0];
    expect(failingRow).toContain('tone-fail">FAIL<');
    expect(failingRow).toContain('expectation failed: trade trd_8239e8c90e900016 is settled (got failed (execution_failed))');
    assertInert(html);
  });

  it('draws one swimlane chart per run, with lanes for the entities and the fault marked', async () => {
    const { html } = await buildReport(batch);
    expect(count(html, /<svg /)).toBe(3);
    const reorg = sectionById(html, 'run-1-trade-reorg-out-leg');
    const svg = reorg.slice(reorg.indexOf('<svg'), reorg.indexOf('</svg>'));
    expect(svg).toContain('trade trd_8239e8c90e900016');
    expect(svg).toContain('deposit dep_0e4fcc790efb000i'.slice(0, 20));
    expect(svg).toMatch(/>settled</);
    expect(svg).toMatch(/fault fired/); // the legend entry; the marker itself is a path in that lane
    expect(rowsWith(reorg, 'fault_8446ebf20aa1000x')[0]).toContain('{&quot;reorg&quot;:&quot;out&quot;}');
  });

  it('marks the failed expectation failed and the others passed', async () => {
    const { html } = await buildReport(batch);
    const failing = sectionById(html, 'run-3-trade-settles-despite-execution-fault');
    const row = rowsWith(failing, 'trade trd_8239e8c90e900016 is settled').find((r) => r.includes('got failed'))!;
    expect(row).toContain('tone-fail">FAIL<');
    const passing = sectionById(html, 'run-2-cancel-broadcast-failed-retried');
    const checks = rowsWith(passing, 'tone-pass">pass<');
    expect(checks.length).toBeGreaterThanOrEqual(batch.runs[1].expectations.length);
    expect(passing).not.toContain('tone-fail">FAIL<');
  });

  it('shows the figures: sim time, wall time, steps, conduct findings', async () => {
    const model = buildModel(batch);
    const run = model.sections[1];
    const facts = run.blocks.find((b) => b.type === 'facts')!;
    expect(JSON.stringify(facts)).toContain('58.37 s');
    const { html } = await buildReport(batch);
    expect(html).toContain('poll_too_fast');
    expect(html).toContain('POST /v1/quotes/quote_fe1c1620fc840012/accept → 200');
  });

  it('escapes every string from the input, in tables and in the chart', async () => {
    const evil = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
    const run = structuredClone(batch.runs[2]);
    Object.assign(run, { name: evil, summary: evil, error: evil, tags: [evil], steps: [evil] });
    run.expectations[0].label = evil;
    run.timeline.push({
      sim_ms: run.ended_sim_ms,
      entity_type: evil,
      entity_id: evil,
      kind: 'transition',
      from: evil,
      to: evil,
      detail: evil,
    });
    run.conduct.push({ kind: evil, detail: evil, request_ids: [evil] });
    const { html } = await buildReport({ ...batch, seed: evil, runs: [run] });
    assertInert(html);
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('reads a lone run, and a run with missing or broken fields without throwing', async () => {
    const lone = await buildReport(batch.runs[0]);
    expect(lone.html).toContain('Scenario trade-reorg-out-leg');
    const broken = await buildReport({
      kind: 'scenario-batch',
      runs: [{ kind: 'scenario', name: 'x', timeline: [{ nope: 1 }, null, 7], expectations: 'no', conduct: null }, null],
    });
    expect(broken.html).toContain('No timeline was recorded for this run.');
    expect(broken.html).toContain('tone-fail">FAILED<');
  });

  it('puts webhook deliveries in one lane and faults on the lane of the entity they name', () => {
    const entries = [
      { sim_ms: 1, entity_type: 'trade', entity_id: 'trd_1', kind: 'transition' as const, to: 'executing' },
      { sim_ms: 2, entity_type: 'trade', entity_id: 'trd_1', kind: 'fault' as const, detail: 'f' },
      { sim_ms: 3, entity_type: 'webhook_delivery', entity_id: 'whd_1', kind: 'delivery' as const, ok: false },
      { sim_ms: 4, entity_type: 'webhook_delivery', entity_id: 'whd_2', kind: 'delivery' as const, ok: true },
      { sim_ms: 5, entity_type: 'http', entity_id: 'req_1', kind: 'fault' as const },
    ];
    const lane = laneResolver(entries);
    expect(entries.map(lane)).toEqual(['trade trd_1', 'trade trd_1', 'webhook deliveries', 'webhook deliveries', 'fault: http']);
    expect(timelineChart([])).toBeNull();
  });
});
