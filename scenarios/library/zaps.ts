// Zaps: credit-funded and deposit-funded to settlement, and the zap-only failures (from_asset_mismatch,
// min_amount_out_not_met, zap_expired, deposit_flagged), each with what it must leave behind.
import type { Scenario } from '../dsl/index.ts';
import { ETH, HUNDRED_USDC, USDC } from '../dsl/index.ts';
import { funded, usdcZap, zapId } from './common.ts';

const ZAP_EVENTS = ['zap.executing', 'zap.filled', 'zap.pending_settle', 'zap.settled'] as const;

export const zapScenarios: Scenario[] = [
  {
    name: 'zap-credit-funded',
    summary: '60 USDC of a 100 USDC credit zapped to ETH at a destination: settled, source consumed, 40 USDC change',
    tags: ['zap', 'happy-path'],
    async run(t) {
      const f = await funded(t, USDC, ETH);
      const zap_id = await zapId(t, usdcZap(f));
      const zap = await t.poll('zap', zap_id);
      await t.expectStatus('zap', zap_id, 'settled');
      await t.expect(
        'settlement legs finalized',
        zap.settlement?.out_finalized && zap.settlement?.in_finalized,
        JSON.stringify(zap.settlement),
      );
      await t.expectEvents(f.account_id, zap_id, ZAP_EVENTS, { exact: true });
      await t.expectCredit(f.account_id, f.credit_id, 'consumed');
      await t.expectBalance(f.account_id, USDC, '40000000', '0');
      await t.expectInvariants();
    },
  },
  {
    name: 'zap-deposit-funded',
    summary: 'A zap without credit waits on a single-use deposit address; 55 USDC land and it executes on the observed amount',
    tags: ['zap', 'deposit', 'happy-path'],
    async run(t) {
      const account_id = await t.account();
      const destination_id = await t.destination(account_id, ETH);
      const r = await t.zap({ account_id, from_asset_key: USDC, to_asset_key: ETH, amount_in_atoms: '50000000', destination_id });
      t.expectHttp('zap created', r, 200);
      t.expectEqual('awaiting deposit', r.body.zap.status, 'awaiting_deposit');
      const zap_id = r.body.zap.zap_id;
      await t.deposit(account_id, USDC, '55000000', { deposit_address_id: r.body.zap.deposit_address!.deposit_address_id });
      const zap = await t.poll('zap', zap_id);
      await t.expectStatus('zap', zap_id, 'settled');
      t.expectEqual(
        'executed on the observed amount',
        [zap.requested_amount_in_atoms, zap.observed_amount_in_atoms],
        ['50000000', '55000000'],
      );
      await t.expectEvents(account_id, zap_id, ['zap.awaiting_deposit', ...ZAP_EVENTS], { exact: true });
      await t.expectBalance(account_id, USDC, '0', '0');
      await t.expectInvariants();
    },
  },
  {
    name: 'zap-from-asset-mismatch',
    summary: 'ETH lands on a USDC zap address: the zap fails from_asset_mismatch, the ETH is still credited and a recovery is offered',
    tags: ['zap', 'deposit', 'failure'],
    async run(t) {
      const account_id = await t.account();
      const destination_id = await t.destination(account_id, ETH);
      const r = await t.zap({ account_id, from_asset_key: USDC, to_asset_key: ETH, amount_in_atoms: '50000000', destination_id });
      const zap_id = r.body.zap.zap_id;
      const d = await t.deposit(account_id, USDC, '1000000000000000', {
        deposit_address_id: r.body.zap.deposit_address!.deposit_address_id,
        land_asset_key: ETH,
      });
      const zap = await t.poll('zap', zap_id);
      await t.expectStatus('zap', zap_id, 'failed', 'from_asset_mismatch');
      await t.expect('the deposit was credited', d.status === 'verified' && d.credit_id !== null, JSON.stringify(d.deposit));
      await t.expectBalance(account_id, ETH, '1000000000000000', '0');
      t.expectEqual('recovery offered for the deposit credit', zap.recovery?.credit_id, d.credit_id);
      await t.expectEvents(account_id, zap_id, ['zap.awaiting_deposit', 'zap.failed'], { absent: ['zap.executing'] });
      await t.expectInvariants();
    },
  },
  {
    name: 'zap-min-amount-out-not-met',
    summary: 'A zap whose floor (1 ETH for 60 USDC) cannot be met fails min_amount_out_not_met at fill; the credit stays open',
    tags: ['zap', 'failure'],
    async run(t) {
      const f = await funded(t, USDC, ETH);
      const zap_id = await zapId(t, usdcZap(f, { min_amount_out_atoms: '1000000000000000000' }));
      await t.poll('zap', zap_id);
      await t.expectStatus('zap', zap_id, 'failed', 'min_amount_out_not_met');
      await t.expectEvents(f.account_id, zap_id, ['zap.executing', 'zap.failed'], { absent: ['zap.filled'] });
      await t.expectCredit(f.account_id, f.credit_id, 'open');
      await t.expectBalance(f.account_id, USDC, HUNDRED_USDC, '0');
      await t.expectInvariants();
    },
  },
  {
    name: 'zap-expired',
    summary:
      'A credit-funded zap expiring 1 s after creation whose fill a delay rule holds back 5 s, and a deposit-funded one nobody pays, both fail zap_expired',
    tags: ['zap', 'failure', 'expiry'],
    async run(t) {
      const f = await funded(t, USDC, ETH);
      // The fill is held back past the expiry, so the zap expires before it fills on any clock and profile.
      await t.fault({ target: 'zap', effect: { delay_ms: 5_000 }, match: { account_id: f.account_id }, times: 1 });
      const quick = await zapId(t, usdcZap(f, { expires_at_ms: (await t.clockNow()) + 1_000 }));
      await t.poll('zap', quick);
      await t.expectStatus('zap', quick, 'failed', 'zap_expired');
      await t.expectCredit(f.account_id, f.credit_id, 'open');
      const waiting = await zapId(t, {
        account_id: f.account_id,
        from_asset_key: USDC,
        to_asset_key: ETH,
        amount_in_atoms: '50000000',
        destination_id: f.destination_id,
        expires_at_ms: (await t.clockNow()) + 60_000,
      });
      await t.advance('61s');
      await t.expectStatus('zap', waiting, 'failed', 'zap_expired');
      await t.expectEvents(f.account_id, waiting, ['zap.awaiting_deposit', 'zap.failed']);
      await t.expectBalance(f.account_id, USDC, HUNDRED_USDC, '0');
      await t.expectInvariants();
    },
  },
  {
    name: 'zap-deposit-flagged',
    summary:
      'The deposit paying a zap comes from a sanctioned address: deposit.flagged, the zap fails deposit_flagged, no credit, no recovery',
    tags: ['zap', 'deposit', 'screening', 'failure'],
    async run(t) {
      const account_id = await t.account();
      const destination_id = await t.destination(account_id, ETH);
      const source = t.address(USDC, 'source');
      t.expectHttp(
        'address flagged',
        await t.sim('POST', '/screening/addresses', { address: source, flag_reason: 'sanctions_match' }),
        200,
      );
      const r = await t.zap({ account_id, from_asset_key: USDC, to_asset_key: ETH, amount_in_atoms: '50000000', destination_id });
      const zap_id = r.body.zap.zap_id;
      const d = await t.deposit(account_id, USDC, '50000000', {
        deposit_address_id: r.body.zap.deposit_address!.deposit_address_id,
        source_address: source,
      });
      t.expectEqual('deposit flagged', [d.status, d.credit_id], ['flagged', null]);
      const zap = await t.poll('zap', zap_id);
      await t.expectStatus('zap', zap_id, 'failed', 'deposit_flagged');
      await t.expect('no recovery (no credit)', zap.recovery === undefined || zap.recovery === null, JSON.stringify(zap.recovery));
      await t.expectBalance(account_id, USDC, '0', '0');
      await t.expectEvents(account_id, account_id, ['deposit.pending', 'deposit.flagged', 'zap.failed'], {
        absent: ['deposit.verified', 'recovery.created'],
      });
      await t.expectInvariants();
    },
  },
];
