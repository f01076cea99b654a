// Zap failures over real HTTP on the virtual clock: every failure at execution and settlement (real flows
// and faults), the zap-only fault stages of a deposit-funded zap, reorgs of a settled zap, and the invariants.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestSim } from '../../testing/harness.ts';
import {
  ARB_ETH,
  ARB_FINALITY_MS,
  ARB_USDC,
  FLOOR_ATOMS,
  addFault,
  balancesOf,
  credit,
  creditZap,
  funded,
  getZap,
  holderOf,
  land,
  nowMs,
  pinPrices,
  postZap,
  startZapSim,
  zapEvents,
  TO_PENDING_MS,
  awaitingZap,
  depositCredit,
} from '../../testing/fixtures/zaps.ts';
import { FAILURE_STAGES, failureCodesAt, stageOf, type FailureStage } from '../../failure-codes.ts';

const SWAP_STAGES: FailureStage[] = ['fill', 'settlement_initiation', 'settlement_finality', 'settlement_reorg'];

let sim: TestSim;
beforeAll(async () => {
  sim = await startZapSim();
});
afterAll(() => sim.close());

describe('failures at execution and settlement', () => {
  async function failedWith(
    effect: Record<string, unknown>,
    code: string,
  ): Promise<{ zap_id: string; f: Awaited<ReturnType<typeof funded>> }> {
    const f = await funded(sim);
    await addFault(sim, { target: 'zap', effect, match: { account_id: f.account_id }, times: 1 });
    // zap_expired needs an API-level expiry to exist (a rule does not match a zap without one).
    const expiry = code === 'zap_expired' ? { expires_at_ms: (await sim.control('GET', '/clock')).body.clock.now_ms + 3_600_000 } : {};
    const r = await postZap(sim, creditZap(f, expiry));
    await sim.settle();
    const z = await getZap(sim, r.body.zap.zap_id);
    expect(z).toMatchObject({ status: 'failed', failure_code: code });
    expect(z).not.toHaveProperty('poll_after_ms');
    // The source credit is not consumed and is free again; nothing stays pending.
    expect(await credit(sim, f.account_id, f.credit_id)).toMatchObject({ status: 'open' });
    expect(await holderOf(sim, f.credit_id)).toBeNull();
    expect(await balancesOf(sim, f.account_id)).toEqual({ [ARB_USDC]: { available_atoms: '100000000', pending_atoms: '0' } });
    return { zap_id: r.body.zap.zap_id, f };
  }

  it('min_amount_out_not_met: a floor above the market fails at fill', async () => {
    const f = await funded(sim);
    const r = await postZap(sim, creditZap(f, { min_amount_out_atoms: undefined, min_amount_out_ui: '1' }));
    expect(r.body.zap.status).toBe('executing');
    await sim.advance(TO_PENDING_MS);
    expect(await getZap(sim, r.body.zap.zap_id)).toMatchObject({ status: 'failed', failure_code: 'min_amount_out_not_met' });
    expect(zapEvents(sim, r.body.zap.zap_id).map(([t]) => t)).toEqual(['zap.executing', 'zap.failed']);
    expect(await holderOf(sim, f.credit_id)).toBeNull();
  });

  it('min_amount_out_not_met: the price moves against the zap between create and fill', async () => {
    await pinPrices(sim);
    const f = await funded(sim);
    const r = await postZap(sim, creditZap(f, { min_amount_out_atoms: FLOOR_ATOMS }));
    await pinPrices(sim, { [ARB_ETH]: '3400' });
    await sim.advance(TO_PENDING_MS);
    expect(await getZap(sim, r.body.zap.zap_id)).toMatchObject({ status: 'failed', failure_code: 'min_amount_out_not_met' });
    await pinPrices(sim);
  });

  it('execution_failed: the pair loses its liquidity before the fill', async () => {
    const f = await funded(sim);
    const r = await postZap(sim, creditZap(f));
    const pair = { from_asset_key: ARB_USDC, to_asset_key: ARB_ETH };
    expect((await sim.control('PUT', '/market/liquidity', { pairs: [{ ...pair, max_notional_usd: '0' }] })).status).toBe(200);
    await sim.advance(TO_PENDING_MS);
    await sim.control('PUT', '/market/liquidity', { pairs: [{ ...pair, max_notional_usd: null }] });
    expect(await getZap(sim, r.body.zap.zap_id)).toMatchObject({ status: 'failed', failure_code: 'execution_failed' });
  });

  // Every zap code of the failure-code registry at the fill or a settlement stage, on a credit-funded zap: each
  // fails from the status its stage names (whether the driver or the zap applies it).
  for (const code of failureCodesAt('zap', ...SWAP_STAGES)) {
    const from = FAILURE_STAGES[stageOf(code, SWAP_STAGES)!].from;
    it(`${code} through a zap fault rule, from ${from}`, async () => {
      const { zap_id } = await failedWith({ fail: code }, code);
      const types = zapEvents(sim, zap_id).map(([t]) => t);
      expect(types[0]).toBe('zap.executing');
      expect(types.at(-1)).toBe('zap.failed');
      expect(types.filter((t) => ['zap.executing', 'zap.filled', 'zap.pending_settle'].includes(t)).at(-1)).toBe(`zap.${from}`);
    });
  }

  it('settlement_orphaned: the out leg confirms, a reorg drops it, and the zap fails after zap.settlement_orphaned', async () => {
    const { zap_id } = await failedWith({ fail: 'settlement_orphaned' }, 'settlement_orphaned');
    expect(zapEvents(sim, zap_id).map(([t, d]) => [t, d.failure_code])).toEqual([
      ['zap.executing', undefined],
      ['zap.filled', undefined],
      ['zap.pending_settle', undefined],
      ['zap.settlement_orphaned', undefined],
      ['zap.failed', 'settlement_orphaned'],
    ]);
    expect((await getZap(sim, zap_id)).settlement).toMatchObject({ out_finalized: false, out_confirmations: 0 });
  });

  it('fails with zap_expired when expires_at_ms comes before the fill; the credit is free for a new zap', async () => {
    const f = await funded(sim);
    const r = await postZap(sim, creditZap(f, { expires_at_ms: (await nowMs(sim)) + 100 }));
    expect(r.body.zap.status).toBe('executing');
    await sim.advance(100);
    expect(await getZap(sim, r.body.zap.zap_id)).toMatchObject({ status: 'failed', failure_code: 'zap_expired' });
    expect(zapEvents(sim, r.body.zap.zap_id).map(([t]) => t)).toEqual(['zap.executing', 'zap.failed']);
    expect(await holderOf(sim, f.credit_id)).toBeNull();
    const again = await postZap(sim, creditZap(f, { expires_at_ms: (await nowMs(sim)) + 3_600_000 }));
    expect(again.body.zap.status).toBe('executing');
    await sim.settle();
    // Past the fill the expiry no longer applies (and no timer holds the clock).
    expect((await getZap(sim, again.body.zap.zap_id)).status).toBe('settled');
    expect(await nowMs(sim)).toBeLessThan((await getZap(sim, again.body.zap.zap_id)).created_at_ms + 3_600_000);
  });

  it('delays the fill by a delay_ms fault, and poll_after_ms follows the next step', async () => {
    const f = await funded(sim);
    await addFault(sim, { target: 'zap', effect: { delay_ms: 60_000 }, match: { account_id: f.account_id }, times: 1 });
    const r = await postZap(sim, creditZap(f));
    expect(r.body.zap.poll_after_ms).toBeGreaterThan(60_000 - 1);
    await sim.advance(TO_PENDING_MS);
    expect((await getZap(sim, r.body.zap.zap_id)).status).toBe('executing');
    await sim.advance(60_000);
    expect((await getZap(sim, r.body.zap.zap_id)).status).toBe('pending_settle');
    await sim.settle();
  });
});

describe('zap-only fault stages on a deposit-funded zap', () => {
  for (const code of failureCodesAt('zap', 'deposit')) {
    it(`${code} lands when the deposit resolves; the deposit's credit stays open and free`, async () => {
      const expiry = code === 'zap_expired' ? { expires_at_ms: (await sim.control('GET', '/clock')).body.clock.now_ms + 3_600_000 } : {};
      const z = await awaitingZap(sim, expiry);
      await addFault(sim, { target: 'zap', effect: { fail: code }, match: { ids: [z.zap_id] }, times: 1 });
      await land(sim, { deposit_address_id: z.deposit_address_id, atoms: '55000000' });
      await sim.advance(ARB_FINALITY_MS);
      expect(await getZap(sim, z.zap_id)).toMatchObject({ status: 'failed', failure_code: code, observed_amount_in_atoms: '55000000' });
      expect(zapEvents(sim, z.zap_id).map(([t]) => t)).toEqual(['zap.awaiting_deposit', 'zap.failed']);
      const credit_id = await depositCredit(sim, z.deposit_address_id);
      expect(await credit(sim, z.account_id, credit_id)).toMatchObject({ status: 'open' });
      expect(await holderOf(sim, credit_id)).toBeNull();
    });
  }

  it('min_amount_out_not_met through a fault lands at the fill of a deposit-funded zap', async () => {
    const z = await awaitingZap(sim);
    await addFault(sim, { target: 'zap', effect: { fail: 'min_amount_out_not_met' }, match: { ids: [z.zap_id] }, times: 1 });
    await land(sim, { deposit_address_id: z.deposit_address_id, atoms: '55000000' });
    await sim.settle();
    expect(await getZap(sim, z.zap_id)).toMatchObject({ status: 'failed', failure_code: 'min_amount_out_not_met' });
    expect(zapEvents(sim, z.zap_id).map(([t]) => t)).toEqual(['zap.awaiting_deposit', 'zap.executing', 'zap.failed']);
  });
});

describe('reorgs of a settled zap', () => {
  for (const leg of ['out', 'in'] as const) {
    it(`reorg ${leg}: zap.settlement_orphaned, then zap.settlement_reconfirmed one finality later; status stays settled`, async () => {
      const f = await funded(sim);
      await addFault(sim, { target: 'zap', effect: { reorg: leg }, match: { account_id: f.account_id }, times: 1 });
      const r = await postZap(sim, creditZap(f, { client_zap_id: `reorg-${leg}` }));
      const zap_id = r.body.zap.zap_id;
      await sim.advance(TO_PENDING_MS + ARB_FINALITY_MS + 1_000);
      expect((await getZap(sim, zap_id)).status).toBe('settled');
      await sim.advance(30_000);
      const orphaned = await getZap(sim, zap_id);
      expect(orphaned.status).toBe('settled');
      expect(orphaned.settlement[`${leg}_finalized`]).toBe(false);
      expect(zapEvents(sim, zap_id).at(-1)).toEqual(['zap.settlement_orphaned', { zap_id, client_zap_id: `reorg-${leg}` }]);
      await sim.advance(ARB_FINALITY_MS);
      expect((await getZap(sim, zap_id)).settlement[`${leg}_finalized`]).toBe(true);
      expect(zapEvents(sim, zap_id).map(([t]) => t)).toEqual([
        'zap.executing',
        'zap.filled',
        'zap.pending_settle',
        'zap.settled',
        'zap.settlement_orphaned',
        'zap.settlement_reconfirmed',
      ]);
    });
  }
});

describe('invariants', () => {
  it('holds every invariant over everything above', async () => {
    await sim.settle();
    const inv = await sim.invariants();
    expect(inv.violations).toEqual([]);
    expect(inv.ok).toBe(true);
  });
});
