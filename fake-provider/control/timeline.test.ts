// GET /_sim/timeline over real HTTP: transitions, events, fault firings and webhook attempts of a real
// run as TimelineEntry rows, oldest first; the since/until window; entity and organization scoping; and
// the envelope for bad queries and unknown organizations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../testing/harness.ts';
import { startReceiver, type Receiver } from '../../scenarios/dsl/webhook-receiver.ts';
import { fund, readyAccount } from '../testing/flows.ts';
import type { TimelineEntry } from '../../reports/types.ts';

const ETH = 'native.evm:42161';
let sim: TestSim;
let receiver: Receiver;
let account_id: string;
let credit_id: string;
let other: { organization_id: string; api_key: string };
let other_account: string;

const timeline = async (query = ''): Promise<TimelineEntry[]> => {
  const r = await sim.control('GET', `/timeline${query}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.timeline;
};

beforeAll(async () => {
  sim = await startTestSim({ seed: 'timeline' });
  receiver = await startReceiver();
  const w = await sim.api('POST', '/webhooks', { body: { url: receiver.url } });
  receiver.secret = w.body.webhook.secret;
  // The first delivery attempt of every event is dropped: each event shows a failed and a later good attempt.
  await sim.control('POST', '/faults', {
    target: 'webhook',
    effect: { webhook: 'drop' },
    match: { event_type: 'deposit.verified' },
    times: 1,
  });
  account_id = await readyAccount(sim);
  credit_id = await fund(sim, account_id, ETH, '1000');
  other = await sim.newOrg();
  other_account = await readyAccount(sim, other.api_key);
});
afterAll(async () => {
  await sim.close();
  await receiver.close();
});

describe('GET /_sim/timeline', () => {
  it('lists transitions, events, fault firings and deliveries, oldest first, deposits under their own id', async () => {
    const all = await timeline();
    expect(all.map((e) => e.sim_ms)).toEqual([...all.map((e) => e.sim_ms)].sort((a, b) => a - b));
    expect(all).toContainEqual({
      sim_ms: expect.any(Number),
      entity_type: 'account',
      entity_id: account_id,
      kind: 'transition',
      to: 'active',
      detail: 'CREATE',
    });
    expect(all).toContainEqual(
      expect.objectContaining({ entity_type: 'account', entity_id: account_id, kind: 'event', event_type: 'account.created' }),
    );
    const deposit = all.find((e) => e.kind === 'transition' && e.entity_type === 'deposit' && e.to === 'verified')!;
    expect(deposit).toMatchObject({ from: 'pending', detail: 'CONFIRM' });
    const depositEvents = all.filter((e) => e.kind === 'event' && e.event_type?.startsWith('deposit.'));
    expect(depositEvents.map((e) => [e.entity_type, e.entity_id, e.event_type])).toEqual([
      ['deposit', deposit.entity_id, 'deposit.pending'],
      ['deposit', deposit.entity_id, 'deposit.verified'],
    ]);
    expect(all).toContainEqual(
      expect.objectContaining({ entity_type: 'credit', entity_id: credit_id, kind: 'event', event_type: 'credit.created' }),
    );
    const fault = all.filter((e) => e.kind === 'fault');
    expect(fault).toHaveLength(1);
    expect(fault[0]).toMatchObject({ entity_type: 'webhook', detail: expect.stringContaining('{"webhook":"drop"}') });
    const verifiedAttempts = all.filter((e) => e.kind === 'delivery' && e.event_type === 'deposit.verified');
    expect(verifiedAttempts.map((e) => e.ok)).toEqual([false, true]);
    expect(verifiedAttempts[0].detail).toMatch(/0 sent, drop/);
    expect(verifiedAttempts[0].sim_ms).toBeLessThan(verifiedAttempts[1].sim_ms);
  });

  it('keeps to the since_ms/until_ms window', async () => {
    const all = await timeline();
    const mid = all[Math.floor(all.length / 2)].sim_ms;
    const later = await timeline(`?since_ms=${mid}`);
    expect(later.length).toBeGreaterThan(0);
    expect(later.every((e) => e.sim_ms >= mid)).toBe(true);
    const earlier = await timeline(`?until_ms=${mid - 1}`);
    expect(earlier.length + later.length).toBe(all.length);
  });

  it('scopes to entities (exact) and to an organization (every entity its events name)', async () => {
    const credit = await timeline(`?entity_id=${credit_id}`);
    const deposit_id = (await timeline()).find((e) => e.entity_type === 'deposit')!.entity_id;
    // The credit's own rows, the events naming it (deposit.verified is the deposit's) and their deliveries.
    expect(new Set(credit.filter((e) => e.kind !== 'delivery').map((e) => e.entity_id))).toEqual(new Set([credit_id, deposit_id]));
    expect(
      credit.filter((e) => e.kind === 'delivery').every((e) => e.event_type === 'deposit.verified' || e.event_type === 'credit.created'),
    ).toBe(true);
    expect(credit.filter((e) => e.kind === 'transition').every((e) => e.entity_id === credit_id)).toBe(true);
    expect(credit.filter((e) => e.kind === 'event').map((e) => e.event_type)).toEqual(['deposit.verified', 'credit.created']);
    const mine = await timeline(`?organization_id=${[...sim.running.runtime.world.orgs.keys()][0]}`);
    const ids = new Set(mine.map((e) => e.entity_id));
    expect(ids.has(account_id) && ids.has(credit_id)).toBe(true);
    expect(ids.has(other_account)).toBe(false);
    expect(mine.some((e) => e.kind === 'transition' && e.entity_type === 'deposit')).toBe(true);
    expect(mine.some((e) => e.kind === 'transition' && e.entity_type === 'webhook_delivery')).toBe(true);
    const theirs = await timeline(`?organization_id=${other.organization_id}`);
    expect(new Set(theirs.map((e) => e.entity_id))).toEqual(new Set([other_account]));
  });

  it('answers the error envelope for a bad query or an unknown organization, and an empty list for an unknown entity', async () => {
    const bad = await sim.control('GET', '/timeline?since_ms=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', param: 'since_ms' });
    const unknown = await sim.control('GET', '/timeline?organization_id=org_nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'not_found', param: 'organization_id' });
    expect(await timeline('?entity_id=nobody')).toEqual([]);
  });
});
