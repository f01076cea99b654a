// An unscoped fault rule's `times` is one count for every follower world (worlds.ts), and which world gets its last
// firing follows I/O when they run at once: journal plus replay still reproduce every world (sim/faults.ts
// ShareLedger), whatever order a replay runs them in, across a reset, a snapshot restored and a `--state` restart;
// a journal written before those lines replays as it did.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, startTestSim, type TestSim } from './testing/harness.ts';
import { startReceiver, type Receiver } from '../scenarios/dsl/webhook-receiver.ts';
import { parseJournal, replayInto, replayJournal } from './replay/run.ts';
import { worldOf } from './worlds.ts';
import type { Runtime } from './runtime.ts';
import { FAULT_TIMES_FACT } from '../sim/index.ts';
import { serveState } from './persistence/state.ts';

const opened = closeAfterEach(afterEach);
const RAISED = { reads: 100_000, writes: 100_000, indicative_rfqs: 1_000, firm_rfqs: 1_000 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Org = { organization_id: string; api_key: string };

const recording = async (): Promise<{ s: TestSim; journal: string }> => {
  const journal = join(mkdtempSync(join(tmpdir(), 'swapsim-times-')), 'run.jsonl');
  return { s: opened(await startTestSim({ org_worlds: 'own', journal_path: journal })), journal };
};

/** What a world went through, read over the wire (events, every delivery's attempts) and from its fault plan. */
async function history(base_url: string, runtime: Runtime, org: Org, webhook_id: string) {
  const get = async (path: string) =>
    (await fetch(base_url + path, { headers: { authorization: `Bearer ${org.api_key}` } })).json() as Promise<any>;
  return {
    events: (await get('/events?limit=100')).events.map((e: { event_id: string; type: string }) => `${e.event_id} ${e.type}`),
    deliveries: (await get(`/webhooks/${webhook_id}/deliveries?limit=100`)).deliveries,
    firings: worldOf(runtime, org.organization_id).sim.faults.firings(),
  };
}

/** The journal's lines with the answer to `late`'s first attempt moved to just before `early`'s (both were awaited then). */
function answeredFirst(text: string, late: string, early: string): string {
  const lines = text.split('\n');
  const at = (delivery_id: string) => lines.findIndex((l) => l.includes('"kind":"outside"') && l.includes(`"key":"${delivery_id}@`));
  expect(at(late)).toBeGreaterThan(at(early));
  const [line] = lines.splice(at(late), 1);
  lines.splice(at(early), 0, line);
  return lines.join('\n');
}

describe("an unscoped rule's shared `times`: journal plus replay reproduce every world", () => {
  it('two followers race for the last firing; a replay run in the other order gives it to the same world', async () => {
    const { s, journal } = await recording();
    const [a, b] = [await s.newOrg({ rate_limits: RAISED }), await s.newOrg({ rate_limits: RAISED })];
    const rx: Record<string, Receiver> = {};
    const webhook: Record<string, string> = {};
    for (const org of [a, b]) {
      rx[org.organization_id] = opened(await startReceiver());
      const w = await s.api('POST', '/webhooks', { key: org.api_key, body: { url: rx[org.organization_id].url } });
      rx[org.organization_id].secret = w.body.webhook.secret;
      webhook[org.organization_id] = w.body.webhook.webhook_id;
    }
    // A answers its first delivery late, so B's next attempt (its first wallet event) reaches the rule first; A
    // runs first in every world's order (created first), so a replay left to itself leans to A.
    const slow = rx[a.organization_id];
    slow.answer = async () => {
      if (slow.received.length === 1) await sleep(500);
      return 200;
    };
    const rule = { target: 'webhook', effect: { webhook: 'drop' }, match: { event_type: 'account.wallet_created' }, times: 1 };
    expect((await s.control('POST', '/faults', rule)).status).toBe(200);
    for (const org of [a, b]) expect((await s.api('POST', '/accounts', { key: org.api_key, body: {} })).status).toBe(200);
    // One unscoped advance runs both followers at once, each waiting on its own receiver.
    await s.advance(60_000);
    const runtime = s.running.runtime;
    const live = {
      a: await history(s.base_url, runtime, a, webhook[a.organization_id]),
      b: await history(s.base_url, runtime, b, webhook[b.organization_id]),
    };
    expect(live.a.firings).toEqual([]);
    expect(live.b.firings).toHaveLength(1);
    expect((await s.control('GET', '/faults')).body.faults[0].times).toBe(0);
    await s.close();

    const firstOf = (h: typeof live.a) => {
      const created = h.events.find((e: string) => e.endsWith(' account.created')).split(' ')[0];
      return h.deliveries.find((d: { event_id: string }) => d.event_id === created).delivery_id;
    };
    // As recorded (B's whole run went by while A's first answer was out: the replay waits for each call to be made),
    // and with A's first answer handed over before B's: left to the count, A's wallet event would take the firing.
    const recorded = readFileSync(journal, 'utf8');
    expect(recorded.split('\n').filter((l) => l.includes(`"what":"${FAULT_TIMES_FACT}"`)).length).toBeGreaterThanOrEqual(2);
    for (const text of [recorded, answeredFirst(recorded, firstOf(live.a), firstOf(live.b))]) {
      const replayed = await replayInto(parseJournal(text), { verify: true });
      opened(replayed.running);
      expect(replayed.report.mismatch).toBeNull();
      expect(replayed.report.diverged).toBeNull();
      // Live from here (as a reopened world goes on), so it answers reads the journal does not hold.
      replayed.tape.goLive(null);
      const { runtime: again, base_url } = replayed.running;
      expect(await history(base_url, again, a, webhook[a.organization_id])).toEqual(live.a);
      expect(await history(base_url, again, b, webhook[b.organization_id])).toEqual(live.b);
      expect(again.world.sim.faults.list().map((r) => r.times)).toEqual([0]);
    }
  });

  it('marks are taken at their own match (a reset starts the names over); a journal without them replays by the count', async () => {
    const { s, journal } = await recording();
    const rule = { target: 'http', effect: { http_status: 503 }, match: { method: 'GET', path: '/v1/assets' }, times: 1 };
    const answered: number[] = [];
    // Twice the same steps, a reset between: the same fault and organization ids, so the same names in the journal.
    for (let round = 0; round < 2; round++) {
      if (round > 0) expect((await s.control('POST', '/reset', {})).status).toBe(200);
      const [a, b] = [await s.newOrg({ rate_limits: RAISED }), await s.newOrg({ rate_limits: RAISED })];
      expect((await s.control('POST', '/faults', rule)).status).toBe(200);
      // B takes the one firing, then matches twice more with the count spent; A matches once, spent.
      for (const key of [b.api_key, b.api_key, a.api_key, b.api_key]) answered.push((await s.api('GET', '/assets', { key })).status);
    }
    expect(answered).toEqual([503, 200, 200, 200, 503, 200, 200, 200]);
    await s.close();
    const text = readFileSync(journal, 'utf8');
    const marks = text.split('\n').filter((l) => l.includes(`"what":"${FAULT_TIMES_FACT}"`));
    // Per round: B open from match 0, spent from match 1; A spent from match 0.
    expect(marks).toHaveLength(6);
    const before = text
      .split('\n')
      .filter((l) => !marks.includes(l))
      .join('\n');
    for (const t of [text, before]) {
      const report = await replayJournal(parseJournal(t), { verify: true });
      expect(report.mismatch).toBeNull();
      expect(report.diverged).toBeNull();
      expect(report.verified).toBe(15);
    }
  });

  it("a follower's snapshot restored: its matches go on numbering, so a mark before the restore is never taken after it", async () => {
    const { s, journal } = await recording();
    const b = await s.newOrg({ rate_limits: RAISED });
    const q = `?organization_id=${b.organization_id}`;
    const rule = { target: 'http', effect: { http_status: 503 }, match: { method: 'GET', path: '/v1/assets' }, times: 2 };
    expect((await s.control('POST', '/faults', rule)).status).toBe(200);
    const get = async () => (await s.api('GET', '/assets', { key: b.api_key })).status;
    // Open at its first match (a mark), fires; a snapshot; fires again (no mark: still open), spending the count.
    expect(await get()).toBe(503);
    const snap = await s.control('POST', `/snapshots${q}`);
    expect(snap.status).toBe(200);
    expect(await get()).toBe(503);
    // Restored, the world matches again with the count spent: that is its third match, not its second again.
    expect((await s.control('POST', `/snapshots/${snap.body.snapshot_id}/restore${q}`)).status).toBe(200);
    expect(await get()).toBe(200);
    await s.close();
    const text = readFileSync(journal, 'utf8');
    const marks = text.split('\n').filter((l) => l.includes(`"what":"${FAULT_TIMES_FACT}"`));
    expect(marks.map((l) => JSON.parse(l).value)).toEqual([
      { match: 0, open: true },
      { match: 2, open: false },
    ]);
    const report = await replayJournal(parseJournal(text), { verify: true });
    expect(report.mismatch).toBeNull();
    expect(report.diverged).toBeNull();
  });

  it('a `--state` server reopened goes on with each world where its marks left it; the whole file replays as one run', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'swapsim-times-state-')), 'world');
    const options = { clock: 'virtual' as const, seed: 'times-state', port: 0 };
    const call = async (base: string, method: string, path: string, key?: string, body?: unknown) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (key) headers.authorization = `Bearer ${key}`;
      const r = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: r.status, body: (await r.json()) as any };
    };
    const first = await serveState({ dir }, options);
    const made = async () =>
      (await call(first.running.control_url, 'POST', '/organizations', undefined, { rate_limits: RAISED })).body.organization;
    const [a, b] = [await made(), await made()];
    const rule = { target: 'http', effect: { http_status: 503 }, match: { method: 'GET', path: '/v1/assets' }, times: 2 };
    expect((await call(first.running.control_url, 'POST', '/faults', undefined, rule)).status).toBe(200);
    const get = async (base: string, org: { api_key: string }) => (await call(base, 'GET', '/assets', org.api_key)).status;
    expect(await get(first.running.base_url, b)).toBe(503);
    await first.running.close();

    const second = await serveState({ dir }, options);
    expect(second.reopened?.mismatch).toBeNull();
    // One firing left: A's; B (open at its last match before the restart) finds it spent, then A does.
    const answered = [];
    for (const org of [a, b, a]) answered.push(await get(second.running.base_url, org));
    await second.running.close();
    expect(answered).toEqual([503, 200, 200]);
    const text = readFileSync(second.journal_path, 'utf8');
    const marks = text.split('\n').filter((l) => l.includes(`"what":"${FAULT_TIMES_FACT}"`));
    expect(
      marks.map((l) => `${JSON.parse(l).key.split('@')[1] === a.organization_id ? 'a' : 'b'} ${JSON.stringify(JSON.parse(l).value)}`),
    ).toEqual(['b {"match":0,"open":true}', 'a {"match":0,"open":true}', 'b {"match":1,"open":false}', 'a {"match":1,"open":false}']);
    const report = await replayJournal(parseJournal(text), { verify: true });
    expect(report.mismatch).toBeNull();
    expect(report.diverged).toBeNull();
  });
});
