// Organizations with clocks of their own (worlds.ts) over a real server: a scoped clock call moves only its
// organization's time, an unscoped one keeps today's meaning, `/v1` runs in the key's world, one tenant's
// hanging receiver does not make another's advance slow, a realtime tenant clock runs beside a virtual server,
// deleting drops the world, and the journal replays all of it.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, startTestSim, type TestSim } from './testing/harness.ts';
import { startReceiver } from '../scenarios/dsl/webhook-receiver.ts';
import { parseJournal, replayJournal } from './replay/run.ts';
import { DEFAULT_PROFILE } from './profile.ts';
import { runTrigger } from '../scenarios/dsl/trigger.ts';
import { TRIGGERS } from '../scenarios/library/index.ts';

const opened = closeAfterEach(afterEach);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fast = { rate_limits: { reads: 10_000, writes: 10_000 } };

async function ownClockOrg(s: TestSim, clock: Record<string, unknown> = { mode: 'virtual' }) {
  const r = await s.control('POST', '/organizations', { ...fast, clock });
  expect(r.status).toBe(200);
  return r.body.organization as { organization_id: string; api_key: string; clock: { now_ms: number; mode: string } };
}
const clockOf = async (s: TestSim, org?: string): Promise<number> =>
  (await s.control('GET', org ? `/clock?organization_id=${org}` : '/clock')).body.clock.now_ms;

describe('per-organization clocks', () => {
  it('a scoped advance moves only that organization; an unscoped one keeps its meaning (the server clock)', async () => {
    const s = opened(await startTestSim());
    const t0 = await clockOf(s);
    const a = await ownClockOrg(s);
    const b = await ownClockOrg(s);
    expect(a.clock).toEqual({ now_ms: t0, mode: 'virtual', speed: 1 });
    const adv = await s.control('POST', '/clock/advance', { ms: 3_600_000, organization_id: a.organization_id });
    expect(adv.status).toBe(200);
    expect(adv.body.clock.now_ms).toBe(t0 + 3_600_000);
    expect(await clockOf(s, a.organization_id)).toBe(t0 + 3_600_000);
    expect(await clockOf(s, b.organization_id)).toBe(t0);
    expect(await clockOf(s)).toBe(t0);
    await s.advance(1_000);
    expect(await clockOf(s)).toBe(t0 + 1_000);
    expect(await clockOf(s, a.organization_id)).toBe(t0 + 3_600_000);
    expect(await clockOf(s, b.organization_id)).toBe(t0);
  });

  it("/v1 runs in the key's world: its work waits for its own clock, not the server's", async () => {
    const s = opened(await startTestSim());
    const a = await ownClockOrg(s);
    const acct = (await s.api('POST', '/accounts', { key: a.api_key, body: {} })).body.account.account_id;
    const wallets = async () =>
      (await s.api('GET', `/accounts/${acct}/activity?types=account.wallet_created`, { key: a.api_key })).body.events.length;
    // The server's clock moving does nothing for it; its own does.
    await s.advance(60_000);
    expect(await wallets()).toBe(0);
    await s.control('POST', '/clock/advance', { ms: 60_000, organization_id: a.organization_id });
    expect(await wallets()).toBe(5);
    // The default world does not know the account.
    expect((await s.api('GET', `/accounts/${acct}`)).status).toBe(404);
    // A settle of its own, too.
    const settled = await s.control('POST', '/clock/settle', { organization_id: a.organization_id });
    expect(settled.body.pending).toBe(0);
  });

  it('scope errors: an unknown organization is 404; a clock call scoped to one sharing the server clock is 400', async () => {
    const s = opened(await startTestSim());
    const shared = await s.newOrg();
    const unknown = await s.control('POST', '/clock/advance', { ms: 1, organization_id: 'org_nobody' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.param).toBe('organization_id');
    const t0 = await clockOf(s);
    const refused = await s.control('POST', '/clock/advance', { ms: 1_000, organization_id: shared.organization_id });
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe('organization_id');
    expect(await clockOf(s)).toBe(t0);
    // The server's own calls take no scope.
    expect((await s.control('POST', `/organizations?organization_id=${shared.organization_id}`, {})).status).toBe(400);
    expect((await s.control('POST', '/reset', { organization_id: shared.organization_id })).status).toBe(400);
    // A misspelt clock option is refused, not ignored.
    expect((await s.control('POST', '/organizations', { clock: { mode: 'virtual', tick: 1 } })).status).toBe(400);
  });

  it("one tenant's hanging receiver does not make another tenant's advance slow", async () => {
    const s = opened(await startTestSim({ profile: { ...DEFAULT_PROFILE, webhook_timeout_ms: 3_000 } }));
    const hanging = opened(await startReceiver());
    hanging.answer = () => 'hang';
    const a = await ownClockOrg(s);
    const b = await ownClockOrg(s);
    await s.api('POST', '/webhooks', { key: a.api_key, body: { url: hanging.url } });
    await s.api('POST', '/accounts', { key: a.api_key, body: {} });
    // A's settle waits on its hanging receiver (3 s: account.created's POST, up to its timeout) ...
    const settling = s.control('POST', '/clock/settle', { organization_id: a.organization_id, max_ms: 1_000 });
    await sleep(200);
    // ... while B's advance, and the server's, go through at once.
    const t0 = Date.now();
    expect((await s.control('POST', '/clock/advance', { ms: 3_000, organization_id: b.organization_id })).status).toBe(200);
    expect((await s.control('POST', '/clock/advance', { ms: 3_000 })).status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(1_500);
    expect(hanging.received.length).toBeGreaterThan(0);
    await settling;
  });

  it('a realtime tenant clock beside a virtual server: it moves with wall time; a jump moves only it', async () => {
    const s = opened(await startTestSim());
    const t0 = await clockOf(s);
    const r = await ownClockOrg(s, { mode: 'realtime' });
    await sleep(200);
    expect(await clockOf(s, r.organization_id)).toBeGreaterThan(t0 + 100);
    await s.control('POST', '/clock/advance', { ms: 74 * 3_600_000, organization_id: r.organization_id });
    expect(await clockOf(s, r.organization_id)).toBeGreaterThan(t0 + 74 * 3_600_000);
    expect(await clockOf(s)).toBe(t0);
  });

  it("a trigger in an organization with its own clock moves only that organization's time", async () => {
    const s = opened(await startTestSim());
    const a = await ownClockOrg(s);
    const t0 = await clockOf(s);
    const trigger = TRIGGERS.find((t) => t.name === 'trade-reorg-out-leg')!;
    const run = await runTrigger(trigger, { base_url: s.base_url, api_key: a.api_key });
    expect(run.ok, run.error).toBe(true);
    expect(run.ended_sim_ms).toBeGreaterThan(t0 + 10_000);
    expect(await clockOf(s, a.organization_id)).toBe(run.ended_sim_ms);
    expect(await clockOf(s)).toBe(t0);
  });

  it('deleting drops the world: keys stop, it leaves the list, nothing is sent after the 200', async () => {
    const s = opened(await startTestSim());
    const rx = opened(await startReceiver());
    rx.answer = () => 500;
    const a = await ownClockOrg(s);
    // Another tenant with a clock of its own stays: keys are still routed by world after the delete.
    await ownClockOrg(s);
    await s.api('POST', '/webhooks', { key: a.api_key, body: { url: rx.url } });
    await s.api('POST', '/accounts', { key: a.api_key, body: {} });
    await s.control('POST', '/clock/advance', { ms: 10_000, organization_id: a.organization_id });
    expect(rx.received.length).toBeGreaterThan(0);
    expect((await s.control('DELETE', `/organizations/${a.organization_id}`)).status).toBe(200);
    const sent = rx.received.length;
    expect((await s.api('GET', '/accounts', { key: a.api_key })).status).toBe(401);
    expect(
      (await s.control('GET', '/organizations')).body.organizations.map((o: { organization_id: string }) => o.organization_id),
    ).not.toContain(a.organization_id);
    expect((await s.control('POST', '/clock/advance', { ms: 3_600_000, organization_id: a.organization_id })).status).toBe(404);
    await s.advance(3_600_000);
    await sleep(100);
    expect(rx.received.length).toBe(sent);
    expect(await s.invariants()).toMatchObject({ ok: true });
  });

  it('POST /_sim/clock/speed changes a realtime clock from now on, and is refused on a virtual one with nothing changed', async () => {
    const s = opened(await startTestSim());
    const before = (await s.control('GET', '/clock')).body.clock;
    const refused = await s.control('POST', '/clock/speed', { speed: 5 });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('clock_not_realtime');
    expect((await s.control('GET', '/clock')).body.clock).toEqual(before);
    expect((await s.control('POST', '/clock/speed', { speed: 0 })).body.error.code).toBe('invalid_parameter');
    const r = await ownClockOrg(s, { mode: 'realtime', speed: 0.001 });
    const slow = await clockOf(s, r.organization_id);
    const set = await s.control('POST', '/clock/speed', { speed: 100_000, organization_id: r.organization_id });
    expect(set.status).toBe(200);
    expect(set.body.clock).toMatchObject({ mode: 'realtime', speed: 100_000 });
    // At 100,000 sim ms per wall ms an hour passes in 36 ms of wall time; at 0.001 it would take 41 days.
    for (let i = 0; i < 100 && (await clockOf(s, r.organization_id)) < slow + 3_600_000; i++) await sleep(20);
    expect(await clockOf(s, r.organization_id)).toBeGreaterThanOrEqual(slow + 3_600_000);
    expect((await s.control('GET', `/clock?organization_id=${r.organization_id}`)).body.clock.speed).toBe(100_000);
    // The server's clock and its speed are untouched.
    expect((await s.control('GET', '/clock')).body.clock).toEqual(before);
  });

  it('a journal of tenants with their own clocks replays (verify)', async () => {
    const journal = join(mkdtempSync(join(tmpdir(), 'swapsim-orgclock-')), 'run.jsonl');
    const s = await startTestSim({ journal_path: journal });
    const rx = opened(await startReceiver());
    const a = await ownClockOrg(s);
    const r = await ownClockOrg(s, { mode: 'realtime', speed: 10 });
    expect((await s.control('POST', '/clock/speed', { speed: 20, organization_id: r.organization_id })).status).toBe(200);
    await s.api('POST', '/webhooks', { key: a.api_key, body: { url: rx.url } });
    for (const org of [a, r]) await s.api('POST', '/accounts', { key: org.api_key, body: {} });
    await s.control('POST', '/clock/advance', { ms: 10_000, organization_id: a.organization_id });
    await sleep(150);
    await s.api('GET', '/accounts', { key: r.api_key });
    await s.advance(5_000);
    await s.close();
    const report = await replayJournal(parseJournal(readFileSync(journal, 'utf8')), { verify: true });
    expect(report.mismatch).toBeNull();
    expect(report.diverged).toBeNull();
    expect(report.verified).toBe(9);
  });
});
