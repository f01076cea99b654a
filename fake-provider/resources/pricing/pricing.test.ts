// The market maker over a world (no HTTP): forwardOut agrees with price(), the pair checks, draws within
// the profile bounds from their own streams, and a substream draw leaving the main stream where it was.
import { describe, expect, it } from 'vitest';
import { newWorld } from '../../app.ts';
import { DEFAULT_PROFILE } from '../../profile.ts';
import { createOrganization } from '../../organizations.ts';
import { ApiError } from '../../contract/errors.ts';
import { assetByKey } from '../assets/catalog.ts';
import { setUsdPrices } from '../markets/index.ts';
import { checkPairAllowed, drawSolverLatencyMs, drawSpreadBps, forwardOut, price, serializeFees } from './index.ts';

const ARB_ETH = assetByKey('native.evm:42161')!;
const ARB_USDC = assetByKey('erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831')!;
const BONK = assetByKey('spl.solana:DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263')!;
const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e.code;
    throw e;
  }
  return undefined;
};

describe('pricing over a world', () => {
  const world = newWorld({ clock: 'virtual', seed: 'pricing', profile: DEFAULT_PROFILE });
  const org = createOrganization(world, { platform_fee_bps: '10', integrator_fee_bps: '2.5', forbidden_assets: ['native.btc'] });
  setUsdPrices(world, { [ARB_ETH.asset_key]: '3200', [ARB_USDC.asset_key]: '1' });

  it('forwardOut on the quoted input gives the quote’s gross, fees and net', () => {
    const q = price(world, {
      org,
      from: ARB_ETH,
      to: ARB_USDC,
      side: 'exact_in',
      amount_atoms: 10n ** 18n,
      spread_bps: 20,
      integrator_fee_bps: '12.5',
    });
    const f = forwardOut(world, {
      org,
      from: ARB_ETH,
      to: ARB_USDC,
      amount_in_atoms: q.amount_in_atoms,
      spread_bps: 20,
      integrator_fee_bps: '12.5',
    });
    expect(f).toEqual({ gross_out_atoms: q.gross_out_atoms, fees: q.fees, expected_out_atoms: q.expected_out_atoms });
    expect(serializeFees(f.fees)).toEqual({
      platform_bps: '10',
      integrator_bps: '12.5',
      total_bps: '22.5',
      platform_atoms: '3193600',
      integrator_atoms: '3992000',
      total_atoms: '7185600',
    });
    expect(q.notional_usd_scaled).toBe(3200n * 10n ** 12n);
    expect(q.from_price_usd_scaled).toBe(3200n * 10n ** 12n);
    expect(q.to_price_usd_scaled).toBe(10n ** 12n);
  });

  it('checkPairAllowed: forbidden_asset, then unsupported_pair (same asset, no market)', () => {
    expect(codeOf(() => checkPairAllowed(world, org, ARB_ETH, assetByKey('native.btc')!))).toBe('forbidden_asset');
    expect(codeOf(() => checkPairAllowed(world, org, ARB_ETH, ARB_ETH))).toBe('unsupported_pair');
    expect(codeOf(() => checkPairAllowed(world, org, BONK, ARB_USDC))).toBe('unsupported_pair');
    expect(codeOf(() => checkPairAllowed(world, org, ARB_ETH, ARB_USDC))).toBeUndefined();
    expect(codeOf(() => price(world, { org, from: ARB_ETH, to: ARB_USDC, side: 'exact_out', amount_atoms: 0n, spread_bps: 5 }))).toBe(
      'invalid_parameter',
    );
  });

  it('draws stay within the profile bounds; a substream draw does not move the main stream', () => {
    for (let i = 0; i < 200; i++) {
      const s = drawSpreadBps(world);
      const l = drawSolverLatencyMs(world);
      expect(s >= DEFAULT_PROFILE.spread_bps.min && s <= DEFAULT_PROFILE.spread_bps.max).toBe(true);
      expect(l >= DEFAULT_PROFILE.solver_latency_ms.min && l <= DEFAULT_PROFILE.solver_latency_ms.max).toBe(true);
    }
    const a = newWorld({ clock: 'virtual', seed: 'draws', profile: DEFAULT_PROFILE });
    const b = newWorld({ clock: 'virtual', seed: 'draws', profile: DEFAULT_PROFILE });
    expect(drawSpreadBps(a, 'rfq-0')).toBe(drawSpreadBps(b, 'rfq-0'));
    drawSpreadBps(a, 'rfq-1');
    expect([drawSpreadBps(a), drawSpreadBps(a), drawSpreadBps(a)]).toEqual([drawSpreadBps(b), drawSpreadBps(b), drawSpreadBps(b)]);
  });
});
