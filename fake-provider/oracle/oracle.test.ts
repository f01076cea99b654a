// The spec oracle: clean on a real world that ran a trade, a zap, a cancel, deposits, a recovery and
// webhook deliveries; and each of its checks goes red when the observed view is bent the way a realistic
// bug would bend it (a credit made twice, fees not deducted, an event published twice, a retry past 72 h…).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../testing/harness.ts';
import { destination, firmQuote, fund, readyAccount } from '../testing/flows.ts';
import { startReceiver, type Receiver } from '../../scenarios/dsl/webhook-receiver.ts';
import { observe, specViolations, type Observed } from './index.ts';

const ETH = 'native.evm:42161';
const USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';

let sim: TestSim;
let receiver: Receiver;
let base: Observed;
let trade_id: string;
let zap_id: string;
let cancel_id: string;

beforeAll(async () => {
  receiver = await startReceiver();
  sim = await startTestSim({ seed: 'oracle' });
  const key = (
    await sim.newOrg({
      platform_fee_bps: '25',
      integrator_fee_bps: '7.5',
      recovery_enabled: true,
      partner_screening: true,
      rate_limits: { reads: 100_000, writes: 100_000, indicative_rfqs: 100_000, firm_rfqs: 100_000 },
    })
  ).api_key;
  const hook = await sim.api('POST', '/webhooks', { key, body: { url: receiver.url } });
  receiver.secret = hook.body.webhook.secret;
  const account_id = await readyAccount(sim, key);
  await sim.api('PATCH', `/accounts/${account_id}`, { key, body: { email: 'user@example.com' } });
  const eth = await fund(sim, account_id, ETH, '1000000000000000000', key);
  const usdc = await fund(sim, account_id, USDC, '5000000000', key);
  const toUsdc = await destination(sim, account_id, USDC, key);
  const toEth = await destination(sim, account_id, ETH, key);
  const q = await firmQuote(sim, {
    account_id,
    credit_id: eth,
    destination_id: toUsdc,
    from: ETH,
    to: USDC,
    amount_in_atoms: '400000000000000000',
    key,
  });
  trade_id = (await sim.api('POST', `/quotes/${q.quote_id}/accept`, { key, body: { slippage_bps: '100' } })).body.trade.trade_id;
  const zap = await sim.api('POST', '/zaps', {
    key,
    body: {
      account_id,
      credit_id: usdc,
      destination_id: toEth,
      from_asset_key: USDC,
      to_asset_key: ETH,
      amount_in_atoms: '1000000000',
      min_amount_out_atoms: '0',
    },
  });
  zap_id = zap.body.zap.zap_id;
  await sim.settle();
  // A failed zap (a floor it cannot meet) leaves its credit open with a recovery; then a cancel of the change.
  const credits = (await sim.api('GET', `/accounts/${account_id}/credits?asset_key=${USDC}`, { key })).body.credits;
  const change = credits.find((c: { source_type: string }) => c.source_type === 'change');
  await sim.api('POST', '/zaps', {
    key,
    body: {
      account_id,
      credit_id: change.credit_id,
      destination_id: toEth,
      from_asset_key: USDC,
      to_asset_key: ETH,
      amount_in_atoms: '1000000',
      min_amount_out_atoms: '1000000000000000000',
    },
  });
  await sim.settle();
  cancel_id = (
    await sim.api('POST', '/cancels', {
      key,
      body: { account_id, credit_id: change.credit_id, destination_id: await destination(sim, account_id, USDC, key) },
    })
  ).body.cancel.cancel_id;
  await sim.settle();
  base = observe(sim.running.runtime.world);
});
afterAll(async () => {
  await sim.close();
  await receiver.close();
});

/** A deep copy of the observed view to bend (events and bodies are frozen or shared). */
function copy(): Observed {
  const o = structuredClone({ ...base, profile: undefined, orgs: [...base.orgs], accounts: [...base.accounts] }) as any;
  return { ...o, profile: base.profile, orgs: new Map(o.orgs), accounts: new Map(o.accounts) };
}

const names = (o: Observed): string[] => [...new Set(specViolations(o).map((v) => v.invariant))];

describe('spec oracle', () => {
  it('is clean on a world that ran every lifecycle, and saw each of them', () => {
    expect(specViolations(base)).toEqual([]);
    expect(base.swaps.map((s) => [s.kind, s.body.status])).toEqual([
      ['trade', 'settled'],
      ['zap', 'settled'],
      ['zap', 'failed'],
    ]);
    expect(base.cancels.map((c) => c.body.status)).toEqual(['confirmed']);
    expect(base.recoveries).toHaveLength(1);
    expect(base.deliveries.length).toBeGreaterThan(20);
    expect(base.deposits.every((d) => d.screening_deadline_ms !== null)).toBe(true);
  });

  it('conservation and credit sources: a settlement credited twice (a reorg reconfirm that credits again)', () => {
    const o = copy();
    const settlement = o.credits.find((c) => c.source_type === 'trade_settlement' && c.source_id === trade_id)!;
    o.credits.push({ ...settlement, credit_id: 'crd_again' });
    o.events.push({
      org_id: o.events[0].org_id,
      envelope: {
        ...o.events.find((e) => e.envelope.type === 'credit.created')!.envelope,
        event_id: 'evt_x',
        data: { credit_id: 'crd_again', atoms: settlement.atoms, asset_key: settlement.asset_key, source_type: 'trade_settlement' },
      },
    });
    expect(names(o)).toEqual(['spec.conservation', 'spec.credit_sources']);
  });

  it('fees: a zap paid out at the gross output, fees shown but not deducted', () => {
    const o = copy();
    const zap = o.swaps.find((s) => s.id === zap_id)!;
    const gross = (BigInt(zap.record!.amount_out_atoms) + BigInt(zap.record!.fees.total_atoms)).toString();
    zap.record!.amount_out_atoms = gross;
    o.credits.find((c) => c.source_type === 'trade_settlement' && c.source_id === zap_id)!.atoms = gross;
    expect(names(o)).toContain('spec.fees');
  });

  it("fees: total is not platform + integrator, or the platform bps is not the organization's", () => {
    const o = copy();
    const t = o.swaps.find((s) => s.id === trade_id)!;
    t.record!.fees.total_atoms = (BigInt(t.record!.fees.total_atoms) + 1n).toString();
    expect(
      specViolations(o)
        .filter((v) => v.invariant === 'spec.fees')
        .map((v) => v.message),
    ).toEqual(expect.arrayContaining([expect.stringContaining('total_atoms')]));
    const p = copy();
    p.swaps.find((s) => s.id === trade_id)!.record!.fees.platform_bps = '30';
    expect(specViolations(p).map((v) => v.message)).toEqual(expect.arrayContaining([expect.stringContaining("the organization's is 25")]));
  });

  it('lifecycle: trade.settled published twice, an event out of order, a terminal status left', () => {
    const twice = copy();
    const settled = twice.events.find((e) => e.envelope.type === 'trade.settled')!;
    twice.events.push({ ...settled, envelope: { ...settled.envelope, event_id: 'evt_twice' } });
    expect(names(twice)).toEqual(['spec.lifecycle.events_once']);

    const skipped = copy();
    skipped.events = skipped.events.filter((e) => !(e.envelope.type === 'trade.pending_settle'));
    expect(names(skipped)).toContain('spec.lifecycle.edges');

    const revived = copy();
    const failed = revived.events.find((e) => e.envelope.type === 'zap.failed')!;
    revived.events.push({ ...failed, envelope: { ...failed.envelope, type: 'zap.settled', event_id: 'evt_revived' } });
    expect(names(revived)).toContain('spec.lifecycle.terminal_absorbs');
  });

  it("lifecycle: GET disagrees with the feed; a failure without a code; a code from the wrong stage; another kind's code", () => {
    const o = copy();
    o.swaps.find((s) => s.id === trade_id)!.body.status = 'pending_settle';
    expect(names(o)).toContain('spec.lifecycle.status_matches_events');
    const c = copy();
    const failedZap = c.swaps.find((s) => s.body.status === 'failed')!;
    delete failedZap.body.failure_code;
    expect(names(c)).toContain('spec.lifecycle.failure_code');
    const stage = copy();
    stage.swaps.find((s) => s.body.status === 'failed')!.body.failure_code = 'settlement_timeout';
    expect(names(stage)).toContain('spec.protocol.failure_stage');
    expect(names(stage)).not.toContain('spec.lifecycle.failure_code');
    // A cancel's code on a zap: not a zap failure code at all.
    const kind = copy();
    kind.swaps.find((s) => s.body.status === 'failed')!.body.failure_code = 'broadcast_failed';
    expect(names(kind)).toContain('spec.lifecycle.failure_code');
  });

  it('lifecycle: reconfirmed without an orphaned leg; orphaned before the settlement exists', () => {
    const o = copy();
    const settled = o.events.find((e) => e.envelope.type === 'trade.settled')!;
    o.events.push({ ...settled, envelope: { ...settled.envelope, type: 'trade.settlement_reconfirmed', event_id: 'evt_r' } });
    expect(names(o)).toEqual(['spec.lifecycle.edges']);
    const early = copy();
    const i = early.events.findIndex((e) => e.envelope.type === 'trade.executing');
    early.events.splice(i + 1, 0, {
      ...early.events[i],
      envelope: { ...early.events[i].envelope, type: 'trade.settlement_orphaned', event_id: 'evt_o' },
    });
    expect(names(early)).toContain('spec.lifecycle.edges');
  });

  it('conservation: a failed operation that consumed its credit; a cancel confirmed twice for one credit', () => {
    const o = copy();
    const open = o.credits.find((c) => c.status === 'open')!;
    open.status = 'consumed';
    expect(names(o)).toEqual(['spec.conservation']);
    const twice = copy();
    const cancel = twice.cancels.find((c) => c.id === cancel_id)!;
    twice.cancels.push({ ...structuredClone(cancel), id: 'cnl_twice', body: { ...cancel.body, cancel_id: 'cnl_twice' } });
    expect(names(twice)).toEqual(expect.arrayContaining(['spec.conservation', 'spec.protocol.one_payout_per_credit']));
  });

  it('credit sources: a credit from a source the spec does not list, or from a deposit that never verified', () => {
    const o = copy();
    o.credits.find((c) => c.source_type === 'change')!.source_type = 'refund';
    expect(names(o)).toContain('spec.credit_sources');
    const d = copy();
    d.deposits[0].status = 'flagged';
    expect(names(d)).toEqual(expect.arrayContaining(['spec.conservation', 'spec.credit_sources']));
  });

  it('protocol: a retry past the 72 h window; an attempt after a 2xx; success without a 2xx', () => {
    const o = copy();
    const d = o.deliveries[0];
    d.attempts.push({ at_ms: d.attempts[0].at_ms + 73 * 3_600_000, http_status: 500 });
    expect(names(o)).toEqual(expect.arrayContaining(['spec.protocol.retry_window', 'spec.protocol.no_retry_after_success']));
    const s = copy();
    s.deliveries[0].attempts = [{ at_ms: s.deliveries[0].attempts[0].at_ms, http_status: 500 }];
    expect(names(s)).toEqual(['spec.protocol.delivery_status']);
  });

  it('protocol: verified before screening or the partner window finished; a partner flag after its deadline', () => {
    const o = copy();
    const d = o.deposits.find((x) => x.status === 'verified')!;
    d.resolved_at_ms = d.landed_at_ms + 1_000;
    expect(names(o)).toEqual(
      expect.arrayContaining([
        'spec.protocol.verified_after_screening',
        'spec.protocol.verified_after_partner_window',
        'spec.protocol.verified_at_finality',
      ]),
    );
    const late = copy();
    const screening = late.events.find((e) => e.envelope.type === 'deposit.partner_screening')!.envelope;
    late.events.push({
      org_id: late.events[0].org_id,
      envelope: {
        ...screening,
        type: 'deposit.flagged',
        event_id: 'evt_f',
        created_at_ms: Number(screening.data.screening_deadline_ms) + 1,
        data: { ...screening.data, flagged_by: 'partner' },
      },
    });
    expect(names(late)).toContain('spec.protocol.partner_window');
  });

  it('protocol: a second recovery bound to the same credit; a recovery no failed zap offers', () => {
    const o = copy();
    o.recoveries.push({ ...o.recoveries[0], recovery_id: 'rcv_second' });
    expect(names(o)).toEqual(['spec.protocol.one_recovery_per_credit', 'spec.protocol.recovery_for_failed_zap']);
  });

  it('protocol: a zap filled after its expiry, or expired without one', () => {
    const o = copy();
    const zap = o.swaps.find((s) => s.id === zap_id)!;
    zap.body.expires_at_ms = 1;
    expect(names(o)).toEqual(['spec.protocol.zap_expiry']);
    const p = copy();
    const failed = p.swaps.find((s) => s.body.status === 'failed')!;
    failed.body.failure_code = 'zap_expired';
    expect(names(p)).toContain('spec.protocol.zap_expiry');
  });
});
