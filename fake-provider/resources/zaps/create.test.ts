// POST /zaps over real HTTP: every error code it answers (each refusal changes nothing), symbols and UI
// amounts, and the credit guards (another account's, another asset's, in use, consumed, too small).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestSim } from '../../testing/harness.ts';
import {
  ARB_ETH,
  ARB_USDC,
  IN_ATOMS,
  creditZap,
  depositZap,
  funded,
  getZap,
  holderOf,
  newDestination,
  newOrgKey,
  nowMs,
  postZap,
  readyAccount,
  startZapSim,
  type Funded,
} from '../../testing/fixtures/zaps.ts';

let sim: TestSim;
let f: Funded;
beforeAll(async () => {
  sim = await startZapSim();
  f = await funded(sim);
});
afterAll(() => sim.close());

async function refused(body: Record<string, unknown>, status: number, code: string, param?: string, key?: string) {
  const r = await postZap(sim, body, { key });
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.error.code).toBe(code);
  if (param !== undefined) expect(r.body.error.param).toBe(param);
  return r.body.error;
}

const without = (body: Record<string, unknown>, ...keys: string[]) =>
  Object.fromEntries(Object.entries(body).filter(([k]) => !keys.includes(k)));

describe('POST /zaps validation (400)', () => {
  it('parameter_missing for each required field and one-of pair', async () => {
    const body = creditZap(f);
    await refused(without(body, 'account_id'), 400, 'parameter_missing', 'account_id');
    await refused(without(body, 'destination_id'), 400, 'parameter_missing', 'destination_id');
    await refused(without(body, 'from_asset_key'), 400, 'parameter_missing', 'from_asset_key');
    await refused(without(body, 'to_asset_key'), 400, 'parameter_missing', 'to_asset_key');
    await refused(without(body, 'amount_in_atoms'), 400, 'parameter_missing', 'amount_in_atoms');
    await refused(without(body, 'min_amount_out_atoms'), 400, 'parameter_missing', 'min_amount_out_atoms');
    const noKey = await sim.api('POST', '/zaps', { body, idem: '' });
    expect(noKey.status).toBe(400);
    expect(noKey.body.error).toMatchObject({ code: 'parameter_missing', param: 'Idempotency-Key' });
  });

  it('invalid_parameter for both members of a one-of pair', async () => {
    await refused(creditZap(f, { from_symbol: 'aUSDC' }), 400, 'invalid_parameter', 'from_symbol');
    await refused(creditZap(f, { to_symbol: 'aETH' }), 400, 'invalid_parameter', 'to_symbol');
    await refused(creditZap(f, { amount_in_ui: '60' }), 400, 'invalid_parameter', 'amount_in_ui');
    await refused(creditZap(f, { min_amount_out_ui: '0' }), 400, 'invalid_parameter', 'min_amount_out_ui');
  });

  it('invalid_parameter for malformed, zero, past or conflicting values', async () => {
    await refused(creditZap(f, { amount_in_atoms: '1.5' }), 400, 'invalid_parameter', 'amount_in_atoms');
    await refused(creditZap(f, { amount_in_atoms: 60000000 }), 400, 'invalid_parameter', 'amount_in_atoms');
    await refused(creditZap(f, { amount_in_atoms: '0' }), 400, 'invalid_parameter', 'amount_in_atoms');
    await refused(creditZap(f, { amount_in_atoms: undefined, amount_in_ui: '0.000' }), 400, 'invalid_parameter', 'amount_in_ui');
    await refused(creditZap(f, { min_amount_out_atoms: '-1' }), 400, 'invalid_parameter', 'min_amount_out_atoms');
    await refused(creditZap(f, { expires_at_ms: await nowMs(sim) }), 400, 'invalid_parameter', 'expires_at_ms');
    await refused(creditZap(f, { expires_at_ms: (await nowMs(sim)) - 1 }), 400, 'invalid_parameter', 'expires_at_ms');
    await refused(creditZap(f, { expires_at_ms: String((await nowMs(sim)) + 60_000) }), 400, 'invalid_parameter', 'expires_at_ms');
    await refused(creditZap(f, { expires_at_ms: 1.5 }), 400, 'invalid_parameter', 'expires_at_ms');
    await refused(creditZap(f, { client_zap_id: '' }), 400, 'invalid_parameter', 'client_zap_id');
    await refused(creditZap(f, { integrator_fee_bps: 'ten' }), 400, 'invalid_parameter', 'integrator_fee_bps');
    // Platform (10) + integrator fees above the profile's cap of 5000 bps.
    await refused(creditZap(f, { integrator_fee_bps: '4995' }), 400, 'invalid_parameter', 'integrator_fee_bps');
    // A destination registered for another asset than the output.
    const usdcDest = await newDestination(sim, f.account_id, ARB_USDC);
    await refused(creditZap(f, { destination_id: usdcDest }), 400, 'invalid_parameter', 'destination_id');
    const r = await sim.api('POST', '/zaps', { raw: '[1,2]' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_parameter');
  });

  it('invalid_enum for a side other than exact_in (zaps are always exact_in)', async () => {
    await refused(creditZap(f, { side: 'exact_out' }), 400, 'invalid_enum', 'side');
  });

  it('ui_precision_exceeded against the from asset (amount in) and the to asset (floor)', async () => {
    await refused(creditZap(f, { amount_in_atoms: undefined, amount_in_ui: '60.0000001' }), 400, 'ui_precision_exceeded', 'amount_in_ui');
    await refused(
      creditZap(f, { min_amount_out_atoms: undefined, min_amount_out_ui: '0.0000000000000000001' }),
      400,
      'ui_precision_exceeded',
      'min_amount_out_ui',
    );
  });

  it('invalid_asset_key, invalid_symbol, symbol_not_found, asset_not_supported (404)', async () => {
    await refused(creditZap(f, { from_asset_key: 'usdc' }), 400, 'invalid_asset_key', 'from_asset_key');
    await refused(creditZap(f, { to_asset_key: '' }), 400, 'invalid_asset_key', 'to_asset_key');
    await refused(creditZap(f, { to_asset_key: undefined, to_symbol: '-eth' }), 400, 'invalid_symbol', 'to_symbol');
    await refused(creditZap(f, { from_asset_key: undefined, from_symbol: 'NOPE' }), 404, 'symbol_not_found', 'from_symbol');
    await refused(creditZap(f, { from_asset_key: 'native.evm:10' }), 404, 'asset_not_supported', 'from_asset_key');
  });

  it('unsupported_pair (400) for the same asset on both sides and for an asset without a market', async () => {
    const ethDest = f.destination_id;
    await refused(
      depositZap(f.account_id, ethDest, { from_asset_key: ARB_ETH, amount_in_atoms: '10000000000000000' }),
      400,
      'unsupported_pair',
    );
    const bonk = 'spl.solana:DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
    const bonkDest = await newDestination(sim, f.account_id, bonk, '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T');
    await refused(depositZap(f.account_id, bonkDest, { to_asset_key: bonk }), 400, 'unsupported_pair', 'to_asset_key');
  });
});

describe('POST /zaps policy, lookups and state', () => {
  it('401 without a bearer key, and 404 account_not_found for unknown and foreign accounts', async () => {
    const r = await postZap(sim, creditZap(f), { key: null });
    expect(r.status).toBe(401);
    await refused(creditZap(f, { account_id: 'acct_nope' }), 404, 'account_not_found', 'account_id');
    const other = await newOrgKey(sim);
    await refused(creditZap(f), 404, 'account_not_found', 'account_id', other);
  });

  it('403 forbidden_asset when the organization may not trade an asset', async () => {
    const key = await newOrgKey(sim, { forbidden_assets: [ARB_ETH] });
    const account_id = await readyAccount(sim, key);
    const destination_id = await newDestination(sim, account_id, ARB_ETH, undefined, key);
    await refused(depositZap(account_id, destination_id), 403, 'forbidden_asset', 'to_asset_key', key);
  });

  it('404 destination_not_found and 403 destination_suspended', async () => {
    await refused(creditZap(f, { destination_id: 'dst_nope' }), 404, 'destination_not_found', 'destination_id');
    const dest = await newDestination(sim, f.account_id, ARB_ETH, '0x2B5AD5c4795c026514f8317c7a215E218DcCD6cF');
    expect((await sim.control('POST', `/destinations/${dest}/suspend`, { reason: 'delta screening' })).status).toBe(200);
    const e = await refused(creditZap(f, { destination_id: dest }), 403, 'destination_suspended', 'destination_id');
    expect(e.details).toMatchObject({ destination_id: dest, suspension_reason: 'delta screening' });
  });

  it('insufficient_liquidity outside 1..100000 USD notional', async () => {
    await refused(
      depositZap(f.account_id, f.destination_id, { amount_in_atoms: '500000' }),
      422,
      'insufficient_liquidity',
      'amount_in_atoms',
    );
    await refused(
      depositZap(f.account_id, f.destination_id, { amount_in_atoms: '100001000000' }),
      422,
      'insufficient_liquidity',
      'amount_in_atoms',
    );
  });

  it('credit guards: another account’s credit (404), another asset (400), too small (422 insufficient_balance)', async () => {
    const g = await funded(sim);
    await refused(creditZap(f, { credit_id: g.credit_id }), 404, 'not_found', 'credit_id');
    await refused(creditZap(f, { credit_id: 'cred_nope' }), 404, 'not_found', 'credit_id');
    const e = await refused(creditZap(f, { amount_in_atoms: '100000001' }), 422, 'insufficient_balance', 'credit_id');
    expect(e.details).toMatchObject({ credit_id: f.credit_id, available_atoms: '100000000', requested_amount_in_atoms: '100000001' });
    // The settlement credit of a zap is ETH: it cannot fund a USDC → ETH zap.
    const r = await postZap(sim, creditZap(g));
    await sim.settle();
    const eth = (await sim.api('GET', `/accounts/${g.account_id}/credits?asset_key=${ARB_ETH}`)).body.credits[0].credit_id;
    await refused(creditZap(g, { credit_id: eth }), 400, 'invalid_parameter', 'credit_id');
    // …and the source credit it consumed answers credit_already_consumed.
    await refused(creditZap(g), 409, 'credit_already_consumed', 'credit_id');
    expect((await getZap(sim, r.body.zap.zap_id)).status).toBe('settled');
  });

  it('409 credit_in_use while another zap holds the credit', async () => {
    const g = await funded(sim);
    const first = await postZap(sim, creditZap(g));
    expect(first.status).toBe(200);
    const e = await refused(creditZap(g, { amount_in_atoms: '1000000' }), 409, 'credit_in_use', 'credit_id');
    expect(e.details).toEqual({ credit_id: g.credit_id });
    await sim.settle();
  });

  it('404 not_available while the chain wallet is not derived (deposit-funded), then 200 once it is', async () => {
    const account_id = (await sim.api('POST', '/accounts', { body: {} })).body.account.account_id;
    const destination_id = await newDestination(sim, account_id, ARB_ETH);
    await refused(depositZap(account_id, destination_id), 404, 'not_available', 'account_id');
    await sim.advance(10_000);
    expect((await postZap(sim, depositZap(account_id, destination_id))).status).toBe(200);
  });

  it('409 account_not_operable on a deactivated account', async () => {
    const g = await funded(sim);
    expect((await sim.api('POST', `/accounts/${g.account_id}/deactivate`)).status).toBe(200);
    const e = await refused(creditZap(g), 409, 'account_not_operable', 'account_id');
    expect(e.details).toMatchObject({ status: 'deactivated' });
    expect(await holderOf(sim, g.credit_id)).toBeNull();
  });

  it('429 rate_limited past the organization’s write limit', async () => {
    const key = await newOrgKey(sim, { rate_limits: { reads: 1000, writes: 1, indicative_rfqs: 1, firm_rfqs: 1 } });
    const replies = await Promise.all([1, 2, 3].map(() => postZap(sim, { account_id: 'acct_x' }, { key })));
    const limited = replies.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(1);
    expect(limited[0].body.error.code).toBe('rate_limited');
  });

  it('no refusal above created a zap, a deposit address, or locked the credit', async () => {
    expect((await sim.api('GET', `/zaps?account_id=${f.account_id}`)).body.zaps).toEqual([]);
    expect((await sim.api('GET', `/accounts/${f.account_id}/deposit-addresses`)).body.deposit_addresses).toHaveLength(1);
    expect(await holderOf(sim, f.credit_id)).toBeNull();
  });
});

describe('POST /zaps with symbols and UI amounts', () => {
  it('resolves from_symbol / to_symbol and converts *_ui with each asset’s decimals', async () => {
    const put = await sim.api('PUT', '/symbols', {
      body: {
        symbols: [
          { symbol: 'aUSDC', asset_key: ARB_USDC },
          { symbol: 'aETH', asset_key: ARB_ETH },
        ],
      },
    });
    expect(put.status).toBe(200);
    const r = await postZap(sim, {
      account_id: f.account_id,
      from_symbol: 'ausdc',
      to_symbol: 'AETH',
      amount_in_ui: '60',
      min_amount_out_ui: '0.0185',
      destination_id: f.destination_id,
      credit_id: f.credit_id,
      side: 'exact_in',
      integrator_fee_bps: '12.5',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const z = await getZap(sim, r.body.zap.zap_id);
    expect(z).toMatchObject({ from_asset_key: ARB_USDC, to_asset_key: ARB_ETH, requested_amount_in_atoms: IN_ATOMS });
    expect(z.fees).toMatchObject({ platform_bps: '10', integrator_bps: '12.5', total_bps: '22.5' });
    await sim.settle();
    expect((await getZap(sim, r.body.zap.zap_id)).status).toBe('settled');
    const inv = await sim.invariants();
    expect(inv.violations).toEqual([]);
  });
});
