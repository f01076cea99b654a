// `Svc-Timestamp` is the wall time of the attempt (design.md), so a receiver's 5-minute freshness check accepts
// deliveries under a virtual clock too, while the delivery log and events stay in sim time; a journal keeps each
// timestamp as a fact, and its replay signs with the recorded one (its outside answers are keyed by it).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, startTestSim, type TestSim } from '../../testing/harness.ts';
import { startReceiver, type Receiver } from '../../../scenarios/dsl/webhook-receiver.ts';
import { parseJournal, replayJournal } from '../../replay/run.ts';
import type { FactLine, OutsideLine } from '../../replay/lines.ts';

const opened = closeAfterEach(afterEach);
const sim = async (opts: Parameters<typeof startTestSim>[0] = {}): Promise<TestSim> => opened(await startTestSim(opts));
const receiver = async (): Promise<Receiver> => opened(await startReceiver());

/** The spec's recommended check, as a receiver on its own clock does it. */
const fresh = (timestamp_ms: number): boolean => Math.abs(Date.now() - timestamp_ms) <= 5 * 60_000;

async function hooked(s: TestSim): Promise<{ rx: Receiver; webhook_id: string }> {
  const rx = await receiver();
  const created = await s.api('POST', '/webhooks', { body: { url: rx.url } });
  expect(created.status).toBe(200);
  rx.secret = created.body.webhook.secret;
  return { rx, webhook_id: created.body.webhook.webhook_id };
}

describe('Svc-Timestamp', () => {
  it('under a virtual clock is the wall time of each attempt, signed over, while attempted_at_ms stays sim time', async () => {
    const s = await sim({ clock: 'virtual' });
    const { rx, webhook_id } = await hooked(s);
    // account.created fails once, so its retry comes 30 s of sim time later (wallets follow, answered 200).
    rx.answer = (r) => (r.body.type === 'account.created' && rx.received.filter((x) => x.event_id === r.event_id).length === 1 ? 500 : 200);
    const before_ms = Date.now();
    expect((await s.api('POST', '/accounts', { body: { label: 'fresh' } })).status).toBe(200);
    await s.control('POST', '/clock/advance', { ms: 0 });
    // The retry 30 s of sim time later leaves at once in wall time: its stamp is wall time too, not +30 s.
    await s.control('POST', '/clock/advance', { ms: 30_000 });
    const after_ms = Date.now();
    const created = rx.received.filter((r) => r.body.type === 'account.created');
    expect(created).toHaveLength(2);
    expect(rx.received.length).toBeGreaterThan(2);
    for (const r of rx.received) {
      expect(r.signature_valid).toBe(true);
      expect(fresh(r.timestamp_ms)).toBe(true);
      expect(r.timestamp_ms).toBeGreaterThanOrEqual(before_ms);
      expect(r.timestamp_ms).toBeLessThanOrEqual(after_ms);
    }
    const sim_start_ms = created[0].body.created_at_ms;
    expect(Math.abs(sim_start_ms - before_ms)).toBeGreaterThan(24 * 3_600_000); // the virtual epoch, 2026-01-01
    const [d] = (await s.api('GET', `/webhooks/${webhook_id}/deliveries?event_id=${created[0].event_id}`)).body.deliveries;
    expect(d).toMatchObject({ status: 'success', attempted_at_ms: sim_start_ms + 30_000 });
  });

  it('is journaled as a fact; the replay signs with the recorded stamp and follows the journal to the end', async () => {
    const journal = join(mkdtempSync(join(tmpdir(), 'swapsim-stamp-')), 'run.jsonl');
    const s = await sim({ clock: 'virtual', journal_path: journal });
    const { rx } = await hooked(s);
    for (const label of ['a', 'b', 'c']) expect((await s.api('POST', '/accounts', { body: { label } })).status).toBe(200);
    await s.control('POST', '/clock/advance', { ms: 5_000 });
    await s.close();
    const parsed = parseJournal(readFileSync(journal, 'utf8'));
    const facts = parsed.lines.map((l) => l.line).filter((l): l is FactLine => l.kind === 'fact' && l.what === 'webhook_timestamp');
    const answers = parsed.lines.map((l) => l.line).filter((l): l is OutsideLine => l.kind === 'outside' && l.what === 'webhook');
    expect(rx.received.length).toBeGreaterThanOrEqual(3);
    expect(facts).toHaveLength(rx.received.length);
    expect(answers).toHaveLength(rx.received.length);
    // Each answer is keyed by the stamp the receiver saw (the wall time of its attempt).
    expect(answers.map((a) => a.key).sort()).toEqual(rx.received.map((r) => `${r.delivery_id}@${r.timestamp_ms}`).sort());
    expect(facts.map((f) => f.value).sort()).toEqual(rx.received.map((r) => r.timestamp_ms).sort());
    // Replayed a moment later: a stamp read from the wall clock again would key another answer, and diverge.
    await new Promise((r) => setTimeout(r, 20));
    const report = await replayJournal(parsed, { verify: true });
    expect(report.diverged).toBeNull();
    expect(report.mismatch).toBeNull();
    expect(report.verified).toBeGreaterThanOrEqual(4);
  });
});
