// RFQ trading: exact_in and exact_out trades to settlement, a 202-pending RFQ polled to ready, an expired
// quote, an indicative quote accepted, and a deactivated account.
import type { Scenario } from '../dsl/index.ts';
import { ETH, HALF_ETH, ONE_ETH, StepFailed, USDC } from '../dsl/index.ts';
import { funded } from './common.ts';

const TRADE_EVENTS = ['trade.executing', 'trade.filled', 'trade.pending_settle', 'trade.settled'] as const;

export const tradingScenarios: Scenario[] = [
  {
    name: 'trade-exact-in',
    summary: 'Firm exact_in RFQ for half a 1 ETH credit, accepted and settled: settlement and change credits, source consumed',
    tags: ['trade', 'rfq', 'happy-path'],
    async run(t) {
      const f = await funded(t);
      const { trade_id, quote } = await t.trade({ ...f, from: ETH, to: USDC, amount_in_atoms: HALF_ETH });
      const trade = await t.poll('trade', trade_id);
      await t.expectStatus('trade', trade_id, 'settled');
      t.expectEqual('trade fees are the quote fees', trade.fees, quote.fees);
      await t.expectEvents(f.account_id, trade_id, TRADE_EVENTS, { exact: true });
      await t.expectCredit(f.account_id, f.credit_id, 'consumed');
      await t.expectBalance(f.account_id, USDC, quote.expected_out_atoms, '0');
      await t.expectBalance(f.account_id, ETH, HALF_ETH, '0');
      await t.expectInvariants();
    },
  },
  {
    name: 'trade-exact-out',
    summary: 'Firm exact_out RFQ for 1,000 USDC out of a 1 ETH credit: the input is what the quote said, the rest is change',
    tags: ['trade', 'rfq', 'happy-path'],
    async run(t) {
      const f = await funded(t);
      const amount_out = '1000000000';
      const { trade_id, quote } = await t.trade({ ...f, from: ETH, to: USDC, side: 'exact_out', amount_out_atoms: amount_out });
      await t.expect(
        'quote is exact_out and delivers at least the amount',
        quote.side === 'exact_out' && BigInt(quote.expected_out_atoms) >= BigInt(amount_out),
        `quote ${JSON.stringify(quote)}`,
      );
      await t.expect('quote spends less than the credit', BigInt(quote.amount_in_atoms) < BigInt(ONE_ETH));
      await t.poll('trade', trade_id);
      await t.expectStatus('trade', trade_id, 'settled');
      await t.expectBalance(f.account_id, USDC, quote.expected_out_atoms, '0');
      await t.expectBalance(f.account_id, ETH, (BigInt(ONE_ETH) - BigInt(quote.amount_in_atoms)).toString(), '0');
      await t.expectInvariants();
    },
  },
  {
    name: 'rfq-pending-polled',
    summary: 'An RFQ with wait_ms 0 answers 202 pending with poll_after_ms; polling as told reaches ready and the quote trades',
    tags: ['rfq', 'polling'],
    async run(t) {
      const f = await funded(t);
      const r = await t.rfq({ ...f, from: ETH, to: USDC, amount_in_atoms: HALF_ETH, wait_ms: 0 });
      t.expectHttp('RFQ answers 202', r, 202);
      await t.expect(
        'pending with poll_after_ms',
        r.body.rfq.status === 'pending' && (r.body.rfq.poll_after_ms ?? 0) > 0,
        JSON.stringify(r.body.rfq),
      );
      const rfq = await t.poll('rfq', r.body.rfq.rfq_id);
      await t.expect('ready with a best quote', rfq.status === 'ready' && typeof rfq.best_quote_id === 'string');
      if (rfq.best_quote_id === undefined) throw new StepFailed(`rfq ${rfq.rfq_id} is ready without a best_quote_id`);
      const accepted = await t.accept(rfq.best_quote_id);
      t.expectHttp('quote accepted', accepted, 200);
      await t.poll('trade', accepted.body.trade.trade_id);
      await t.expectStatus('trade', accepted.body.trade.trade_id, 'settled');
      await t.expectInvariants();
    },
  },
  {
    name: 'quote-expired',
    summary: 'A firm quote with a 1 s TTL accepted 2 s later: quote_expired, nothing traded, the credit stays open',
    tags: ['rfq', 'error'],
    async run(t) {
      const f = await funded(t);
      const { quote_id } = await t.quote({ ...f, from: ETH, to: USDC, amount_in_atoms: HALF_ETH, ttl_ms: 1_000 });
      await t.advance('2s');
      const r = await t.accept(quote_id);
      t.expectError(r, 'quote_expired', 410);
      await t.expectCredit(f.account_id, f.credit_id, 'open');
      await t.expectEvents(f.account_id, f.account_id, [], { absent: ['trade.executing'] });
      await t.expectBalance(f.account_id, ETH, ONE_ETH, '0');
    },
  },
  {
    name: 'indicative-quote-accepted',
    summary: 'Accepting an indicative quote answers quote_not_firm and creates no trade; a firm RFQ then trades',
    tags: ['rfq', 'error'],
    async run(t) {
      const f = await funded(t);
      const { quote_id, quote } = await t.quote({
        account_id: f.account_id,
        from: ETH,
        to: USDC,
        amount_in_atoms: HALF_ETH,
        mode: 'indicative',
        ttl_ms: 10_000,
      });
      await t.expect('the quote is indicative', quote.mode === 'indicative');
      const r = await t.accept(quote_id);
      t.expectError(r, 'quote_not_firm', 422);
      await t.expectEvents(f.account_id, f.account_id, [], { absent: ['trade.executing'] });
      const { trade_id } = await t.trade({ ...f, from: ETH, to: USDC, amount_in_atoms: HALF_ETH });
      await t.poll('trade', trade_id);
      await t.expectStatus('trade', trade_id, 'settled');
    },
  },
  {
    name: 'deactivated-account',
    summary: 'A deactivated account refuses new RFQs, zaps and deposit addresses; its credit can still be cancelled out',
    tags: ['account', 'error'],
    trigger: { fresh_account: 'it deactivates the account, which cannot be undone' },
    async run(t) {
      const f = await funded(t);
      const eth_destination = await t.destination(f.account_id, ETH);
      const d = await t.call('POST', `/accounts/${f.account_id}/deactivate`);
      t.expectHttp('deactivated', d, 200);
      t.expectEqual('status', d.body.account.status, 'deactivated');
      const again = await t.call('POST', `/accounts/${f.account_id}/deactivate`);
      t.expectHttp('deactivate is idempotent', again, 200);
      t.expectError(await t.rfq({ ...f, from: ETH, to: USDC, amount_in_atoms: HALF_ETH }), 'account_not_operable', 409);
      t.expectError(
        await t.zap({
          account_id: f.account_id,
          from_asset_key: ETH,
          to_asset_key: USDC,
          amount_in_atoms: HALF_ETH,
          destination_id: f.destination_id,
          credit_id: f.credit_id,
        }),
        'account_not_operable',
        409,
      );
      t.expectError(
        await t.call('POST', `/accounts/${f.account_id}/deposit-addresses`, { body: { asset_key: ETH } }),
        'account_not_operable',
        409,
      );
      const c = await t.cancel({ account_id: f.account_id, credit_id: f.credit_id, destination_id: eth_destination });
      t.expectHttp('cancel still allowed', c, 200);
      await t.poll('cancel', c.body.cancel.cancel_id);
      await t.expectStatus('cancel', c.body.cancel.cancel_id, 'confirmed');
      await t.expectEvents(f.account_id, f.account_id, ['account.deactivated', 'cancel.confirmed']);
      await t.expectCredit(f.account_id, f.credit_id, 'consumed');
      await t.expectBalance(f.account_id, ETH, '0');
      await t.expectInvariants();
    },
  },
];
