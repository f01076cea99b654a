// Every organization a world (worlds.ts), for organizations created without a clock: each lives in a world of its
// own whose clock follows the server's. A's fault rules, hanging receiver and delivery budget never reach B; the
// server clock (advance, settle, realtime ticks) moves both; a delete drops the world; unscoped calls keep their
// meaning; a journal of several such worlds replays byte for byte.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, startTestSim, type TestSim } from './testing/harness.ts';
import { startReceiver, type Receiver } from '../scenarios/dsl/webhook-receiver.ts';
import { parseJournal, replayJournal } from './replay/run.ts';
import { DEFAULT_PROFILE, type Profile } from './profile.ts';
import { worldOf } from './worlds.ts';
import { ARB_ETH } from './testing/fixtures/deposits.ts';

const opened = closeAfterEach(afterEach);
const RAISED = { reads: 100_000, writes: 100_000, indicative_rfqs: 1_000, firm_rfqs: 1_000 };
const HOUR = 3_600_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const own = async (opts: Parameters<typeof startTestSim>[0] = {}, profile: Partial<Profile> = {}): Promise<TestSim> =>
  opened(await startTestSim({ org_worlds: 'own', ...opts, profile: { ...DEFAULT_PROFILE, ...profile } }));
const tenant = (s: TestSim) => s.newOrg({ rate_limits: RAISED });
const now = (s: TestSim, org: { organization_id: string }) => worldOf(s.running.runtime, org.organization_id).sim.now_ms();

async function withWebhook(s: TestSim, key: string, rx: Receiver): Promise<void> {
  const w = await s.api('POST', '/webhooks', { key, body: { url: rx.url } });
  expect(w.status).toBe(200);
  rx.secret = w.body.webhook.secret;
}

describe('an organization created without a clock lives in a world of its own', () => {
  it("A's fault rules, hanging receiver and delivery budget do not reach B; an unscoped rule holds in both", async () => {
    // The server's bound on POSTs in flight is 1 (over every world): A's hanging POST holds it, yet B's lane is its
    // own, so B's first POST never waits and each next one follows B's own answered one.
    const s = await own({}, { webhook_timeout_ms: 1_000, webhook_max_in_flight_total: 1 });
    const [a, b] = [await tenant(s), await tenant(s)];
    const runtime = s.running.runtime;
    expect(runtime.worlds.get(a.organization_id)?.follows).toBe(true);
    expect(worldOf(runtime, a.organization_id)).not.toBe(worldOf(runtime, b.organization_id));
    expect(worldOf(runtime, a.organization_id)).not.toBe(runtime.world);

    // A fault scoped to A fires on A's requests only, and is listed in A's plan only.
    const rule = { target: 'http', effect: { http_status: 503 }, match: { method: 'GET', path: '/v1/accounts' } };
    expect((await s.control('POST', '/faults', { ...rule, organization_id: a.organization_id })).status).toBe(200);
    expect((await s.api('GET', '/accounts', { key: a.api_key })).status).toBe(503);
    expect((await s.api('GET', '/accounts', { key: b.api_key })).status).toBe(200);
    expect((await s.control('GET', `/faults?organization_id=${b.organization_id}`)).body.faults).toEqual([]);
    // Unscoped, a rule is the server's: it holds in every world that follows the server clock, as it did when they
    // shared one world, and `times` is one count for all of them.
    const unscoped = { target: 'http', effect: { http_status: 500 }, match: { method: 'GET', path: '/v1/assets' }, times: 1 };
    expect((await s.control('POST', '/faults', unscoped)).status).toBe(200);
    expect((await s.api('GET', '/assets', { key: b.api_key })).status).toBe(500);
    expect((await s.api('GET', '/assets', { key: a.api_key })).status).toBe(200);
    expect((await s.control('GET', '/faults')).body.fired).toHaveLength(1);

    // A's receiver hangs; B has two accounts (two lanes, two POSTs at once). An unscoped advance runs both worlds
    // at once: B's deliveries all arrive while A's first POST is still waiting out its timeout.
    const hanging = opened(await startReceiver());
    hanging.answer = () => 'hang';
    const rx = opened(await startReceiver());
    await withWebhook(s, a.api_key, hanging);
    await withWebhook(s, b.api_key, rx);
    for (const [key, n] of [
      [a.api_key, 1],
      [b.api_key, 2],
    ] as const)
      for (let i = 0; i < n; i++) expect((await s.api('POST', '/accounts', { key, body: {} })).status).toBe(200);
    await s.advance(0);
    const accounts = new Set(rx.received.map((r) => r.body.account_id));
    expect(accounts.size).toBe(2);
    const timedOut_ms = hanging.received[0].received_at_ms + 1_000;
    const late = rx.received.filter((r) => r.received_at_ms >= timedOut_ms);
    expect(late).toEqual([]);
    expect(rx.received.every((r) => r.answered === 200 && r.signature_valid)).toBe(true);
  });

  it('the server clock moves every follower: advance and settle (virtual), and a realtime server ticks', async () => {
    const s = await own();
    const [a, b] = [await tenant(s), await tenant(s)];
    const server = s.running.runtime.world.sim;
    await s.advance(HOUR);
    expect([now(s, a), now(s, b)]).toEqual([server.now_ms(), server.now_ms()]);
    // A's account derives its wallets on A's scheduler; a settle runs until no world has work left.
    expect((await s.api('POST', '/accounts', { key: a.api_key, body: {} })).status).toBe(200);
    const settled = await s.control('POST', '/clock/settle', {});
    expect(settled.body.pending).toBe(0);
    expect(settled.body.ran.ran).toBeGreaterThan(0);
    expect(worldOf(s.running.runtime, a.organization_id).sim.scheduler.pending()).toBe(0);
    expect([now(s, a), now(s, b)]).toEqual([server.now_ms(), server.now_ms()]);
    // A follower has no clock to move alone: a scoped clock call is refused, nothing moves.
    const before = server.now_ms();
    const scoped = await s.control('POST', '/clock/advance', { ms: 1_000, organization_id: a.organization_id });
    expect(scoped.status).toBe(400);
    expect(scoped.body.error.param).toBe('organization_id');
    expect([now(s, a), server.now_ms()]).toEqual([before, before]);

    const rt = await own({ clock: 'realtime' });
    const c = await tenant(rt);
    const from_ms = now(rt, c);
    await sleep(200);
    const rs = rt.running.runtime.world.sim;
    expect(now(rt, c)).toBeGreaterThan(from_ms + 100);
    expect(Math.abs(now(rt, c) - rs.now_ms())).toBeLessThanOrEqual(100);
  });

  it('deleting one drops its world: nothing of it is sent or scheduled after the 200, the other goes on', async () => {
    const s = await own();
    const [a, b] = [await tenant(s), await tenant(s)];
    const rx = opened(await startReceiver());
    rx.answer = () => 500;
    const other = opened(await startReceiver());
    await withWebhook(s, a.api_key, rx);
    await withWebhook(s, b.api_key, other);
    for (const key of [a.api_key, b.api_key]) expect((await s.api('POST', '/accounts', { key, body: {} })).status).toBe(200);
    await s.advance(0);
    const gone = worldOf(s.running.runtime, a.organization_id);
    expect(gone.sim.scheduler.pending()).toBeGreaterThan(0);
    expect(rx.received.length).toBeGreaterThan(0);
    expect((await s.control('DELETE', `/organizations/${a.organization_id}`)).status).toBe(200);
    const sent = rx.received.length;
    expect(s.running.runtime.worlds.has(a.organization_id)).toBe(false);
    await s.advance(80 * HOUR);
    // Its retries never go out and its world never moves again; its key is gone; B's deliveries went on.
    expect(rx.received.length).toBe(sent);
    expect(gone.sim.now_ms()).toBeLessThan(s.running.runtime.world.sim.now_ms());
    expect((await s.api('GET', '/accounts', { key: a.api_key })).status).toBe(401);
    expect(other.received.length).toBeGreaterThan(0);
    expect((await s.invariants()).violations).toEqual([]);
  });

  it('unscoped calls keep their meaning: market and screening for every follower, calls naming an entity routed to it', async () => {
    const s = await own();
    const a = await tenant(s);
    expect((await s.control('PUT', '/market/prices', { prices: { [ARB_ETH]: '1234.5' } })).status).toBe(200);
    const b = await tenant(s);
    // A (there when it was set) and B (created after) both quote from the server's price.
    for (const org of [a, b])
      expect((await s.control('GET', `/market/prices?organization_id=${org.organization_id}`)).body.prices[ARB_ETH]).toBe('1234.5');
    // A deposit address of B's: the unscoped POST /_sim/deposits lands in B's world.
    const acct = (await s.api('POST', '/accounts', { key: b.api_key, body: {} })).body.account.account_id;
    await s.advance(10_000);
    const da = (await s.api('POST', `/accounts/${acct}/deposit-addresses`, { key: b.api_key, body: { asset_key: ARB_ETH } })).body
      .deposit_address;
    expect((await s.control('POST', '/deposits', { deposit_address_id: da.deposit_address_id, atoms: '1000' })).status).toBe(200);
    expect((await s.control('GET', `/deposits?account_id=${acct}`)).body.deposits).toHaveLength(1);
    // The end user's keyless public calls name the account: its world answers (the server's knows no such account).
    const pub = await s.api('POST', '/public/initiate-export', { key: null, body: { account_id: acct } });
    expect(pub.body.error?.code ?? 'none').not.toBe('account_not_found');
    // Reads over every tenant gather every world's rows.
    const conduct = (await s.control('GET', '/conduct')).body.conduct.map((c: { api_key: string }) => c.api_key);
    expect(conduct).toEqual(expect.arrayContaining([`…${b.api_key.slice(-4)}`]));
    expect((await s.control('GET', '/deposits')).body.deposits).toHaveLength(1);
  });

  it("a follower's snapshot restores its world alone; the server clock's next move brings it level", async () => {
    const s = await own();
    const [a, b] = [await tenant(s), await tenant(s)];
    const q = `?organization_id=${a.organization_id}`;
    const snap = await s.control('POST', `/snapshots${q}`);
    expect(snap.status).toBe(200);
    for (const org of [a, b]) expect((await s.api('POST', '/accounts', { key: org.api_key, body: {} })).status).toBe(200);
    await s.advance(10_000);
    expect((await s.control('POST', `/snapshots/${snap.body.snapshot_id}/restore${q}`)).status).toBe(200);
    expect((await s.api('GET', '/accounts', { key: a.api_key })).body.accounts).toHaveLength(0);
    expect((await s.api('GET', '/accounts', { key: b.api_key })).body.accounts).toHaveLength(1);
    expect(now(s, a)).toBeLessThan(s.running.runtime.world.sim.now_ms());
    await s.advance(1_000);
    expect(now(s, a)).toBe(s.running.runtime.world.sim.now_ms());
  });

  it('a journal of a run with several follower worlds replays byte for byte (verify)', async () => {
    const journal = join(mkdtempSync(join(tmpdir(), 'swapsim-worlds-')), 'run.jsonl');
    const s = await own({ journal_path: journal });
    const rx = opened(await startReceiver());
    const orgs = [await tenant(s), await tenant(s), await tenant(s)];
    await withWebhook(s, orgs[0].api_key, rx);
    // Half the reads fail: each world draws from its own stream, so the order of tenants never shifts another's.
    await s.control('POST', '/faults', { target: 'http', effect: { http_status: 503 }, match: { path: '/v1/accounts' }, probability: 0.5 });
    for (const org of orgs) for (let i = 0; i < 3; i++) await s.api('POST', '/accounts', { key: org.api_key, body: {} });
    await s.advance(5_000);
    for (const org of orgs) await s.api('GET', '/accounts', { key: org.api_key });
    await s.control('DELETE', `/organizations/${orgs[2].organization_id}`);
    await s.control('POST', '/clock/settle', { max_ms: HOUR });
    await s.close();
    const report = await replayJournal(parseJournal(readFileSync(journal, 'utf8')), { verify: true });
    expect(report.mismatch).toBeNull();
    expect(report.diverged).toBeNull();
    expect(report.verified).toBeGreaterThan(15);
  });

  it('a realtime journal with follower worlds replays (their moves come from the server clock lines)', async () => {
    const journal = join(mkdtempSync(join(tmpdir(), 'swapsim-worlds-rt-')), 'run.jsonl');
    const s = await own({ clock: 'realtime', journal_path: journal }, {});
    const orgs = [await tenant(s), await tenant(s)];
    for (const org of orgs) await s.api('POST', '/accounts', { key: org.api_key, body: {} });
    await sleep(150);
    for (const org of orgs) await s.api('GET', '/accounts', { key: org.api_key });
    await s.close();
    const report = await replayJournal(parseJournal(readFileSync(journal, 'utf8')), { verify: true });
    expect(report.mismatch).toBeNull();
    expect(report.diverged).toBeNull();
  });
});
