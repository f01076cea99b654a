// Firm RFQs and accepting quotes over real HTTP on the virtual clock: firm checks against accounts,
// destinations and credits, accepting into a trade (once, even when raced), expiry and re-checks at accept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import {
  BTC,
  ETH,
  expectError,
  firmBody,
  fundedAccount,
  indicativeBody,
  rfqHelpers,
  SIM_OPTIONS,
  SOL,
  type Funded,
} from '../../testing/fixtures/rfqs.ts';

const { RAISED, FIXED } = SIM_OPTIONS;

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim({ profile: FIXED, seed_orgs: [{ api_keys: ['sk_test_default'], rate_limits: RAISED }] });
});
afterAll(() => sim.close());

const { setPrices, rfq, quoteOf, accept } = rfqHelpers(() => sim);

describe('firm RFQs and accepting quotes', () => {
  let f: Funded;
  beforeAll(async () => {
    f = await fundedAccount(sim);
  });

  it('a firm quote is accepted into an executing trade; a second accept is quote_consumed; a replayed key answers the same trade', async () => {
    await setPrices();
    const q = await quoteOf(firmBody(f));
    expect(q).toMatchObject({ mode: 'firm', amount_in_atoms: ETH.toString(), expected_out_atoms: '3190406400' });
    const a = await accept(q.quote_id, { slippage_bps: '50', client_order_id: 'order-1' }, { idem: 'accept-1' });
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(a.body.trade).toMatchObject({
      trade_id: expect.any(String),
      status: 'executing',
      quote_id: q.quote_id,
      client_order_id: 'order-1',
      poll_after_ms: expect.any(Number),
    });
    const replay = await accept(q.quote_id, { slippage_bps: '50', client_order_id: 'order-1' }, { idem: 'accept-1' });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(a.body);
    const second = await accept(q.quote_id, { slippage_bps: '50' });
    expectError(second, 409, 'quote_consumed', 'quote_id');
    expect(second.body.error.details).toEqual({ quote_id: q.quote_id, trade_id: a.body.trade.trade_id });
    // the trade holds the credit now: a new firm RFQ on it is refused
    expectError(await rfq(firmBody(f)), 409, 'credit_in_use', 'credit_id');
    // once the trade settles the source credit is consumed for good
    await sim.settle();
    const credits = (await sim.api('GET', `/accounts/${f.account_id}/credits?status=consumed`)).body.credits;
    expect(credits.map((c: any) => c.credit_id)).toEqual([f.credit_id]);
    expectError(await rfq(firmBody(f)), 409, 'credit_already_consumed', 'credit_id');
  });

  it('requires the firm fields, and checks account, destination and credit', async () => {
    const g = await fundedAccount(sim);
    await setPrices();
    expectError(await rfq(firmBody(g, { account_id: undefined })), 400, 'parameter_missing', 'account_id');
    expectError(await rfq(firmBody(g, { destination_id: undefined })), 400, 'parameter_missing', 'destination_id');
    expectError(await rfq(firmBody(g, { credit_id: undefined })), 400, 'parameter_missing', 'credit_id');
    expectError(await rfq(firmBody(g, { account_id: 'acct_nope' })), 404, 'account_not_found', 'account_id');
    expectError(await rfq(firmBody(g, { account_id: f.account_id })), 404, 'destination_not_found', 'destination_id');
    expectError(await rfq(firmBody(g, { destination_id: 'dest_nope' })), 404, 'destination_not_found', 'destination_id');
    expectError(await rfq(firmBody(g, { to_asset_key: BTC })), 400, 'invalid_parameter', 'destination_id');
    expectError(await rfq(firmBody(g, { credit_id: 'cred_nope' })), 404, 'not_found', 'credit_id');
    expectError(await rfq(firmBody(g, { credit_id: f.credit_id })), 404, 'not_found', 'credit_id');
    expectError(await rfq(firmBody(g, { from_asset_key: SOL, amount_in_atoms: '10000000000' })), 400, 'invalid_parameter', 'credit_id');
    // the credit holds 2 ETH
    expectError(await rfq(firmBody(g, { amount_in_atoms: (3n * ETH).toString() })), 422, 'insufficient_balance', 'credit_id');
    const short = await rfq(
      firmBody(g, { side: 'exact_out', amount_in_atoms: undefined, amount_out_atoms: (7_000n * 10n ** 6n).toString() }),
    );
    expectError(short, 422, 'insufficient_balance', 'credit_id');
    expect(short.body.error.details).toMatchObject({ credit_id: g.credit_id, available_atoms: (2n * ETH).toString() });
    // another organization cannot name this account
    const other = (await sim.newOrg({ rate_limits: RAISED })).api_key;
    expectError(await rfq(firmBody(g), { key: other }), 404, 'account_not_found', 'account_id');
    // an indicative RFQ may name them, and then they must exist
    expect((await rfq(indicativeBody({ account_id: g.account_id, credit_id: g.credit_id, destination_id: g.destination_id }))).status).toBe(
      200,
    );
    expectError(await rfq(indicativeBody({ account_id: g.account_id, credit_id: 'cred_nope' })), 404, 'not_found', 'credit_id');
    expectError(
      await rfq(indicativeBody({ account_id: g.account_id, destination_id: 'dest_nope' })),
      404,
      'destination_not_found',
      'destination_id',
    );
    expect((await rfq(firmBody(g))).status).toBe(200);
  });

  it('accept refuses indicative quotes (quote_not_firm) and validates its body', async () => {
    const q = await quoteOf(indicativeBody());
    expectError(await accept(q.quote_id), 422, 'quote_not_firm', 'quote_id');
    const firm = await quoteOf(firmBody(await fundedAccount(sim)));
    expectError(await accept(firm.quote_id, {}), 400, 'parameter_missing', 'slippage_bps');
    expectError(await accept(firm.quote_id, { slippage_bps: '10001' }), 400, 'invalid_parameter', 'slippage_bps');
    expectError(await accept(firm.quote_id, { slippage_bps: 50 }), 400, 'invalid_parameter', 'slippage_bps');
    expectError(
      await sim.api('POST', `/quotes/${firm.quote_id}/accept`, { body: { slippage_bps: '50' }, idem: '' }),
      400,
      'parameter_missing',
      'Idempotency-Key',
    );
    expect((await accept(firm.quote_id, { slippage_bps: '12.5' })).status).toBe(200);
  });

  it('accept after expires_at_ms answers quote_expired and changes nothing', async () => {
    const g = await fundedAccount(sim);
    const q = await quoteOf(firmBody(g));
    await sim.advance(1_000);
    const r = await accept(q.quote_id);
    expectError(r, 410, 'quote_expired', 'quote_id');
    expect(r.body.error.details).toEqual({ quote_id: q.quote_id, expired_at_ms: q.expires_at_ms });
    const credit = (await sim.api('GET', `/accounts/${g.account_id}/credits`)).body.credits[0];
    expect(credit).toMatchObject({ credit_id: g.credit_id, status: 'open' });
    expect((await rfq(firmBody(g))).status).toBe(200);
  });

  it('accept re-checks the destination (destination_suspended) and the account (account_not_operable)', async () => {
    const g = await fundedAccount(sim);
    const q1 = await quoteOf(firmBody(g));
    await sim.control('POST', `/destinations/${g.destination_id}/suspend`, { reason: 'delta screening' });
    const r = await accept(q1.quote_id);
    expectError(r, 403, 'destination_suspended', 'destination_id');
    expectError(await rfq(firmBody(g)), 403, 'destination_suspended', 'destination_id');
    await sim.control('POST', `/destinations/${g.destination_id}/reactivate`);
    const q2 = await quoteOf(firmBody(g));
    await sim.api('POST', `/accounts/${g.account_id}/deactivate`);
    expectError(await accept(q2.quote_id), 409, 'account_not_operable', 'account_id');
    expectError(await rfq(firmBody(g)), 409, 'account_not_operable', 'account_id');
    // indicative RFQs ignore operability
    expect((await rfq(indicativeBody({ account_id: g.account_id }))).status).toBe(200);
  });

  it('accept re-checks the credit: a second quote on a credit a trade holds gets credit_in_use', async () => {
    const g = await fundedAccount(sim);
    const q1 = await quoteOf(firmBody(g));
    const q2 = await quoteOf(firmBody(g, { amount_in_atoms: (ETH / 2n).toString() }));
    expect((await accept(q1.quote_id)).status).toBe(200);
    const r = await accept(q2.quote_id);
    expectError(r, 409, 'credit_in_use', 'credit_id');
    expect((await sim.api('GET', `/quotes/${q2.quote_id}`)).status).toBe(200);
  });

  it('two concurrent accepts of one quote: exactly one trade, the other quote_consumed', async () => {
    const g = await fundedAccount(sim);
    const q = await quoteOf(firmBody(g));
    const results = await Promise.all([accept(q.quote_id), accept(q.quote_id), accept(q.quote_id)]);
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expectError(r, 409, 'quote_consumed');
    const trades = sim.running.runtime.world.events.all.filter(
      (e) => e.envelope.type === 'trade.executing' && e.envelope.data.quote_id === q.quote_id,
    );
    expect(trades).toHaveLength(1);
  });

  it('keeps every invariant', async () => {
    await sim.settle();
    expect(await sim.invariants()).toMatchObject({ ok: true, violations: [] });
  });
});
