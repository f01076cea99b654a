// Profile `webhook_delivery_order` over real HTTP: a real receiver sees deliveries out of created order for
// some seed (across accounts; with best_effort also within one), every event is still delivered once, each
// account's order stays within the spec's best effort, the event feed is byte-identical, runs are repeatable.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, type WebhookDeliveryOrder } from '../../profile.ts';
import { startTestSim } from '../../testing/harness.ts';
import { startReceiver, type Receiver } from '../../../scenarios/dsl/webhook-receiver.ts';

import { ARB_USDC } from '../../testing/fixtures/deposits.ts';
const ACCOUNTS = 4;
const receivers: Receiver[] = [];
const journals = mkdtempSync(join(tmpdir(), 'swapsim-delivery-order-'));
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  rmSync(journals, { recursive: true, force: true });
});
let runs = 0;

interface Run {
  /** GET /events, every page, as the raw bodies (the feed must not change with the setting). */
  feed: unknown[];
  /** Event ids in feed (= created) order, and as the receiver got them. */
  created: string[];
  received: string[];
  accountOf: Map<string, string>;
}

/**
 * One org, a webhook on a real receiver, accounts created in one instant (their account.created and each
 * chain's wallet_created fall due together), and a deposit on two of them landing together (deposit.verified
 * and credit.created of one account fall due together); then settle and read the feed.
 */
async function run(setting: WebhookDeliveryOrder, seed: number): Promise<Run> {
  // With a journal, attempts due together are sent one after another in dispatch order (without one they
  // go out concurrently and may arrive in any order), so the receiver's order is the dispatch order.
  const sim = await startTestSim({
    profile: { ...DEFAULT_PROFILE, webhook_delivery_order: setting },
    seed: `delivery-order-${seed}`,
    journal_path: join(journals, `run-${++runs}.jsonl`),
  });
  const rx = await startReceiver();
  receivers.push(rx);
  try {
    const hook = await sim.api('POST', '/webhooks', { body: { url: rx.url } });
    expect(hook.status).toBe(200);
    rx.secret = hook.body.webhook.secret;
    const accounts: string[] = [];
    for (let i = 0; i < ACCOUNTS; i++)
      accounts.push((await sim.api('POST', '/accounts', { body: { label: `a${i}` } })).body.account.account_id);
    await sim.advance(10_000);
    for (const account_id of accounts.slice(0, 2)) {
      const da = (await sim.api('POST', `/accounts/${account_id}/deposit-addresses`, { body: { asset_key: ARB_USDC } })).body
        .deposit_address;
      expect((await sim.control('POST', '/deposits', { deposit_address_id: da.deposit_address_id, atoms: '5000000' })).status).toBe(200);
    }
    await sim.settle();
    const feed: unknown[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { events: Array<{ event_id: string; account_id: string }>; next_cursor: string | null } } = await sim.api(
        'GET',
        `/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      feed.push(page.body.events);
      cursor = page.body.next_cursor;
    } while (cursor !== null);
    const events = (feed as Array<Array<{ event_id: string; account_id: string }>>).flat();
    expect(rx.received.every((r) => r.signature_valid && r.answered === 200)).toBe(true);
    return {
      feed,
      created: events.map((e) => e.event_id),
      received: rx.received.map((r) => r.event_id),
      accountOf: new Map(events.map((e) => [e.event_id, e.account_id])),
    };
  } finally {
    await sim.close();
  }
}

const ofAccount = (ids: string[], r: Run, account_id: string) => ids.filter((id) => r.accountOf.get(id) === account_id);
const accountsOf = (r: Run) => [...new Set(r.accountOf.values())];
/** True when some account's deliveries arrived in another order than created. */
const reorderedWithinAccount = (r: Run) =>
  accountsOf(r).some((a) => ofAccount(r.received, r, a).join() !== ofAccount(r.created, r, a).join());

function expectEveryEventOnce(r: Run): void {
  expect(r.received.length).toBe(r.created.length);
  expect([...r.received].sort()).toEqual([...r.created].sort());
}

describe('webhook_delivery_order', () => {
  it('in_order: deliveries arrive in created order', async () => {
    const r = await run('in_order', 1);
    expect(r.created.length).toBeGreaterThan(ACCOUNTS * 5);
    expect(r.received).toEqual(r.created);
  });

  it('shuffle_across_accounts: out of created order for some seed, each account in order, every event once, feed unchanged, repeatable', async () => {
    let shuffled: { seed: number; run: Run } | null = null;
    for (let seed = 1; seed <= 8 && shuffled === null; seed++) {
      const r = await run('shuffle_across_accounts', seed);
      expectEveryEventOnce(r);
      for (const a of accountsOf(r)) expect(ofAccount(r.received, r, a), `seed ${seed}, account ${a}`).toEqual(ofAccount(r.created, r, a));
      if (r.received.join() !== r.created.join()) shuffled = { seed, run: r };
    }
    expect(shuffled, 'no seed in 1..8 reordered deliveries across accounts').not.toBeNull();
    const { seed, run: r } = shuffled!;
    // The feed is the event store's order whatever the deliveries did: byte-identical to an in_order run.
    expect((await run('in_order', seed)).feed).toEqual(r.feed);
    expect((await run('shuffle_across_accounts', seed)).received).toEqual(r.received);
  });

  it('best_effort: some seed swaps two deliveries of one account (by one place at most); every event once', async () => {
    let swapped = false;
    for (let seed = 1; seed <= 12 && !swapped; seed++) {
      const r = await run('best_effort', seed);
      expectEveryEventOnce(r);
      for (const a of accountsOf(r)) {
        const created = ofAccount(r.created, r, a);
        ofAccount(r.received, r, a).forEach((id, i) =>
          expect(Math.abs(created.indexOf(id) - i), `seed ${seed}, ${id}`).toBeLessThanOrEqual(1),
        );
      }
      swapped = reorderedWithinAccount(r);
    }
    expect(swapped, 'no seed in 1..12 swapped deliveries within an account').toBe(true);
  });
});
