// Budgets per tenant over a real server: strings the server refused are counted, never kept (over-long
// Idempotency-Keys, unknown query parameter names); conduct and idempotency memory stay under their byte budget
// per organization without touching another's; organizations and accounts are capped.
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, startTestSim, type TestSim } from './testing/harness.ts';
import { DEFAULT_PROFILE, type Profile } from './profile.ts';
import { idempotencyBytes } from './http/idempotency.ts';
import { conductBudget, conductOf } from './conduct/recorder.ts';
import { worldOf } from './worlds.ts';

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
