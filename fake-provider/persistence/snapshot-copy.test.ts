// A snapshot is a copy of everything the world's answers depend on: a busy world (every lifecycle kind in flight:
// wallets being derived, a deposit confirming, an RFQ and its quote open, a trade filling under a reorg fault, a
// zap waiting on its deposit, a cancel before broadcast, a recovery, an export waiting on its sweep, webhook
// deliveries pending and out of order) answers the same requests, clock moves and settle reports byte for byte
// after a restore as it did right after the snapshot. Also: outside work in flight refuses (409 snapshot_busy)
// and changes nothing; a world of data tasks refuses a closure.
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, startTestSim, type TestSim } from '../testing/harness.ts';
import { ARB_ETH, ARB_USDC, addFault, awaitingZap, creditZap, funded, pinPrices, postZap } from '../testing/fixtures/zaps.ts';
import { land, newDepositAddress } from '../testing/fixtures/deposits.ts';
import { newDestination, postCancel } from '../testing/fixtures/cancels.ts';
import { failedZap } from '../testing/fixtures/recoveries.ts';
import { firmQuote } from '../testing/flows.ts';
import { recipientKeys } from '../../scenarios/library/export-recipient.ts';
import { startReceiver, type Receiver } from '../../scenarios/dsl/webhook-receiver.ts';
import { deepCopy, NotCopyable } from '../engine/copy.ts';
import { createSimKernel } from '../../sim/index.ts';

const opened = closeAfterEach(afterEach);
const receivers: Receiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

const ok = (r: { status: number; body: any }, what: string): any => {
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
};

interface Busy {
  accounts: string[];
  paths: string[];
}

/** Puts one of every lifecycle kind in flight; returns the reads that show them. */
async function busyWorld(sim: TestSim, rx: Receiver): Promise<Busy> {
  await pinPrices(sim);
  const hook = ok(await sim.api('POST', '/webhooks', { body: { url: rx.url } }), 'webhook');
  rx.secret = hook.webhook.secret;
  const recovery = await failedZap(sim);
  const f = await funded(sim);
  // A trade under a reorg of its out leg, accepted and left filling.
  await addFault(sim, { target: 'trade', effect: { reorg: 'out' }, match: { account_id: f.account_id }, times: 1 });
  const { quote_id } = await firmQuote(sim, {
    account_id: f.account_id,
    credit_id: f.credit_id,
    destination_id: f.destination_id,
    from: ARB_USDC,
    to: ARB_ETH,
    amount_in_atoms: '20000000',
  });
  const trade = ok(await sim.api('POST', `/quotes/${quote_id}/accept`, { body: { slippage_bps: '50' }, idem: 'busy-accept' }), 'accept');
  // A credit-funded zap with an expiry, and a deposit-funded one waiting on its address.
  const g = await funded(sim);
  const expires_at_ms = sim.running.runtime.world.sim.now_ms() + 60_000;
  const zap = ok(await postZap(sim, creditZap(g, { expires_at_ms })), 'zap');
  const waiting = await awaitingZap(sim);
  // A cancel before its broadcast.
  const c = await funded(sim);
  const dest = await newDestination(sim, c.account_id, ARB_USDC);
  const cancel = ok(await postCancel(sim, { account_id: c.account_id, credit_id: c.credit_id, destination_id: dest }), 'cancel');
  // An open RFQ, a deposit confirming, an account deriving its wallets and exporting, an email recovery.
  const rfq = await sim.api('POST', '/rfqs', {
    body: { mode: 'indicative', from_asset_key: ARB_USDC, to_asset_key: ARB_ETH, side: 'exact_in', amount_in_atoms: '5000000' },
  });
  expect(rfq.status).toBe(202); // pending: its solvers answer on the clock
  const da = await newDepositAddress(sim, f.account_id, ARB_ETH);
  ok(await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '1000000000000000000' }), 'land');
  const fresh = ok(await sim.api('POST', '/accounts', { body: { label: 'fresh' }, idem: 'busy-fresh' }), 'account').account.account_id;
  ok(await sim.api('POST', `/accounts/${fresh}/export-keys`, { body: { target_public_key: recipientKeys().public_key_hex } }), 'export');
  ok(await sim.api('PATCH', `/accounts/${recovery.account_id}`, { body: { email: 'user@example.com' } }), 'email');
  return {
    accounts: [f.account_id, g.account_id, c.account_id, fresh, recovery.account_id, waiting.account_id],
    paths: [
      `/trades/${trade.trade.trade_id}`,
      `/zaps/${zap.zap.zap_id}`,
      `/zaps/${waiting.zap_id}`,
      `/cancels/${cancel.cancel.cancel_id}`,
      `/rfqs/${rfq.body.rfq.rfq_id}`,
      `/recoveries/${recovery.zap.recovery.recovery_id}`,
      `/webhooks/${hook.webhook.webhook_id}/deliveries?limit=100`,
    ],
  };
}

/** The requests after the snapshot: clock steps (their settle reports count every kind of task run), reads, writes. */
async function script(sim: TestSim, busy: Busy): Promise<string[]> {
  const out: string[] = [];
  // An export bundle is sealed with a fresh WebCrypto key each time (docs/LIMITATIONS.md): its bytes are masked.
  const keep = (r: { status: number; body: unknown }) =>
    void out.push(`${r.status} ${JSON.stringify(r.body)}`.replace(/"export_bundle":"[^"]*"/g, '"export_bundle":"…"'));
  const reads = async () => {
    for (const p of busy.paths) keep(await sim.api('GET', p));
    for (const a of busy.accounts) {
      keep(await sim.api('GET', `/accounts/${a}`));
      keep(await sim.api('GET', `/accounts/${a}/balances`));
      keep(await sim.api('GET', `/events?account_id=${a}&limit=100`));
    }
  };
  await reads();
  for (const ms of [1_000, 2_500, 6_000, 60_000]) {
    keep(await sim.control('POST', '/clock/advance', { ms }));
    keep(await sim.api('POST', '/accounts', { body: { label: `after-${ms}` }, idem: `after-${ms}` }));
    await reads();
  }
  keep(await sim.control('POST', '/clock/settle', {}));
  await reads();
  keep(await sim.control('GET', '/deposits'));
  return out;
}

describe('snapshot of a busy world', () => {
  it('every lifecycle kind in flight: a restored world answers what the world did after the snapshot', async () => {
    const sim = opened(await startTestSim({ seed: 'snap-busy' }));
    const rx = await startReceiver('', 'Svc', () => sim.running.runtime.world.sim.now_ms());
    receivers.push(rx);
    const busy = await busyWorld(sim, rx);
    expect(sim.running.runtime.world.sim.scheduler.pending()).toBeGreaterThan(10);
    const snap = ok(await sim.control('POST', '/snapshots'), 'snapshot');
    const first = await script(sim, busy);
    ok(await sim.control('POST', `/snapshots/${snap.snapshot_id}/restore`), 'restore');
    const again = await script(sim, busy);
    expect(again.length).toBe(first.length);
    for (let i = 0; i < first.length; i++) expect(again[i], `answer ${i}`).toBe(first[i]);
    // The world after the restore is a copy: the image stays as it was, so a second restore gives it again.
    ok(await sim.control('POST', `/snapshots/${snap.snapshot_id}/restore`), 'restore again');
    expect(await script(sim, busy)).toEqual(first);
  }, 60_000);

  it('outside work in flight (a request held by a delay fault) is 409 snapshot_busy and changes nothing; a restore drops it', async () => {
    const sim = opened(await startTestSim({ seed: 'snap-held' }));
    const base = ok(await sim.control('POST', '/snapshots'), 'snapshot').snapshot_id;
    ok(
      await sim.control('POST', '/faults', {
        target: 'http',
        match: { method: 'POST', path: '/v1/accounts' },
        effect: { delay_ms: 5_000 },
      }),
      'fault',
    );
    const held = sim.api('POST', '/accounts', { body: { label: 'held' } });
    // The held request's task is on the clock before the snapshot is asked for.
    while (sim.running.runtime.world.sim.scheduler.pending() === 0) await new Promise((r) => setTimeout(r, 5));
    const refused = await sim.control('POST', '/snapshots');
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('snapshot_busy');
    expect(refused.body.error.message).toContain('1 http.delay');
    expect((await sim.control('GET', '/snapshots')).body.snapshots.map((x: any) => x.snapshot_id)).toEqual([base]);
    // A restore is not refused: the held request goes with the world it was held in, answered 503.
    ok(await sim.control('POST', `/snapshots/${base}/restore`), 'restore');
    const dropped = await held;
    expect(dropped.status).toBe(503);
    expect(dropped.body.error.code).toBe('service_unavailable');
    expect((await sim.api('GET', '/accounts')).body.accounts).toEqual([]);
  }, 30_000);

  it('a copy refuses what it cannot take along: a call on the clock, a promise', () => {
    const sim = createSimKernel({ seed: 'copy' });
    sim.scheduler.scheduleCall(10, 'test.call', () => undefined);
    expect(() => deepCopy({ sim })).toThrow(NotCopyable);
    expect(() => deepCopy({ sim })).toThrow(/1 test\.call/);
    expect(() => deepCopy({ pending: Promise.resolve(1) })).toThrow(/work in flight \(a promise\) at pending/);
    expect(() => sim.scheduler.schedule(10, 'test.closure', () => undefined)).toThrow(/arguments are data/);
  });
});
