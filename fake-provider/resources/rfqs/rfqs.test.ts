// RFQs and quotes over real HTTP on the virtual clock: ready within wait_ms or pending then polled, exact
// pricing (fees, exact_out, routes), expiry, pair liquidity, profile variants and determinism, and every
// error code POST /rfqs answers. Firm RFQs and accepting quotes are accept.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { bpsUnits, forward } from '../pricing/arithmetic.ts';
import {
  ARB_ETH,
  ARB_USDC,
  BONK,
  BTC,
  ETH,
  expectError,
  indicativeBody,
  rfqHelpers,
  SIM_OPTIONS,
  SOL,
  SOL_USDC,
} from '../../testing/fixtures/rfqs.ts';

const { RAISED, FIXED } = SIM_OPTIONS;

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim({ profile: FIXED, seed_orgs: [{ api_keys: ['sk_test_default'], rate_limits: RAISED }] });
});
afterAll(() => sim.close());

const { now, setPrices, rfq, quoteOf, accept } = rfqHelpers(() => sim);

describe('POST /rfqs answers ready or pending', () => {
  it('answers 200 ready with best_quote_id when the solvers answer within wait_ms', async () => {
    const r = await rfq(indicativeBody());
    expect(r.status).toBe(200);
    expect(r.body.request_id).toMatch(/^req_/);
    expect(r.body.rfq).toEqual({
      rfq_id: expect.stringMatching(/^rfq_/),
      status: 'ready',
      best_quote_id: expect.stringMatching(/^quote_/),
    });
    const g = await sim.api('GET', `/rfqs/${r.body.rfq.rfq_id}`);
    expect(g.status).toBe(200);
    expect(g.body.rfq).toEqual(r.body.rfq);
  });

  it('answers 202 pending with poll_after_ms, polls down to ready, and replays the key with the same rfq_id', async () => {
    const r = await rfq(indicativeBody({ wait_ms: 0 }), { idem: 'rfq-pending-1' });
    expect(r.status).toBe(202);
    expect(r.body.rfq).toEqual({ rfq_id: expect.stringMatching(/^rfq_/), status: 'pending', poll_after_ms: 100 });
    const rfq_id = r.body.rfq.rfq_id;
    const again = await rfq(indicativeBody({ wait_ms: 0 }), { idem: 'rfq-pending-1' });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(r.body);
    expectError(await rfq(indicativeBody({ wait_ms: 1 }), { idem: 'rfq-pending-1' }), 409, 'idempotency_key_reuse', 'Idempotency-Key');

    await sim.advance(60);
    expect((await sim.api('GET', `/rfqs/${rfq_id}`)).body.rfq).toEqual({ rfq_id, status: 'pending', poll_after_ms: 40 });
    await sim.advance(40);
    const ready = (await sim.api('GET', `/rfqs/${rfq_id}`)).body.rfq;
    expect(ready).toEqual({ rfq_id, status: 'ready', best_quote_id: expect.stringMatching(/^quote_/) });
    expect((await sim.api('GET', `/quotes/${ready.best_quote_id}`)).body.quote.rfq_id).toBe(rfq_id);
  });

  it('an RFQ whose TTL ends before the solvers answer never gets a quote and then answers rfq_expired', async () => {
    const r = await rfq(indicativeBody({ ttl_ms: 100 }));
    expect(r.status).toBe(202);
    expect(r.body.rfq.status).toBe('pending');
    expect((await sim.api('GET', `/rfqs/${r.body.rfq.rfq_id}`)).body.rfq.status).toBe('pending');
    await sim.advance(100);
    const g = await sim.api('GET', `/rfqs/${r.body.rfq.rfq_id}`);
    expectError(g, 410, 'rfq_expired', 'rfq_id');
    expect(g.body.error.details).toMatchObject({ rfq_id: r.body.rfq.rfq_id });
  });

  it('a quote expires with its RFQ (created + ttl_ms); GET rfq then answers rfq_expired, GET quote still reads', async () => {
    const t0 = await now();
    const r = await rfq(indicativeBody({ ttl_ms: 5_000 }));
    const q = (await sim.api('GET', `/quotes/${r.body.rfq.best_quote_id}`)).body.quote;
    expect(q.expires_at_ms).toBe(t0 + 5_000);
    await sim.advance(4_999);
    expect((await sim.api('GET', `/rfqs/${r.body.rfq.rfq_id}`)).status).toBe(200);
    await sim.advance(1);
    expectError(await sim.api('GET', `/rfqs/${r.body.rfq.rfq_id}`), 410, 'rfq_expired');
    expect((await sim.api('GET', `/quotes/${q.quote_id}`)).body.quote).toEqual(q);
  });

  it('no quote when prices or liquidity moved before a late answer: the RFQ stays pending, then expires', async () => {
    const r = await rfq(indicativeBody({ wait_ms: 0 }));
    expect(r.status).toBe(202);
    await sim.control('PUT', '/market/liquidity', { pairs: [{ from_asset_key: ARB_ETH, to_asset_key: ARB_USDC, max_notional_usd: '0' }] });
    await sim.advance(100);
    expect((await sim.api('GET', `/rfqs/${r.body.rfq.rfq_id}`)).body.rfq).toMatchObject({ status: 'pending', poll_after_ms: 900 });
    await sim.control('PUT', '/market/liquidity', { pairs: [{ from_asset_key: ARB_ETH, to_asset_key: ARB_USDC, max_notional_usd: null }] });
    await sim.advance(900);
    expectError(await sim.api('GET', `/rfqs/${r.body.rfq.rfq_id}`), 410, 'rfq_expired');
  });
});

describe('quotes: every field, exact BigInt pricing', () => {
  it('GET /quotes shows every Quote field; 1 ETH → USDC at 3200, 20 bps spread, 10 bps platform fee', async () => {
    await setPrices();
    const q = await quoteOf(indicativeBody());
    expect(q).toEqual({
      quote_id: expect.stringMatching(/^quote_/),
      rfq_id: expect.stringMatching(/^rfq_/),
      mode: 'indicative',
      expires_at_ms: expect.any(Number),
      route_type: 'LOCAL_CHAIN_SWAP',
      settlement_domains: ['evm:42161'],
      from_asset_key: ARB_ETH,
      to_asset_key: ARB_USDC,
      side: 'exact_in',
      amount_in_atoms: ETH.toString(),
      expected_out_atoms: '3190406400',
      fees: {
        platform_bps: '10',
        integrator_bps: '0',
        total_bps: '10',
        platform_atoms: '3193600',
        integrator_atoms: '0',
        total_atoms: '3193600',
      },
      route_requirements: {},
    });
  });

  it('integrator_fee_bps on the request (a decimal) overrides the org default; platform + integrator = total; expected = gross − total', async () => {
    const key = (await sim.newOrg({ rate_limits: RAISED, platform_fee_bps: '10', integrator_fee_bps: '2.5' })).api_key;
    await setPrices();
    const orgDefault = await quoteOf(indicativeBody(), key);
    expect(orgDefault.fees).toEqual({
      platform_bps: '10',
      integrator_bps: '2.5',
      total_bps: '12.5',
      platform_atoms: '3193600',
      integrator_atoms: '798400',
      total_atoms: '3992000',
    });
    const q = await quoteOf(indicativeBody({ integrator_fee_bps: '12.5' }), key);
    expect(q.fees).toEqual({
      platform_bps: '10',
      integrator_bps: '12.5',
      total_bps: '22.5',
      platform_atoms: '3193600',
      integrator_atoms: '3992000',
      total_atoms: '7185600',
    });
    expect(BigInt(q.fees.platform_atoms) + BigInt(q.fees.integrator_atoms)).toBe(BigInt(q.fees.total_atoms));
    expect(BigInt(q.expected_out_atoms)).toBe(3_193_600_000n - 7_185_600n);
    // fee atoms floor: 0.0001 bps (1e-8) of 3193600000 atoms is 31.936 atoms → 31
    const tiny = await quoteOf(indicativeBody({ integrator_fee_bps: '0.0001' }), key);
    expect(tiny.fees).toMatchObject({ integrator_bps: '0.0001', integrator_atoms: '31', total_bps: '10.0001', total_atoms: '3193631' });
  });

  it('amounts in UI units convert with the asset decimals', async () => {
    await setPrices();
    const q = await quoteOf(indicativeBody({ amount_in_atoms: undefined, amount_in_ui: '1.5' }));
    expect(q.amount_in_atoms).toBe('1500000000000000000');
  });

  it('exact_out: net out ≥ the amount asked, from the least input (one wei less falls short)', async () => {
    await setPrices();
    const want = 1_000_000_000n;
    const q = await quoteOf(indicativeBody({ side: 'exact_out', amount_in_atoms: undefined, amount_out_atoms: want.toString() }));
    expect(q.side).toBe('exact_out');
    const expected = BigInt(q.expected_out_atoms);
    expect(expected >= want).toBe(true);
    expect(expected - BigInt(q.fees.total_atoms) < want + 10n).toBe(true);
    const rate = {
      from_price_usd_scaled: 3200n * 10n ** 12n,
      to_price_usd_scaled: 10n ** 12n,
      from_decimals: 18,
      to_decimals: 6,
      spread_bps: 20,
    };
    const rates = { platform_units: bpsUnits('10'), integrator_units: 0n };
    const a = BigInt(q.amount_in_atoms);
    expect(forward(a, rate, rates).expected_out_atoms).toBe(expected);
    expect(forward(a - 1n, rate, rates).expected_out_atoms < want).toBe(true);
    const ui = await quoteOf(indicativeBody({ side: 'exact_out', amount_in_atoms: undefined, amount_out_ui: '100.25' }));
    expect(BigInt(ui.expected_out_atoms) >= 100_250_000n).toBe(true);
  });

  it('route types: same chain LOCAL_CHAIN_SWAP, out of Solana HYBRID (min_intermediate_out in Solana USDC), else INTENTS_ONLY', async () => {
    await setPrices({ [ARB_ETH]: '3200', [ARB_USDC]: '1', [BTC]: '95000', [SOL]: '180', [SOL_USDC]: '1' });
    const intents = await quoteOf(indicativeBody({ to_asset_key: BTC }));
    expect(intents).toMatchObject({ route_type: 'INTENTS_ONLY', settlement_domains: ['intents'], route_requirements: {} });
    const hybrid = await quoteOf(indicativeBody({ from_asset_key: SOL, amount_in_atoms: (10n * 10n ** 9n).toString() }));
    expect(hybrid).toMatchObject({
      route_type: 'HYBRID_SOLANA_TO_INTENTS',
      settlement_domains: ['solana', 'intents'],
      // 10 SOL × 180 USD = 1800 USD, less 1%, in 6-decimal Solana USDC
      route_requirements: { min_intermediate_out: { asset_key: SOL_USDC, min_out_atoms: '1782000000' } },
    });
    const local = await quoteOf(
      indicativeBody({ from_asset_key: SOL, to_asset_key: SOL_USDC, amount_in_atoms: (10n * 10n ** 9n).toString() }),
    );
    expect(local).toMatchObject({ route_type: 'LOCAL_CHAIN_SWAP', settlement_domains: ['solana'], route_requirements: {} });
  });

  it('accepts registered symbols for either asset', async () => {
    const put = await sim.api('PUT', '/symbols', {
      body: {
        symbols: [
          { symbol: 'AETH', asset_key: ARB_ETH },
          { symbol: 'AUSDC', asset_key: ARB_USDC },
        ],
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const q = await quoteOf(
      indicativeBody({ from_asset_key: undefined, from_symbol: 'aeth', to_asset_key: undefined, to_symbol: 'AUSDC' }),
    );
    expect(q).toMatchObject({ from_asset_key: ARB_ETH, to_asset_key: ARB_USDC });
  });

  it('GET /quotes/:id answers 404 quote_not_found for unknown ids and other organizations', async () => {
    const r = await rfq(indicativeBody());
    const other = (await sim.newOrg({ rate_limits: RAISED })).api_key;
    expectError(await sim.api('GET', `/quotes/${r.body.rfq.best_quote_id}`, { key: other }), 404, 'quote_not_found', 'quote_id');
    expectError(await sim.api('GET', '/quotes/quote_nope'), 404, 'quote_not_found');
    expectError(await sim.api('GET', `/rfqs/${r.body.rfq.rfq_id}`, { key: other }), 404, 'rfq_not_found', 'rfq_id');
    expectError(await sim.api('GET', '/rfqs/rfq_nope'), 404, 'rfq_not_found');
    expectError(await accept(r.body.rfq.best_quote_id, { slippage_bps: '50' }, { key: other }), 404, 'quote_not_found');
  });
});

describe('POST /rfqs validation (nothing is created)', () => {
  const count = () => sim.running.runtime.world.transitions.records.filter((t) => t.kind === 'rfq' && t.from === null).length;

  it.each([
    ['side', { side: undefined }, 'parameter_missing', 'side'],
    ['mode', { mode: undefined }, 'parameter_missing', 'mode'],
    ['from asset', { from_asset_key: undefined }, 'parameter_missing', 'from_asset_key'],
    ['to asset', { to_asset_key: undefined }, 'parameter_missing', 'to_asset_key'],
    ['amount', { amount_in_atoms: undefined }, 'parameter_missing', 'amount_in_atoms'],
    ['exact_out amount', { side: 'exact_out', amount_in_atoms: undefined }, 'parameter_missing', 'amount_out_atoms'],
    ['both from members', { from_symbol: 'AETH' }, 'invalid_parameter', 'from_symbol'],
    ['both to members', { to_symbol: 'AUSDC' }, 'invalid_parameter', 'to_symbol'],
    ['both amount members', { amount_in_ui: '1' }, 'invalid_parameter', 'amount_in_ui'],
    ['the other side’s amount (exact_in)', { amount_out_atoms: '5' }, 'invalid_parameter', 'amount_out_atoms'],
    ['the other side’s amount (exact_out)', { side: 'exact_out', amount_out_atoms: '5' }, 'invalid_parameter', 'amount_in_atoms'],
    ['zero amount', { amount_in_atoms: '0' }, 'invalid_parameter', 'amount_in_atoms'],
    ['malformed amount', { amount_in_atoms: '1.5' }, 'invalid_parameter', 'amount_in_atoms'],
    ['ttl_ms below bounds', { ttl_ms: 99 }, 'invalid_parameter', 'ttl_ms'],
    ['ttl_ms above bounds', { ttl_ms: 60_001 }, 'invalid_parameter', 'ttl_ms'],
    ['wait_ms below bounds', { wait_ms: -1 }, 'invalid_parameter', 'wait_ms'],
    ['wait_ms above bounds', { wait_ms: 10_001 }, 'invalid_parameter', 'wait_ms'],
    ['ttl_ms not an integer', { ttl_ms: 'soon' }, 'invalid_parameter', 'ttl_ms'],
    ['integrator_fee_bps not a decimal', { integrator_fee_bps: '1e3' }, 'invalid_parameter', 'integrator_fee_bps'],
    ['fees above the cap', { integrator_fee_bps: '4999' }, 'invalid_parameter', 'integrator_fee_bps'],
    ['side enum', { side: 'sideways' }, 'invalid_enum', 'side'],
    ['mode enum', { mode: 'maybe' }, 'invalid_enum', 'mode'],
    ['ui precision', { amount_in_atoms: undefined, amount_in_ui: '0.0000000000000000001' }, 'ui_precision_exceeded', 'amount_in_ui'],
    [
      'exact_out ui precision',
      { side: 'exact_out', amount_in_atoms: undefined, amount_out_ui: '1.0000001' },
      'ui_precision_exceeded',
      'amount_out_ui',
    ],
    ['asset_key grammar', { from_asset_key: 'eth' }, 'invalid_asset_key', 'from_asset_key'],
    ['symbol format', { from_asset_key: undefined, from_symbol: '-x-' }, 'invalid_symbol', 'from_symbol'],
    ['unknown symbol', { to_asset_key: undefined, to_symbol: 'NOPE' }, 'symbol_not_found', 'to_symbol'],
    ['unsupported asset', { to_asset_key: 'native.evm:999' }, 'asset_not_supported', 'to_asset_key'],
    ['same asset twice', { to_asset_key: ARB_ETH }, 'unsupported_pair', 'to_asset_key'],
    ['asset without a market', { to_asset_key: BONK }, 'unsupported_pair', 'to_asset_key'],
    ['below 1 USD notional', { amount_in_atoms: (ETH / 10_000n).toString() }, 'insufficient_liquidity', 'amount_in_atoms'],
    ['above 100000 USD notional', { amount_in_atoms: (40n * ETH).toString() }, 'insufficient_liquidity', 'amount_in_atoms'],
    [
      'exact_out above 100000 USD',
      { side: 'exact_out', amount_in_atoms: undefined, amount_out_atoms: (200_000n * 10n ** 6n).toString() },
      'insufficient_liquidity',
      'amount_out_atoms',
    ],
    ['unknown account on an indicative RFQ', { account_id: 'acct_nope' }, 'account_not_found', 'account_id'],
    ['credit without account on an indicative RFQ', { credit_id: 'cred_x' }, 'parameter_missing', 'account_id'],
  ])('%s', async (_name, patch, code, param) => {
    if (code === 'invalid_parameter' && param === 'from_symbol') {
      await sim.api('PUT', '/symbols', {
        body: {
          symbols: [
            { symbol: 'AETH', asset_key: ARB_ETH },
            { symbol: 'AUSDC', asset_key: ARB_USDC },
          ],
        },
      });
    }
    await setPrices();
    const before = count();
    const r = await rfq(indicativeBody(patch as Record<string, unknown>));
    const statuses: Record<string, number> = {
      parameter_missing: 400,
      invalid_parameter: 400,
      invalid_enum: 400,
      ui_precision_exceeded: 400,
      invalid_asset_key: 400,
      invalid_symbol: 400,
      symbol_not_found: 404,
      asset_not_supported: 404,
      unsupported_pair: 400,
      insufficient_liquidity: 422,
      account_not_found: 404,
    };
    expectError(r, statuses[code], code, param);
    expect(r.body.error.type).toBeTypeOf('string');
    expect(count()).toBe(before);
  });

  it('requires Idempotency-Key', async () => {
    expectError(await sim.api('POST', '/rfqs', { body: indicativeBody(), idem: '' }), 400, 'parameter_missing', 'Idempotency-Key');
  });

  it('forbidden_asset (403) from the organization’s asset policy, on either side', async () => {
    const org = await sim.newOrg({ rate_limits: RAISED, forbidden_assets: [BTC] });
    const listed = (await sim.control('GET', '/organizations')).body.organizations.find(
      (o: any) => o.organization_id === org.organization_id,
    );
    expect(listed.forbidden_assets).toEqual([BTC]);
    expectError(await rfq(indicativeBody({ to_asset_key: BTC }), { key: org.api_key }), 403, 'forbidden_asset', 'to_asset_key');
    expectError(
      await rfq(indicativeBody({ from_asset_key: BTC, amount_in_atoms: '100000000' }), { key: org.api_key }),
      403,
      'forbidden_asset',
      'from_asset_key',
    );
    expect((await rfq(indicativeBody(), { key: org.api_key })).status).toBe(200);
    expectError(await sim.control('POST', '/organizations', { forbidden_assets: ['eth'] }), 400, 'invalid_asset_key', 'forbidden_assets.0');
    expectError(
      await sim.control('POST', '/organizations', { forbidden_assets: ['native.evm:999'] }),
      404,
      'asset_not_supported',
      'forbidden_assets.0',
    );
  });
});

describe('pair liquidity (/_sim/market/liquidity)', () => {
  const pair = (max_notional_usd: string | null, from = ARB_ETH, to = ARB_USDC) => ({
    from_asset_key: from,
    to_asset_key: to,
    max_notional_usd,
  });

  it('a lowered pair refuses larger trades with insufficient_liquidity; the reverse pair and smaller trades are unaffected; null restores', async () => {
    const put = await sim.control('PUT', '/market/liquidity', { pairs: [pair('500')] });
    expect(put.status).toBe(200);
    expect(put.body.liquidity).toEqual({
      default_max_notional_usd: '100000',
      pairs: [{ from_asset_key: ARB_ETH, to_asset_key: ARB_USDC, max_notional_usd: '500' }],
    });
    expect((await sim.control('GET', '/market/liquidity')).body.liquidity).toEqual(put.body.liquidity);
    await setPrices();
    const big = await rfq(indicativeBody());
    expectError(big, 422, 'insufficient_liquidity', 'amount_in_atoms');
    expect(big.body.error.details).toEqual({ max_notional_usd: '500' });
    expect((await rfq(indicativeBody({ amount_in_atoms: (ETH / 10n).toString() }))).status).toBe(200);
    expect((await rfq(indicativeBody({ from_asset_key: ARB_USDC, to_asset_key: ARB_ETH, amount_in_atoms: '3000000000' }))).status).toBe(
      200,
    );
    await sim.control('PUT', '/market/liquidity', { pairs: [pair('0')] });
    expectError(await rfq(indicativeBody({ amount_in_atoms: (ETH / 10n).toString() })), 422, 'insufficient_liquidity', 'to_asset_key');
    await sim.control('PUT', '/market/liquidity', { pairs: [pair(null)] });
    expect((await sim.control('GET', '/market/liquidity')).body.liquidity.pairs).toEqual([]);
    expect((await rfq(indicativeBody())).status).toBe(200);
  });

  it('validates every entry and applies all or nothing', async () => {
    expectError(
      await sim.control('PUT', '/market/liquidity', { pairs: [pair('10'), pair('5', 'eth')] }),
      400,
      'invalid_asset_key',
      'pairs.1.from_asset_key',
    );
    expectError(
      await sim.control('PUT', '/market/liquidity', { pairs: [pair('10'), pair('5', 'native.evm:999')] }),
      404,
      'asset_not_supported',
      'pairs.1.from_asset_key',
    );
    expectError(
      await sim.control('PUT', '/market/liquidity', { pairs: [pair('10'), pair('-5')] }),
      400,
      'invalid_parameter',
      'pairs.1.max_notional_usd',
    );
    expectError(
      await sim.control('PUT', '/market/liquidity', { pairs: [pair('10', ARB_ETH, ARB_ETH)] }),
      400,
      'unsupported_pair',
      'pairs.0.to_asset_key',
    );
    expectError(await sim.control('PUT', '/market/liquidity', {}), 400, 'parameter_missing', 'pairs');
    expect((await sim.control('GET', '/market/liquidity')).body.liquidity.pairs).toEqual([]);
  });
});

describe('profile variants and determinism', () => {
  it('default profile: solver latency sometimes within the default wait_ms (200), sometimes not (202)', async () => {
    const s = await startTestSim({ seed: 'rfq-latency', seed_orgs: [{ api_keys: ['sk_test_default'], rate_limits: RAISED }] });
    try {
      const statuses = new Set<number>();
      for (let i = 0; i < 12; i++) statuses.add((await s.api('POST', '/rfqs', { body: indicativeBody() })).status);
      expect([...statuses].sort()).toEqual([200, 202]);
    } finally {
      await s.close();
    }
  });

  it('slow solvers (profile) answer 202 with poll_after_ms = latency − wait_ms, ready once the clock gets there', async () => {
    const s = await startTestSim({
      profile: { ...FIXED, solver_latency_ms: { min: 600, max: 600 } },
      seed_orgs: [{ api_keys: ['sk_test_default'], rate_limits: RAISED }],
    });
    try {
      const r = await s.api('POST', '/rfqs', { body: indicativeBody() });
      expect(r.status).toBe(202);
      expect(r.body.rfq.poll_after_ms).toBe(350);
      await s.advance(599);
      expect((await s.api('GET', `/rfqs/${r.body.rfq.rfq_id}`)).body.rfq).toMatchObject({ status: 'pending', poll_after_ms: 1 });
      await s.advance(1);
      expect((await s.api('GET', `/rfqs/${r.body.rfq.rfq_id}`)).body.rfq.status).toBe('ready');
    } finally {
      await s.close();
    }
  });

  it('size outside 1..100000 USD can answer invalid_parameter instead (profile)', async () => {
    const s = await startTestSim({
      profile: { ...FIXED, size_out_of_bounds_error: 'invalid_parameter' },
      seed_orgs: [{ api_keys: ['sk_test_default'], rate_limits: RAISED }],
    });
    try {
      const r = await s.api('POST', '/rfqs', { body: indicativeBody({ amount_in_atoms: '1000' }) });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_parameter', param: 'amount_in_atoms' });
    } finally {
      await s.close();
    }
  });

  it('quote reads after expiry can answer quote_expired (profile)', async () => {
    const s = await startTestSim({
      profile: { ...FIXED, quote_read_after_expiry: 'quote_expired' },
      seed_orgs: [{ api_keys: ['sk_test_default'], rate_limits: RAISED }],
    });
    try {
      const r = await s.api('POST', '/rfqs', { body: indicativeBody() });
      expect((await s.api('GET', `/quotes/${r.body.rfq.best_quote_id}`)).status).toBe(200);
      await s.advance(1_000);
      const g = await s.api('GET', `/quotes/${r.body.rfq.best_quote_id}`);
      expect(g.status).toBe(410);
      expect(g.body.error.code).toBe('quote_expired');
    } finally {
      await s.close();
    }
  });

  it('the same seed and requests give the same RFQs and quotes byte for byte; refused requests move no draw', async () => {
    const run = async (seed: string, refuseFirst: boolean): Promise<unknown[]> => {
      const s = await startTestSim({ seed, seed_orgs: [{ api_keys: ['sk_test_default'], rate_limits: RAISED }] });
      try {
        const out: unknown[] = [];
        if (refuseFirst) expect((await s.api('POST', '/rfqs', { body: indicativeBody({ amount_in_atoms: '1' }) })).status).toBe(422);
        for (const amount of ['1', '0.5', '2', '0.25', '3']) {
          const r = await s.api('POST', '/rfqs', {
            body: indicativeBody({ amount_in_atoms: undefined, amount_in_ui: amount, wait_ms: 1_000 }),
          });
          const q = await s.api('GET', `/quotes/${r.body.rfq.best_quote_id}`);
          out.push([r.status, r.body.rfq, q.body.quote]);
          await s.advance(30_000);
        }
        return out;
      } finally {
        await s.close();
      }
    };
    const a = await run('rfq-det', false);
    expect(await run('rfq-det', false)).toEqual(a);
    // ids differ (the refused request took a request id); statuses, timings and prices do not
    const priced = (runs: unknown[]) =>
      runs.map((x: any) => [x[0], x[1].status, x[2].expires_at_ms, x[2].amount_in_atoms, x[2].expected_out_atoms, x[2].fees]);
    expect(priced(await run('rfq-det', true))).toEqual(priced(a));
    expect(priced(await run('rfq-det-other', false))).not.toEqual(priced(a));
  });
});
