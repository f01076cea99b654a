// The smaller findings of the shared-server review: a mid-pattern `*` in a fault match is refused (it would
// never fire), the timeline labels each webhook attempt with that attempt's own outcome, and a journal whose
// run ended with SIGTERM answering a held request replays and verifies.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { worldOf } from './worlds.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, startTestSim, type TestSim } from './testing/harness.ts';
import { startReceiver } from '../scenarios/dsl/webhook-receiver.ts';
import { publish } from './engine/publish.ts';
import { parseJournal, replayJournal } from './replay/run.ts';
import { readFileSync } from 'node:fs';

const opened = closeAfterEach(afterEach);
const sim = async (opts: Parameters<typeof startTestSim>[0] = {}): Promise<TestSim> => opened(await startTestSim(opts));

describe('fault match patterns', () => {
  it('refuses a * anywhere but the end of match.path or match.event_type; a trailing one is a prefix', async () => {
    const s = await sim();
    for (const match of [
      { path: '/v1/accounts/*/credits' },
      { path: '*/accounts' },
      { event_type: '*.verified' },
      { event_type: 'deposit.*.x' },
    ]) {
      const r = await s.control('POST', '/faults', { target: 'http', effect: { http_status: 503 }, match });
      expect(r.status, JSON.stringify(match)).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_parameter', param: `match.${Object.keys(match)[0]}` });
    }
    expect((await s.control('GET', '/faults')).body.faults).toEqual([]);
    expect(
      (await s.control('POST', '/faults', { target: 'http', effect: { http_status: 503 }, match: { path: '/v1/webhooks*' }, times: 1 }))
        .status,
    ).toBe(200);
    expect((await s.api('GET', '/webhooks')).status).toBe(503);
  });
});

describe('timeline', () => {
  it("labels each webhook attempt with the delivery's state after that attempt", async () => {
    const s = await sim();
    const rx = await startReceiver();
    opened(rx);
    let n = 0;
    rx.answer = () => (++n === 1 ? 500 : 200);
    const org = await s.newOrg();
    const w = await s.api('POST', '/webhooks', { key: org.api_key, body: { url: rx.url } });
    rx.secret = w.body.webhook.secret;
    publish(worldOf(s.running.runtime, org.organization_id), org.organization_id, 'acct_t', 'test.ping', {});
    await s.advance(0);
    await s.advance(30_000);
    const rows = (await s.control('GET', `/timeline?organization_id=${org.organization_id}`)).body.timeline.filter(
      (r: any) => r.kind === 'delivery',
    );
    expect(rows.map((r: any) => r.detail.replace(/^.*→ /, ''))).toEqual(['pending', 'succeeded']);
  });
});

describe('journal', () => {
  it('a run stopped by SIGTERM while a delay_ms fault held a request replays and verifies', async () => {
    const journal = join(mkdtempSync(join(tmpdir(), 'swapsim-shutdown-')), 'run.jsonl');
    const s = await startTestSim({ journal_path: journal });
    expect(
      (await s.control('POST', '/faults', { target: 'http', effect: { delay_ms: 60_000 }, match: { path: '/v1/webhooks' } })).status,
    ).toBe(200);
    const held = s.api('GET', '/webhooks');
    // Wait until the request is journaled (held on the sim clock), then stop the server as SIGTERM does.
    for (let i = 0; i < 100 && !readFileSync(journal, 'utf8').includes('"url":"/v1/webhooks"'); i++)
      await new Promise((r) => setTimeout(r, 20));
    await s.close();
    expect((await held).status).toBe(503);
    const parsed = parseJournal(readFileSync(journal, 'utf8'));
    expect(parsed.lines.map((l) => l.line.kind)).toContain('shutdown');
    const report = await replayJournal(parsed, { verify: true });
    expect(report.mismatch).toBeNull();
    expect(report.diverged).toBeNull();
    expect(report.verified).toBeGreaterThanOrEqual(2);
  });
});
