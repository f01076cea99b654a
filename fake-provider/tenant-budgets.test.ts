// Budgets per tenant over a real server: strings the server refused are counted, never kept (over-long
// Idempotency-Keys, unknown query parameter names); conduct and idempotency memory stay under their byte budget
// per organization without touching another's; organizations and accounts are capped; webhook POSTs in flight over
// every organization's world count against one `webhook_max_in_flight_total`, freed by a delete or a reset.
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, startTestSim, type TestSim } from './testing/harness.ts';
import { DEFAULT_PROFILE, type Profile } from './profile.ts';
import { idempotencyBytes } from './http/idempotency.ts';
import { conductBudget, conductOf } from './conduct/recorder.ts';
import { worldOf } from './worlds.ts';
import { publish } from './engine/index.ts';
import { startReceiver, type Receiver } from '../scenarios/dsl/webhook-receiver.ts';

const opened = closeAfterEach(afterEach);
const sim = async (profile: Partial<Profile> = {}): Promise<TestSim> =>
  opened(await startTestSim({ profile: { ...DEFAULT_PROFILE, ...profile } }));
const fast = { rate_limits: { reads: 10_000, writes: 10_000 } };

describe('conduct memory per organization', () => {
  it('an over-long Idempotency-Key is refused 400 and counted, never kept', async () => {
    const s = await sim();
    const org = await s.newOrg(fast);
    for (let i = 0; i < 20; i++) {
      const r = await s.api('POST', '/accounts', { key: org.api_key, idem: `${i}-${'k'.repeat(8_000)}`, body: {} });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe('Idempotency-Key');
    }
    const world = worldOf(s.running.runtime, org.organization_id);
    const budget = conductBudget(world, org.organization_id);
    expect(budget.long_idempotency_keys).toBe(20);
    // 20 keys of 8,000 characters would be 320 KB as UTF-16; what is kept is the requests' own small strings.
    expect(budget.bytes).toBeLessThan(20 * 1_000);
    expect(conductOf(world, org.api_key).requests.every((r) => r.idempotency_key === null)).toBe(true);
  });

  it('query parameter names no route knows are counted, never kept', async () => {
    const s = await sim();
    const org = await s.newOrg(fast);
    for (let i = 0; i < 2; i++) await s.api('POST', '/accounts', { key: org.api_key, body: {} });
    for (let i = 0; i < 20; i++) {
      // A first page that says has_more is remembered (to catch a client that ignores it): by its known filters only.
      const r = await s.api('GET', `/accounts?limit=1&x${i}${'q'.repeat(4_000)}=1`, { key: org.api_key });
      expect(r.body.has_more).toBe(true);
    }
    const budget = conductBudget(worldOf(s.running.runtime, org.organization_id), org.organization_id);
    expect(budget.unknown_query_params).toBe(20);
    expect(budget.bytes).toBeLessThan(20 * 1_000);
  });

  it('an organization stays under conduct_max_bytes_per_org; another organization keeps its records', async () => {
    const s = await sim({ conduct_max_bytes_per_org: 32 * 1024 });
    const noisy = await s.newOrg(fast);
    const quiet = await s.newOrg(fast);
    await s.api('GET', '/accounts', { key: quiet.api_key });
    for (let i = 0; i < 120; i++) {
      // Accepted 255-character keys on a cheap write (404): each is kept in the key's record until the budget trims it.
      await s.api('POST', '/accounts/acct_nobody/deposit-addresses', {
        key: noisy.api_key,
        idem: `${i}`.padEnd(255, 'z'),
        body: { asset_key: 'btc' },
      });
    }
    const world = worldOf(s.running.runtime, noisy.organization_id);
    const bytes = conductBudget(world, noisy.organization_id).bytes;
    expect(bytes).toBeGreaterThan(8 * 1024);
    expect(bytes).toBeLessThanOrEqual(32 * 1024);
    expect(conductOf(world, noisy.api_key).requests.length).toBeGreaterThan(0);
    expect(conductOf(worldOf(s.running.runtime, quiet.organization_id), quiet.api_key).requests).toHaveLength(1);
  });
});

describe('idempotency memory per organization', () => {
  it('an organization stays under idempotency_max_bytes_per_org, oldest first; another keeps its records', async () => {
    const s = await sim({ idempotency_max_bytes_per_org: 8 * 1024 });
    const noisy = await s.newOrg(fast);
    const quiet = await s.newOrg(fast);
    const kept = await s.api('POST', '/accounts/acct_nobody/deposit-addresses', {
      key: quiet.api_key,
      idem: 'quiet-1',
      body: { asset_key: 'btc' },
    });
    for (let i = 0; i < 80; i++)
      await s.api('POST', '/accounts/acct_nobody/deposit-addresses', {
        key: noisy.api_key,
        idem: `noisy-${i}`,
        body: { asset_key: 'btc' },
      });
    const world = worldOf(s.running.runtime, noisy.organization_id);
    expect(idempotencyBytes(world, noisy.organization_id)).toBeLessThanOrEqual(8 * 1024);
    expect(idempotencyBytes(world, noisy.organization_id)).toBeGreaterThan(4 * 1024);
    // The noisy tenant's oldest key is forgotten (a different payload is no conflict now); its newest is kept.
    expect(
      (await s.api('POST', '/accounts/acct_other/deposit-addresses', { key: noisy.api_key, idem: 'noisy-0', body: { asset_key: 'btc' } }))
        .status,
    ).toBe(404);
    expect(
      (await s.api('POST', '/accounts/acct_other/deposit-addresses', { key: noisy.api_key, idem: 'noisy-79', body: { asset_key: 'btc' } }))
        .status,
    ).toBe(409);
    // The quiet tenant's record is untouched: the same key answers the same request id.
    const again = await s.api('POST', '/accounts/acct_nobody/deposit-addresses', {
      key: quiet.api_key,
      idem: 'quiet-1',
      body: { asset_key: 'btc' },
    });
    expect(again.body.request_id).toBe(kept.body.request_id);
  });
});

describe('caps', () => {
  it('max_organizations: past it 403 quota_exceeded; a delete frees a place', async () => {
    const s = await sim({ max_organizations: 3 });
    const a = await s.newOrg();
    await s.newOrg();
    const refused = await s.control('POST', '/organizations', {});
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('quota_exceeded');
    expect((await s.control('GET', '/organizations')).body.organizations).toHaveLength(3);
    expect((await s.control('DELETE', `/organizations/${a.organization_id}`)).status).toBe(200);
    expect((await s.control('POST', '/organizations', {})).status).toBe(200);
  });

  it('org_max_accounts: past it POST /accounts is 403 quota_exceeded, for that organization only', async () => {
    const s = await sim({ org_max_accounts: 2 });
    const org = await s.newOrg(fast);
    for (let i = 0; i < 2; i++) expect((await s.api('POST', '/accounts', { key: org.api_key, body: {} })).status).toBe(200);
    const refused = await s.api('POST', '/accounts', { key: org.api_key, body: {} });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('quota_exceeded');
    expect((await s.api('GET', '/accounts', { key: org.api_key })).body.accounts).toHaveLength(2);
    expect((await s.api('POST', '/accounts', { body: {} })).status).toBe(200);
  });
});

describe('webhook POSTs in flight over the server', () => {
  const BOUND = 2;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const until = async (cond: () => boolean, ms = 5_000): Promise<boolean> => {
    for (let waited = 0; !cond() && waited < ms; waited += 20) await sleep(20);
    return cond();
  };
  // Realtime, each organization in a world of its own following the server clock: nothing waits on a hanging POST,
  // and the receivers' counts are what is in flight (a hanging receiver answers nothing; the timeout is far off).
  const server = async (): Promise<TestSim> =>
    opened(
      await startTestSim({
        org_worlds: 'own',
        clock: 'realtime',
        profile: { ...DEFAULT_PROFILE, webhook_timeout_ms: 20_000, webhook_max_in_flight_total: BOUND },
      }),
    );
  const receiver = async (hang: boolean): Promise<Receiver> => {
    const rx = opened(await startReceiver());
    if (hang) rx.answer = () => 'hang';
    return rx;
  };
  /** An organization with a webhook to `rx` and one delivery due now on each of `accounts` accounts. */
  const tenantSending = async (s: TestSim, rx: Receiver, accounts: number) => {
    const org = await s.newOrg(fast);
    const w = await s.api('POST', '/webhooks', { key: org.api_key, body: { url: rx.url } });
    expect(w.status).toBe(200);
    rx.secret = w.body.webhook.secret;
    const world = worldOf(s.running.runtime, org.organization_id);
    expect(world).not.toBe(s.running.runtime.world);
    for (let i = 0; i < accounts; i++) publish(world, org.organization_id, `acct_${i}`, 'test.ping', { i });
    return org;
  };

  it("three hanging tenants' worlds hold at most the bound plus one POST each; a bystander's first POST goes at once", async () => {
    const s = await server();
    const bound = s.running.runtime.webhookBound;
    const hanging = [await receiver(true), await receiver(true), await receiver(true)];
    // Four accounts each: a lane alone may run up to `webhook_max_in_flight` (8) of them at once.
    for (const rx of hanging) await tenantSending(s, rx, 4);
    const out = () => hanging.reduce((n, rx) => n + rx.received.length, 0);
    expect(await until(() => hanging.every((rx) => rx.received.length >= 1))).toBe(true);
    // Past the bound, only each organization's first POST went beyond it; per-world bounds would let 3 x 2 out.
    await sleep(400);
    expect(out()).toBeLessThanOrEqual(BOUND + hanging.length);
    expect(out()).toBeGreaterThanOrEqual(hanging.length);
    expect(bound.in_flight).toBe(out());
    expect(bound.starved.length).toBeGreaterThan(0);

    const fine = await receiver(false);
    const t0 = Date.now();
    await tenantSending(s, fine, 1);
    expect(await until(() => fine.received.length === 1)).toBe(true);
    // Long before any hanging POST frees a slot (20 s): its first POST never waits for the bound.
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(fine.received[0]!.answered).toBe(200);
    expect(out()).toBeLessThanOrEqual(BOUND + hanging.length);
  });

  it("a deleted tenant's slots go to a waiting tenant at once; a reset leaves no count behind", async () => {
    const s = await server();
    const bound = s.running.runtime.webhookBound;
    const [rxA, rxB] = [await receiver(true), await receiver(true)];
    const a = await tenantSending(s, rxA, 3);
    expect(await until(() => rxA.received.length === BOUND)).toBe(true);
    await tenantSending(s, rxB, 3);
    expect(await until(() => rxB.received.length === 1)).toBe(true);
    await sleep(200);
    // A holds the bound; B's first went past it, its second waits for a slot.
    expect([rxA.received.length, rxB.received.length, bound.in_flight]).toEqual([BOUND, 1, BOUND + 1]);

    expect((await s.control('DELETE', `/organizations/${a.organization_id}`)).status).toBe(200);
    // A's two POSTs were aborted and their slots freed with the 200: B's second goes now, not in 20 s.
    expect(await until(() => rxB.received.length === 2, 3_000)).toBe(true);
    await sleep(200);
    expect([rxA.received.length, rxB.received.length, bound.in_flight]).toEqual([BOUND, 2, BOUND]);
    // Only B's lane waits now (for its third): nothing of A's world is left on the server's waiting list.
    expect(bound.starved.length).toBe(1);

    expect((await s.control('POST', '/reset', {})).status).toBe(200);
    expect([bound.in_flight, bound.starved.length]).toEqual([0, 0]);
    // A tenant after the reset has the whole bound: its first POST and one more, nothing held by what went.
    const rxC = await receiver(true);
    await tenantSending(s, rxC, 3);
    expect(await until(() => rxC.received.length === BOUND)).toBe(true);
    await sleep(200);
    expect([rxC.received.length, bound.in_flight]).toEqual([BOUND, BOUND]);
  });

  it("a world restored from a snapshot counts against the server's bound, as the world it replaced did", async () => {
    const s = await server();
    const bound = s.running.runtime.webhookBound;
    // Taken before the server's world had any webhook: the restored copy makes its outbox afresh.
    const snap = await s.control('POST', '/snapshots');
    expect(snap.status).toBe(200);
    expect((await s.control('POST', `/snapshots/${snap.body.snapshot.snapshot_id}/restore`)).status).toBe(200);
    const rx = await receiver(true);
    const w = await s.api('POST', '/webhooks', { body: { url: rx.url } });
    expect(w.status).toBe(200);
    // The default key's organization lives in the server's world.
    const world = s.running.runtime.world;
    const [org_id] = world.orgs.keys();
    for (let i = 0; i < 3; i++) publish(world, org_id!, `acct_${i}`, 'test.ping', { i });
    expect(await until(() => rx.received.length === BOUND)).toBe(true);
    await sleep(200);
    expect([rx.received.length, bound.in_flight]).toEqual([BOUND, BOUND]);
  });
});
