// Trades over real HTTP: the lifecycle and its events in the spec's order, credits (source consumed,
// settlement and change credits), pending balances during settlement, re-checks at fill (slippage,
// liquidity), failures at each stage leaving the credit open, reorgs, poll_after_ms, history and 404s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { destination, firmQuote, fund, readyAccount } from '../../testing/flows.ts';
import { FAILURE_STAGES, faultCodesOf, stageOf } from '../../failure-codes.ts';

const ETH = 'native.evm:42161';
const USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';
const BTC = 'native.btc';
const ONE_ETH = '1000000000000000000';
const HALF_ETH = '500000000000000000';
/** The events of a trade's progress statuses: a failure's last one names the status it failed from. */
const PROGRESS = ['trade.executing', 'trade.filled', 'trade.pending_settle'];

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim({ seed: 'trades' });
});
afterAll(() => sim.close());

async function setup(from = ETH, to = USDC, atoms = ONE_ETH) {
  const account_id = await readyAccount(sim);
  const credit_id = await fund(sim, account_id, from, atoms);
  const destination_id = await destination(sim, account_id, to);
  return { account_id, credit_id, destination_id };
}

async function accept(
  f: { account_id: string; credit_id: string; destination_id: string },
  amount = HALF_ETH,
  slippage = '100',
  from = ETH,
  to = USDC,
) {
  const { quote_id } = await firmQuote(sim, { ...f, from, to, amount_in_atoms: amount });
  const quote = (await sim.api('GET', `/quotes/${quote_id}`)).body.quote;
  const r = await sim.api('POST', `/quotes/${quote_id}/accept`, { body: { slippage_bps: slippage, client_order_id: 'co-1' } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { quote, trade: r.body.trade };
}

const trade = async (id: string) => (await sim.api('GET', `/trades/${id}`)).body.trade;
const events = (account_id: string) =>
  sim.running.runtime.world.events.all.map((e) => e.envelope).filter((e) => e.account_id === account_id);
const balances = async (account_id: string) =>
  Object.fromEntries(
    (await sim.api('GET', `/accounts/${account_id}/balances`)).body.balances.map((b: any) => [
      b.asset_key,
      [b.available_atoms, b.pending_atoms],
    ]),
  );

describe('trade lifecycle', () => {
  it('settles with events in order, a settlement credit, a change credit and pending output until settled', async () => {
    const f = await setup();
    const { quote, trade: t } = await accept(f);
    expect(t).toMatchObject({ status: 'executing', quote_id: quote.quote_id, client_order_id: 'co-1' });
    expect(t.poll_after_ms).toBeGreaterThan(0);
    // Fill, then settlement initiated: the output is pending.
    await sim.advance(2_100);
    const mid = await trade(t.trade_id);
    expect(['filled', 'pending_settle']).toContain(mid.status);
    expect((await balances(f.account_id))[USDC]).toEqual(['0', quote.expected_out_atoms]);
    await sim.settle();
    const done = await trade(t.trade_id);
    expect(done.status).toBe('settled');
    expect(done).not.toHaveProperty('poll_after_ms');
    expect(done.fees).toEqual(quote.fees);
    expect(done.settlement).toMatchObject({ out_finalized: true, in_finalized: true, out_confirmations: 20, in_confirmations: 20 });
    expect(done.settlement.out_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    const ev = events(f.account_id).filter(
      (e) => e.type.startsWith('trade.') || (e.type === 'credit.created' && e.data.source_type !== 'deposit'),
    );
    expect(ev.map((e) => e.type)).toEqual([
      'trade.executing',
      'trade.filled',
      'trade.pending_settle',
      'trade.settled',
      'credit.created',
      'credit.created',
    ]);
    const settledEvent = ev[3];
    expect(settledEvent.data).toMatchObject({ trade_id: t.trade_id, quote_id: quote.quote_id, client_order_id: 'co-1' });
    expect(ev[4].data).toMatchObject({
      credit_id: settledEvent.data.credit_id,
      asset_key: USDC,
      atoms: quote.expected_out_atoms,
      source_type: 'trade_settlement',
    });
    expect(ev[5].data).toMatchObject({ asset_key: ETH, atoms: HALF_ETH, source_type: 'change' });
    expect(await balances(f.account_id)).toEqual({ [ETH]: [HALF_ETH, '0'], [USDC]: [quote.expected_out_atoms, '0'] });
    const consumed = (await sim.api('GET', `/accounts/${f.account_id}/credits?status=consumed`)).body.credits;
    expect(consumed.map((c: any) => c.credit_id)).toEqual([f.credit_id]);
    const credits = (await sim.api('GET', `/accounts/${f.account_id}/credits`)).body.credits;
    expect(credits.find((c: any) => c.source_type === 'change')).toMatchObject({ source_id: t.trade_id, atoms: HALF_ETH });
  });

  it('using the whole credit makes no change credit', async () => {
    const f = await setup();
    const { trade: t } = await accept(f, ONE_ETH);
    await sim.settle();
    expect((await trade(t.trade_id)).status).toBe('settled');
    expect(events(f.account_id).filter((e) => e.type === 'credit.created' && e.data.source_type === 'change')).toEqual([]);
  });

  it('poll_after_ms is route-aware: a Bitcoin leg polls far less often than an Arbitrum one', async () => {
    const local = await setup();
    const a = await accept(local);
    await sim.advance(2_100);
    const arb = await trade(a.trade.trade_id);
    const cross = await setup(ETH, BTC);
    const b = await accept(cross, HALF_ETH, '100', ETH, BTC);
    await sim.advance(2_100);
    const btc = await trade(b.trade.trade_id);
    expect(arb.status).toBe('pending_settle');
    expect(btc.status).toBe('pending_settle');
    expect(btc.poll_after_ms).toBeGreaterThan(arb.poll_after_ms);
    await sim.settle();
  });
});

describe('re-checks at fill', () => {
  it('a price drop beyond slippage_bps fails the trade with execution_failed; the credit stays open', async () => {
    const f = await setup();
    const { trade: t } = await accept(f, HALF_ETH, '50');
    const now = (await sim.control('GET', '/market/prices')).body.prices[ETH];
    expect((await sim.control('PUT', '/market/prices', { prices: { [ETH]: (Number(now) * 0.9).toFixed(2) } })).status).toBe(200);
    await sim.settle();
    const done = await trade(t.trade_id);
    expect(done).toMatchObject({ status: 'failed', failure_code: 'execution_failed' });
    expect(events(f.account_id).filter((e) => e.type === 'trade.failed')[0].data.failure_code).toBe('execution_failed');
    const open = (await sim.api('GET', `/accounts/${f.account_id}/credits`)).body.credits;
    expect(open.map((c: any) => c.credit_id)).toContain(f.credit_id);
    await sim.control('PUT', '/market/prices', { prices: { [ETH]: now } });
  });

  it('a move within slippage fills at the quoted output', async () => {
    const f = await setup();
    const { quote, trade: t } = await accept(f, HALF_ETH, '500');
    const now = (await sim.control('GET', '/market/prices')).body.prices[ETH];
    await sim.control('PUT', '/market/prices', { prices: { [ETH]: (Number(now) * 0.99).toFixed(2) } });
    await sim.settle();
    expect((await trade(t.trade_id)).status).toBe('settled');
    expect((await balances(f.account_id))[USDC][0]).toBe(quote.expected_out_atoms);
    await sim.control('PUT', '/market/prices', { prices: { [ETH]: now } });
  });

  it('liquidity withdrawn between accept and fill fails the trade', async () => {
    const f = await setup();
    const { trade: t } = await accept(f);
    await sim.control('PUT', '/market/liquidity', { pairs: [{ from_asset_key: ETH, to_asset_key: USDC, max_notional_usd: '0' }] });
    await sim.settle();
    expect(await trade(t.trade_id)).toMatchObject({ status: 'failed', failure_code: 'execution_failed' });
    await sim.control('PUT', '/market/liquidity', { pairs: [{ from_asset_key: ETH, to_asset_key: USDC, max_notional_usd: null }] });
  });
});

describe('faults', () => {
  // Every trade code of the failure-code registry, each failing from the status its stage names.
  for (const code of faultCodesOf('trade')) {
    const from = FAILURE_STAGES[stageOf(code, ['fill', 'settlement_initiation', 'settlement_finality', 'settlement_reorg'])!].from;
    it(`{fail: ${code}} fails the trade at its stage (from ${from}) and releases the credit for another trade`, async () => {
      const f = await setup();
      await sim.control('POST', '/faults', { target: 'trade', effect: { fail: code }, match: { account_id: f.account_id }, times: 1 });
      const { trade: t } = await accept(f);
      await sim.settle();
      const done = await trade(t.trade_id);
      expect(done).toMatchObject({ status: 'failed', failure_code: code });
      expect(done).not.toHaveProperty('poll_after_ms');
      const types = events(f.account_id)
        .filter((e) => e.type.startsWith('trade.'))
        .map((e) => e.type);
      expect(types[types.length - 1]).toBe('trade.failed');
      expect(types.filter((t) => PROGRESS.includes(t)).at(-1)).toBe(`trade.${from}`);
      if (code === 'settlement_orphaned') expect(types).toContain('trade.settlement_orphaned');
      expect(await balances(f.account_id)).toEqual({ [ETH]: [ONE_ETH, '0'] });
      const again = await accept(f);
      await sim.settle();
      expect((await trade(again.trade.trade_id)).status).toBe('settled');
    });
  }

  it('{delay_ms} delays the fill by that much', async () => {
    const f = await setup();
    await sim.control('POST', '/faults', { target: 'trade', effect: { delay_ms: 60_000 }, match: { account_id: f.account_id }, times: 1 });
    const { trade: t } = await accept(f);
    await sim.advance(30_000);
    expect((await trade(t.trade_id)).status).toBe('executing');
    await sim.settle();
    expect((await trade(t.trade_id)).status).toBe('settled');
  });

  it('{reorg: "in"} orphans the settled in leg and reconfirms it; the trade stays settled (default orphan_status)', async () => {
    const f = await setup();
    await sim.control('POST', '/faults', { target: 'trade', effect: { reorg: 'in' }, match: { account_id: f.account_id }, times: 1 });
    const { trade: t } = await accept(f);
    await sim.advance(10_000);
    expect((await trade(t.trade_id)).status).toBe('settled');
    await sim.advance(30_000);
    const orphaned = await trade(t.trade_id);
    expect(orphaned.status).toBe('settled');
    expect(orphaned.settlement).toMatchObject({ in_finalized: false, in_confirmations: 0, out_finalized: true });
    await sim.settle();
    expect((await trade(t.trade_id)).settlement.in_finalized).toBe(true);
    const types = events(f.account_id)
      .filter((e) => e.type.startsWith('trade.settlement_'))
      .map((e) => [e.type, e.data.leg]);
    expect(types).toEqual([
      ['trade.settlement_orphaned', 'in'],
      ['trade.settlement_reconfirmed', 'in'],
    ]);
  });
});

describe('reads', () => {
  it('GET /trades/:id is 404 trade_not_found for unknown ids and other organizations', async () => {
    const f = await setup();
    const { trade: t } = await accept(f);
    const other = await sim.newOrg();
    for (const r of [await sim.api('GET', '/trades/trd_nope'), await sim.api('GET', `/trades/${t.trade_id}`, { key: other.api_key })]) {
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('trade_not_found');
    }
    await sim.settle();
  });

  it('history carries settled and failed trades exactly as the spec shows them', async () => {
    const f = await setup();
    const ok = await accept(f);
    await sim.settle();
    await sim.control('POST', '/faults', {
      target: 'trade',
      effect: { fail: 'execution_failed' },
      match: { account_id: f.account_id },
      times: 1,
    });
    const change = (await sim.api('GET', `/accounts/${f.account_id}/credits?asset_key=${ETH}`)).body.credits[0];
    const bad = await accept({ ...f, credit_id: change.credit_id }, '100000000000000000');
    await sim.settle();
    const records = (await sim.api('GET', `/accounts/${f.account_id}/history?types=trade`)).body.records;
    expect(records.map((r: any) => [r.trade_id, r.status])).toEqual([
      [bad.trade.trade_id, 'failed'],
      [ok.trade.trade_id, 'settled'],
    ]);
    expect(records[1]).toMatchObject({
      type: 'trade',
      client_order_id: 'co-1',
      from_asset_key: ETH,
      to_asset_key: USDC,
      amount_in_atoms: HALF_ETH,
      amount_out_atoms: ok.quote.expected_out_atoms,
      fees: ok.quote.fees,
      settlement: { out_finalized: true, in_finalized: true },
    });
    expect(typeof records[1].settled_at_ms).toBe('number');
    expect(records[0].failure_code).toBe('execution_failed');
  });

  it('keeps every invariant', async () => {
    await sim.settle();
    expect((await sim.invariants()).violations).toEqual([]);
  });
});
