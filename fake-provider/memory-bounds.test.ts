// Memory stays bounded under any traffic: idempotency records expire on the sim clock and are swept, and an
// organization keeps at most idempotency_max_records; the conduct recorder keeps bounded windows per key.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from './testing/harness.ts';
import { DEFAULT_PROFILE } from './profile.ts';
import { idempotencyRecords } from './http/idempotency.ts';
import { CONDUCT_WINDOW, conductSizes, recordRequest } from './conduct/recorder.ts';

const open: TestSim[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
async function sim(profile: Partial<typeof DEFAULT_PROFILE>): Promise<TestSim> {
  const s = await startTestSim({ profile: { ...DEFAULT_PROFILE, ...profile } });
  open.push(s);
  return s;
}

describe('idempotency records', () => {
  it('expire after the retention on the sim clock and are swept', async () => {
    const s = await sim({ idempotency_retention_ms: 60_000 });
    const world = s.running.runtime.world;
    for (let i = 0; i < 5; i++) expect((await s.api('POST', '/accounts', { idem: `old-${i}`, body: { label: 'a' } })).status).toBe(200);
    expect(idempotencyRecords(world)).toBe(5);
    // Within the retention the key still answers the same (and refuses another payload).
    expect((await s.api('POST', '/accounts', { idem: 'old-0', body: { label: 'other' } })).status).toBe(409);
    await s.advance(60_001);
    expect((await s.api('POST', '/accounts', { idem: 'new-0', body: { label: 'b' } })).status).toBe(200);
    expect(idempotencyRecords(s.running.runtime.world)).toBe(1);
    expect((await s.api('POST', '/accounts', { idem: 'old-0', body: { label: 'other' } })).status).toBe(200);
  });

  it('an organization keeps at most idempotency_max_records, its oldest going first', async () => {
    const s = await sim({ idempotency_max_records: 5 });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await s.api('POST', '/accounts', { idem: `k-${i}`, body: { label: 'a' } });
      expect(r.status).toBe(200);
      ids.push(r.body.account.account_id);
    }
    expect(idempotencyRecords(s.running.runtime.world)).toBe(5);
    expect((await s.api('POST', '/accounts', { idem: 'k-11', body: { label: 'changed' } })).status).toBe(409);
    expect((await s.api('POST', '/accounts', { idem: 'k-0', body: { label: 'changed' } })).status).toBe(200);
    // The same payload again after its key was evicted runs the write again: the profile allows it, so the
    // oracle's idempotency ledger must not call it a replay that ran twice.
    const again = await s.api('POST', '/accounts', { idem: 'k-1', body: { label: 'a' } });
    expect(again.status).toBe(200);
    expect(again.body.account.account_id).not.toBe(ids[1]);
    expect(await s.invariants()).toMatchObject({ ok: true, violations: [] });
  });
});

describe('conduct recorder', () => {
  it('keeps bounded windows per key whatever a client sends', async () => {
    const s = await sim({});
    const world = s.running.runtime.world;
    for (let i = 0; i < 3 * CONDUCT_WINDOW; i++) {
      recordRequest(world, 'sk_fresh_keys', {
        request_id: `req_${i}`,
        method: 'POST',
        path: `/accounts/acct_${i}/destinations`,
        route_path: '/accounts/:account_id/destinations',
        query: {},
        body: { i },
        idempotency_key: `fresh-${i}`,
        status: i % 2 === 0 ? 503 : 200,
        reply_body: {},
        headers: undefined,
        error_code: null,
        lost: false,
      });
      recordRequest(world, 'sk_fresh_keys', {
        request_id: `req_l${i}`,
        method: 'GET',
        path: `/accounts/acct_${i}/credits`,
        route_path: '/accounts/:account_id/credits',
        query: {},
        body: undefined,
        idempotency_key: null,
        status: 200,
        reply_body: { credits: [], has_more: true, next_cursor: `c${i}` },
        headers: undefined,
        error_code: null,
        lost: false,
      });
    }
    const sizes = conductSizes(world, 'sk_fresh_keys');
    expect(sizes.requests).toBeLessThan(2_000);
    expect(sizes.findings).toBeLessThan(2 * CONDUCT_WINDOW);
    expect(sizes.largest_map).toBeLessThan(2 * CONDUCT_WINDOW);
  });
});
