// DELETE /_sim/organizations/{id} frees everything the organization owns: entities in every store, their
// events, deliveries, transitions, idempotency and conduct records, and the lifecycle work still scheduled
// (counted, not timed); another organization's counts are unchanged and it keeps working; invariants stay green.
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, startTestSim, type TestSim } from './testing/harness.ts';
import { startReceiver } from '../scenarios/dsl/webhook-receiver.ts';
import { destination, firmQuote, fund, readyAccount } from './testing/flows.ts';
import { accountStore } from './resources/accounts/model.ts';
import { creditStore } from './resources/credits/model.ts';
import { depositStore } from './resources/deposits/model.ts';
import { depositAddressStore } from './resources/deposits/addresses.ts';
import { tradeStore } from './resources/trades/model.ts';
import { rfqStore } from './resources/rfqs/model.ts';
import { destinationStore } from './resources/destinations/model.ts';
import { webhookStore } from './resources/webhooks/model.ts';
import { exportStore } from './resources/exports/model.ts';
import { symbolStore } from './resources/assets/model.ts';
import { emailStore } from './emails.ts';
import { idempotencyRecords } from './http/idempotency.ts';
import { conductOf } from './conduct/index.ts';
import type { World } from './world.ts';

const opened = closeAfterEach(afterEach);
const ETH = 'native.evm:42161';
const USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';
const ONE_ETH = '1000000000000000000';
const HALF_ETH = '500000000000000000';

/** What the world holds for one organization, store by store (0 everywhere once it is deleted). */
function retained(world: World, org_id: string, api_key: string, ids = new Set<string>()): Record<string, number> {
  const accounts = new Set(
    accountStore(world)
      .list.filter((a) => a.org_id === org_id)
      .map((a) => a.account_id),
  );
  const count = <T>(items: Iterable<T>, mine: (t: T) => boolean, id: (t: T) => string): number => {
    let n = 0;
    for (const t of items) {
      if (!mine(t)) continue;
      n++;
      ids.add(id(t));
    }
    return n;
  };
  const out: Record<string, number> = {
    accounts: count(
      accountStore(world).byId.values(),
      (a) => a.org_id === org_id,
      (a) => a.account_id,
    ),
    credits: count(
      creditStore(world).list,
      (c) => c.org_id === org_id,
      (c) => c.credit_id,
    ),
    credit_ledgers: [...creditStore(world).accounts.keys()].filter((a) => accounts.has(a)).length,
    deposits: count(
      depositStore(world).list,
      (d) => d.address.org_id === org_id,
      (d) => d.deposit_id,
    ),
    deposit_addresses: count(
      depositAddressStore(world).byId.values(),
      (d) => d.org_id === org_id,
      (d) => d.deposit_address_id,
    ),
    trades: count(
      tradeStore(world).list,
      (t) => accounts.has(t.swap.account_id),
      (t) => t.trade_id,
    ),
    rfqs: count(
      rfqStore(world).rfqs.values(),
      (r) => r.org_id === org_id,
      (r) => r.rfq_id,
    ),
    quotes: count(
      rfqStore(world).quotes.values(),
      (q) => q.rfq.org_id === org_id,
      (q) => q.quote_id,
    ),
    destinations: count(
      destinationStore(world).list,
      (d) => d.org_id === org_id,
      (d) => d.destination_id,
    ),
    webhooks: webhookStore(world).list.filter((w) => w.org_id === org_id).length,
    deliveries: count(
      webhookStore(world).deliveryList,
      (d) => d.org_id === org_id,
      (d) => d.delivery_id,
    ),
    export_otps: [...exportStore(world).otps.keys()].filter((a) => accounts.has(a)).length,
    export_windows: [...exportStore(world).initiations.keys()].filter((a) => accounts.has(a)).length,
    emails: emailStore(world).filter((e) => accounts.has(e.account_id)).length,
    symbols: symbolStore(world).has(org_id) ? 1 : 0,
    events: world.events.all.filter((e) => e.org_id === org_id).length,
    conduct_requests: conductOf(world, api_key).requests.length,
  };
  // Counted over the ids given too: after the delete, the entities named before it.
  out.transitions = world.transitions.records.filter((r) => ids.has(r.entity_id)).length;
  return out;
}

/** One organization's traffic: a funded account, a settled trade, an RFQ left open, a webhook with deliveries. */
async function traffic(s: TestSim, key: string, receiver_url: string): Promise<{ account_id: string }> {
  expect((await s.api('POST', '/webhooks', { key, body: { url: receiver_url } })).status).toBe(200);
  const account_id = await readyAccount(s, key);
  const credit_id = await fund(s, account_id, ETH, ONE_ETH, key);
  const destination_id = await destination(s, account_id, USDC, key);
  const { quote_id } = await firmQuote(s, { account_id, credit_id, destination_id, from: ETH, to: USDC, amount_in_atoms: HALF_ETH, key });
  expect((await s.api('POST', `/quotes/${quote_id}/accept`, { key, body: { slippage_bps: '100' } })).status).toBe(200);
  await s.settle();
  expect((await s.api('PUT', '/symbols', { key, body: { symbols: [{ symbol: 'MYETH', asset_key: ETH }] } })).status).toBe(200);
  expect((await s.api('PATCH', `/accounts/${account_id}`, { key, body: { email: 'u@example.com' } })).status).toBe(200);
  expect((await s.api('POST', '/public/initiate-export', { key: null, body: { account_id } })).status).toBeLessThan(300);
  return { account_id };
}

describe('DELETE /_sim/organizations/{id} frees what the organization owns', () => {
  it('every store drops the org (counted), the other org is untouched and keeps working, invariants stay green', async () => {
    // Both in the server's world (`org_worlds: 'shared'`): what a delete frees inside a world another org shares.
    const s = opened(await startTestSim({ org_worlds: 'shared' }));
    const rx = opened(await startReceiver());
    const world = s.running.runtime.world;
    const gone = await s.newOrg({ rate_limits: { reads: 100_000, writes: 100_000, indicative_rfqs: 100_000, firm_rfqs: 100_000 } });
    const kept = await s.newOrg({ rate_limits: { reads: 100_000, writes: 100_000, indicative_rfqs: 100_000, firm_rfqs: 100_000 } });
    const g = await traffic(s, gone.api_key, rx.url);
    const k = await traffic(s, kept.api_key, rx.url);
    // Work still scheduled for the org: a deposit confirming, an RFQ solving, wallets being derived.
    const da = (await s.api('POST', `/accounts/${g.account_id}/deposit-addresses`, { key: gone.api_key, body: { asset_key: ETH } })).body
      .deposit_address;
    expect((await s.control('POST', '/deposits', { deposit_address_id: da.deposit_address_id, atoms: ONE_ETH })).status).toBe(200);
    expect((await s.api('POST', '/accounts', { key: gone.api_key, body: {} })).status).toBe(200);
    await s.advance(1);

    const goneIds = new Set<string>();
    const before = retained(world, gone.organization_id, gone.api_key, goneIds);
    const keptBefore = retained(world, kept.organization_id, kept.api_key);
    for (const store of [
      'accounts',
      'credits',
      'credit_ledgers',
      'deposits',
      'deposit_addresses',
      'trades',
      'rfqs',
      'quotes',
      'destinations',
      'webhooks',
      'deliveries',
      'export_otps',
      'export_windows',
      'emails',
      'symbols',
      'events',
      'transitions',
      'conduct_requests',
    ]) {
      expect(before[store], store).toBeGreaterThan(0);
    }
    const idemBefore = idempotencyRecords(world);
    const pendingBefore = world.sim.scheduler.pending();

    expect((await s.control('DELETE', `/organizations/${gone.organization_id}`)).status).toBe(200);
    const after = retained(world, gone.organization_id, gone.api_key, goneIds);
    expect(after).toEqual(Object.fromEntries(Object.keys(before).map((key) => [key, 0])));
    expect(retained(world, kept.organization_id, kept.api_key)).toEqual(keptBefore);
    expect(idempotencyRecords(world)).toBeLessThan(idemBefore);
    // Its scheduled work is cancelled, not left to run against entities no store holds.
    expect(world.sim.scheduler.pending()).toBeLessThan(pendingBefore);

    // Time passes: nothing of the deleted org comes back (no late event, credit or transition).
    await s.settle();
    expect(retained(world, gone.organization_id, gone.api_key, goneIds)).toEqual(after);
    expect((await s.invariants()).violations).toEqual([]);

    // The other org still trades, reads its feed and gets its deliveries.
    const credit_id = await fund(s, k.account_id, ETH, ONE_ETH, kept.api_key);
    const destination_id = await destination(s, k.account_id, USDC, kept.api_key);
    const { quote_id } = await firmQuote(s, {
      account_id: k.account_id,
      credit_id,
      destination_id,
      from: ETH,
      to: USDC,
      amount_in_atoms: HALF_ETH,
      key: kept.api_key,
    });
    expect((await s.api('POST', `/quotes/${quote_id}/accept`, { key: kept.api_key, body: { slippage_bps: '100' } })).status).toBe(200);
    await s.settle();
    const feed = await s.api('GET', '/events?limit=100', { key: kept.api_key });
    expect(feed.status).toBe(200);
    expect(feed.body.events.length).toBeGreaterThan(keptBefore.events > 100 ? 99 : keptBefore.events);
    expect(retained(world, kept.organization_id, kept.api_key).trades).toBe(keptBefore.trades + 1);
    expect((await s.invariants()).violations).toEqual([]);
    expect(s.running.runtime.bugs).toEqual([]);
  });
});
