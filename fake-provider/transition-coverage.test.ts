// Transition coverage: every (state, event, target) triple that xstate/graph finds in each lifecycle
// machine must be taken by a real HTTP flow below. A triple no flow reaches fails the test unless it is
// listed, with a reason, in transition-coverage-exclusions.json; a stale exclusion fails it too.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { edgesOf, registeredMachines } from './engine/index.ts';
import type { AnyStateMachine } from 'xstate';
import { DEFAULT_PROFILE } from './profile.ts';
import { startTestSim, type TestSim } from './testing/harness.ts';
import { startReceiver } from '../scenarios/dsl/webhook-receiver.ts';
import type { TransitionRecord } from './engine/lifecycle.ts';
import { rfqCoverageFlow } from './testing/fixtures/rfqs.ts';
import { driveZapEdges } from './testing/zap-coverage-flows.ts';
import { destination, firmQuote, fund, readyAccount } from './testing/flows.ts';
import { exportCoverageFlow } from './testing/fixtures/exports.ts';
import { driveRecoveryEdges } from './testing/fixtures/recoveries.ts';

const exclusions: { machine: string; from: string; event: string; to: string; reason: string }[] = JSON.parse(
  readFileSync(new URL('./transition-coverage-exclusions.json', import.meta.url), 'utf8'),
).excluded;

const taken = new Set<string>();
const sims: TestSim[] = [];
const key = (machine: string, from: string | null, event: string, to: string): string => `${machine}: ${from} --${event}--> ${to}`;

async function newSim(profile = DEFAULT_PROFILE, seed_orgs?: { api_keys: string[]; partner_screening: boolean }[]): Promise<TestSim> {
  const sim = await startTestSim({
    profile,
    seed: `coverage-${sims.length}`,
    ...(seed_orgs ? { seed_orgs, api_key: seed_orgs[0].api_keys[0] } : {}),
  });
  sims.push(sim);
  return sim;
}

function collect(sim: TestSim): void {
  for (const r of sim.running.runtime.world.transitions.records as TransitionRecord[])
    if (r.from !== null) taken.add(key(r.kind, r.from, r.event, r.to));
}

afterAll(async () => {
  for (const s of sims) await s.close();
});

async function accountWithAddress(sim: TestSim, asset_key: string): Promise<{ account_id: string; deposit_address_id: string }> {
  const account_id = (await sim.api('POST', '/accounts', { body: {} })).body.account.account_id;
  await sim.advance(10_000);
  const r = await sim.api('POST', `/accounts/${account_id}/deposit-addresses`, { body: { asset_key } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { account_id, deposit_address_id: r.body.deposit_address.deposit_address_id };
}

describe('transition coverage through the HTTP API', () => {
  it('accounts: wallets in active and deactivated states, deactivation', async () => {
    const sim = await newSim();
    const a = (await sim.api('POST', '/accounts', { body: {} })).body.account.account_id;
    const b = (await sim.api('POST', '/accounts', { body: {} })).body.account.account_id;
    await sim.advance(1_000);
    expect((await sim.api('POST', `/accounts/${b}/deactivate`)).status).toBe(200);
    await sim.advance(10_000);
    expect((await sim.api('POST', `/accounts/${a}/deactivate`)).status).toBe(200);
    collect(sim);
  });

  it('accounts: key export (integrator before wallets exist, user email from deactivated), exported', async () => {
    const sim = await newSim();
    await exportCoverageFlow(sim);
    collect(sim);
  });

  it('deposits: confirmations, screening clean and flagged, drop fault', async () => {
    const sim = await newSim();
    const clean = await accountWithAddress(sim, 'native.evm:42161');
    await sim.control('POST', '/deposits', { deposit_address_id: clean.deposit_address_id, atoms: '1000' });
    const src = '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf';
    await sim.control('POST', '/screening/addresses', { address: src, flag_reason: 'sanctions_match' });
    await sim.control('POST', '/deposits', { deposit_address_id: clean.deposit_address_id, atoms: '2000', source_address: src });
    await sim.control('POST', '/faults', { target: 'deposit', effect: { fail: 'deposit_insufficient_confirmations' }, times: 1 });
    await sim.control('POST', '/deposits', { deposit_address_id: clean.deposit_address_id, atoms: '3000' });
    await sim.settle();
    collect(sim);
  });

  it('deposits: screening finishing last verifies', async () => {
    const sim = await newSim({ ...DEFAULT_PROFILE, deposit_screening_ms: 60_000 });
    const { deposit_address_id } = await accountWithAddress(sim, 'native.evm:42161');
    await sim.control('POST', '/deposits', { deposit_address_id, atoms: '1000' });
    await sim.settle();
    collect(sim);
  });

  it('deposits: partner window closing (pending and last), partner flag', async () => {
    const sim = await newSim({ ...DEFAULT_PROFILE, deposit_screening_ms: 1_000 }, [{ api_keys: ['sk_partner'], partner_screening: true }]);
    const fast = await accountWithAddress(sim, 'native.evm:42161');
    await sim.control('POST', '/deposits', { deposit_address_id: fast.deposit_address_id, atoms: '1000' });
    const slow = await accountWithAddress(sim, 'native.evm:1');
    await sim.control('POST', '/deposits', { deposit_address_id: slow.deposit_address_id, atoms: '1000' });
    const flagged = await sim.control('POST', '/deposits', { deposit_address_id: slow.deposit_address_id, atoms: '5' });
    const f = await sim.api('POST', `/deposits/${slow.deposit_address_id}/flag`, {
      body: { tx_hash: flagged.body.deposit.tx_hash, flag_category: 'fraud', flag_message: 'known scam' },
    });
    expect(f.status, JSON.stringify(f.body)).toBe(200);
    await sim.settle();
    collect(sim);
  });

  it('webhook deliveries: success, retry, exhaustion, postponement, abandonment', async () => {
    const sim = await newSim();
    const rx = await startReceiver();
    try {
      const hook = (await sim.api('POST', '/webhooks', { body: { url: rx.url } })).body.webhook;
      rx.secret = hook.secret;
      await sim.api('POST', '/accounts', { body: {} });
      await sim.advance(1);
      rx.answer = () => 500;
      await sim.control('POST', '/faults', { target: 'webhook', effect: { delay_ms: 1_000 }, times: 1 });
      await sim.api('POST', '/accounts', { body: {} });
      await sim.settle(80 * 3_600_000);
      rx.answer = () => 200;
      await sim.api('POST', '/accounts', { body: {} });
      await sim.api('PATCH', `/webhooks/${hook.webhook_id}`, { body: { active: false } });
      await sim.settle();
      collect(sim);
    } finally {
      await rx.close();
    }
  });

  it('destinations: suspend, reactivate, delete usable and suspended', async () => {
    const sim = await newSim();
    const a = (await sim.api('POST', '/accounts', { body: {} })).body.account.account_id;
    const reg = async (address: string) =>
      (await sim.api('POST', `/accounts/${a}/destinations`, { body: { asset_key: 'native.evm:1', address } })).body.destination
        .destination_id;
    const d1 = await reg('0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf');
    const d2 = await reg('0x2B5AD5c4795c026514f8317c7a215E218DcCD6cF');
    await sim.control('POST', `/destinations/${d1}/suspend`, { reason: 'r' });
    await sim.control('POST', `/destinations/${d1}/reactivate`);
    await sim.control('POST', `/destinations/${d2}/suspend`, { reason: 'r' });
    expect((await sim.api('DELETE', `/accounts/${a}/destinations/${d1}`)).status).toBe(204);
    expect((await sim.api('DELETE', `/accounts/${a}/destinations/${d2}`)).status).toBe(204);
    collect(sim);
  });

  it('cancels: confirmed, broadcast_failed, confirmation_timeout, delayed (credits locked, released, consumed)', async () => {
    const sim = await newSim();
    const { account_id, deposit_address_id } = await accountWithAddress(sim, 'native.evm:42161');
    for (const atoms of ['1000', '2000', '3000']) await sim.control('POST', '/deposits', { deposit_address_id, atoms });
    await sim.settle();
    const credits = (await sim.api('GET', `/accounts/${account_id}/credits`)).body.credits.map((c: { credit_id: string }) => c.credit_id);
    const dest = await sim.api('POST', `/accounts/${account_id}/destinations`, {
      body: { asset_key: 'native.evm:42161', address: '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf' },
    });
    const destination_id = dest.body.destination.destination_id;
    await sim.control('POST', '/faults', { target: 'cancel', effect: { fail: 'broadcast_failed' }, match: { ids: [credits[0]] } });
    await sim.control('POST', '/faults', { target: 'cancel', effect: { fail: 'confirmation_timeout' }, match: { ids: [credits[1]] } });
    await sim.control('POST', '/faults', { target: 'cancel', effect: { delay_ms: 5_000 }, match: { ids: [credits[2]] } });
    for (const credit_id of credits) {
      const r = await sim.api('POST', '/cancels', { body: { account_id, credit_id, destination_id } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    await sim.settle();
    collect(sim);
  });

  it('rfqs and quotes: pending, ready, expired, consumed', async () => {
    const sim = await newSim();
    await rfqCoverageFlow(sim);
    collect(sim);
  });

  it('zaps: every funding path and failure stage', async () => {
    const sim = await newSim();
    await driveZapEdges(sim);
    // filled --FAIL: the settlement cannot be initiated.
    const account_id = await readyAccount(sim);
    const credit_id = await fund(sim, account_id, 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831', '100000000');
    const destination_id = await destination(sim, account_id, 'native.evm:42161');
    await sim.control('POST', '/faults', { target: 'zap', effect: { fail: 'settlement_failed' }, match: { account_id }, times: 1 });
    const z = await sim.api('POST', '/zaps', {
      body: {
        account_id,
        credit_id,
        destination_id,
        from_asset_key: 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831',
        to_asset_key: 'native.evm:42161',
        amount_in_atoms: '50000000',
        min_amount_out_atoms: '0',
      },
    });
    expect(z.status, JSON.stringify(z.body)).toBe(200);
    await sim.settle();
    expect((await sim.api('GET', `/zaps/${z.body.zap.zap_id}`)).body.zap.failure_code).toBe('settlement_failed');
    collect(sim);
  });

  it('trades: settled with reorgs of both legs, and a failure at every stage', async () => {
    const sim = await newSim();
    const ETH = 'native.evm:42161';
    const USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';
    const account_id = await readyAccount(sim);
    const destination_id = await destination(sim, account_id, USDC);
    const credit_id = await fund(sim, account_id, ETH, '1000000000000000000');
    const trade = async (fault?: Record<string, unknown>) => {
      if (fault) await sim.control('POST', '/faults', { target: 'trade', effect: fault, match: { account_id }, times: 1 });
      const { quote_id } = await firmQuote(sim, {
        account_id,
        credit_id,
        destination_id,
        from: ETH,
        to: USDC,
        amount_in_atoms: '100000000000000000',
      });
      const r = await sim.api('POST', `/quotes/${quote_id}/accept`, { body: { slippage_bps: '100' } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      await sim.settle();
      return (await sim.api('GET', `/trades/${r.body.trade.trade_id}`)).body.trade;
    };
    // A failed trade leaves the credit open, so one credit serves every failure.
    expect((await trade({ fail: 'execution_failed' })).failure_code).toBe('execution_failed');
    expect((await trade({ fail: 'settlement_failed' })).failure_code).toBe('settlement_failed');
    expect((await trade({ fail: 'settlement_timeout' })).failure_code).toBe('settlement_timeout');
    expect((await trade({ fail: 'settlement_orphaned' })).failure_code).toBe('settlement_orphaned');
    await sim.control('POST', '/faults', { target: 'trade', effect: { reorg: 'in' }, match: { account_id }, times: 1 });
    const settled = await trade({ reorg: 'out' });
    expect(settled.status).toBe('settled');
    const types = sim.running.runtime.world.events.all.map((e) => e.envelope.type).filter((t) => t.startsWith('trade.settlement_'));
    // The settlement_orphaned failure, then one leg at a time: orphaned, reconfirmed, orphaned, reconfirmed.
    expect(types).toEqual([
      'trade.settlement_orphaned',
      'trade.settlement_orphaned',
      'trade.settlement_reconfirmed',
      'trade.settlement_orphaned',
      'trade.settlement_reconfirmed',
    ]);
    collect(sim);
  });

  it('recoveries: created, activated twice, a flagged claim (failed), re-activated, claimed', async () => {
    const sim = await newSim();
    await driveRecoveryEdges(sim);
    collect(sim);
  });

  it('every machine a resource declares is registered (by the lifecycle the resource runs it through)', async () => {
    const declared: string[] = [];
    for (const name of readdirSync(new URL('./resources/', import.meta.url))) {
      if (!existsSync(new URL(`./resources/${name}/machine.ts`, import.meta.url))) continue; // no lifecycle
      const mod: Record<string, unknown> = await import(`./resources/${name}/machine.ts`);
      for (const value of Object.values(mod)) {
        const m = value as AnyStateMachine;
        if (m !== null && typeof m === 'object' && typeof m.id === 'string' && typeof m.transition === 'function') {
          declared.push(m.id);
          expect(registeredMachines().get(m.id)?.machine, `${name}/machine.ts ${m.id}`).toBe(m);
        }
      }
    }
    expect(declared.sort()).toEqual([...registeredMachines().keys()].sort());
  });

  it('every machine triple is taken by a flow above or excluded with a reason', () => {
    const all = [...registeredMachines()].flatMap(([name, m]) => edgesOf(m.machine).map((e) => key(name, e.from, e.event, e.to)));
    const excluded = new Set(exclusions.map((e) => key(e.machine, e.from, e.event, e.to)));
    for (const e of exclusions) expect(e.reason.length, `${key(e.machine, e.from, e.event, e.to)} needs a reason`).toBeGreaterThan(10);
    const missed = all.filter((t) => !taken.has(t) && !excluded.has(t));
    expect(missed, 'machine transitions no flow takes').toEqual([]);
    const stale = [...excluded].filter((t) => taken.has(t) || !all.includes(t));
    expect(stale, 'exclusions that are taken now, or no longer exist').toEqual([]);
  });
});
