// Cancels (a whole credit to a registered destination), a broadcast failure retried, a confirmation timeout,
// and a destination suspended by delta screening while a trade to it is in flight, then reactivated.
import type { Scenario } from '../dsl/index.ts';
import { ETH, HALF_ETH, ONE_ETH, StepFailed, USDC } from '../dsl/index.ts';
import { funded } from './common.ts';

export const cancelScenarios: Scenario[] = [
  {
    name: 'cancel-credit',
    summary: 'A 1 ETH credit cancelled to a registered ETH destination: pending → sent → confirmed with a tx hash, credit consumed',
    tags: ['cancel', 'happy-path'],
    async run(t) {
      const f = await funded(t, ETH, ETH);
      const r = await t.cancel({
        account_id: f.account_id,
        credit_id: f.credit_id,
        destination_id: f.destination_id,
        client_cancel_id: 'c-1',
      });
      t.expectHttp('cancel created', r, 200);
      t.expectEqual('pending', r.body.cancel.status, 'pending');
      const c = await t.poll('cancel', r.body.cancel.cancel_id);
      await t.expectStatus('cancel', c.cancel_id, 'confirmed');
      await t.expect('broadcast with a tx hash', typeof c.tx_hash === 'string' && c.tx_hash.length > 0, JSON.stringify(c));
      await t.expectEvents(f.account_id, c.cancel_id, ['cancel.created', 'cancel.sent', 'cancel.confirmed'], { exact: true });
      await t.expectCredit(f.account_id, f.credit_id, 'consumed');
      await t.expectBalance(f.account_id, ETH, '0', '0');
      await t.expectInvariants();
    },
  },
  {
    name: 'cancel-broadcast-failed-retried',
    summary: 'A cancel fails broadcast_failed (no tx hash, credit open); the retry, a new cancel, confirms',
    tags: ['cancel', 'failure', 'fault'],
    async run(t) {
      const f = await funded(t, ETH, ETH);
      await t.fault({ target: 'cancel', effect: { fail: 'broadcast_failed' }, match: { account_id: f.account_id }, times: 1 });
      const first = await t.cancel({ account_id: f.account_id, credit_id: f.credit_id, destination_id: f.destination_id });
      const failed = await t.poll('cancel', first.body.cancel.cancel_id);
      await t.expectStatus('cancel', failed.cancel_id, 'failed', 'broadcast_failed');
      await t.expect('never broadcast', failed.tx_hash === undefined || failed.tx_hash === null, JSON.stringify(failed));
      await t.expectCredit(f.account_id, f.credit_id, 'open');
      const retry = await t.cancel({ account_id: f.account_id, credit_id: f.credit_id, destination_id: f.destination_id });
      await t.poll('cancel', retry.body.cancel.cancel_id);
      await t.expectStatus('cancel', retry.body.cancel.cancel_id, 'confirmed');
      await t.expectCredit(f.account_id, f.credit_id, 'consumed');
      await t.expectInvariants();
    },
  },
  {
    name: 'cancel-fails-confirmation-timeout',
    summary:
      'A cancel is broadcast but never reaches finality: cancel.failed with confirmation_timeout after cancel.sent, the 1 ETH credit open again',
    tags: ['cancel', 'failure', 'fault'],
    async run(t) {
      const f = await funded(t, ETH, ETH);
      await t.fault({ target: 'cancel', effect: { fail: 'confirmation_timeout' }, match: { account_id: f.account_id }, times: 1 });
      const r = await t.cancel({ account_id: f.account_id, credit_id: f.credit_id, destination_id: f.destination_id });
      t.expectHttp('cancel created', r, 200);
      const c = await t.poll('cancel', r.body.cancel.cancel_id);
      await t.expectStatus('cancel', c.cancel_id, 'failed', 'confirmation_timeout');
      await t.expectEvents(f.account_id, c.cancel_id, ['cancel.created', 'cancel.sent', 'cancel.failed'], { exact: true });
      await t.expectCredit(f.account_id, f.credit_id, 'open');
      await t.expectBalance(f.account_id, ETH, ONE_ETH, '0');
      await t.expectInvariants();
    },
  },
  {
    name: 'destination-suspended-mid-flight',
    summary:
      'Delta screening suspends the destination of an executing trade: the trade still settles, new RFQs/zaps/cancels to it are refused until reactivation',
    tags: ['destination', 'screening', 'trade'],
    async run(t) {
      const f = await funded(t);
      const { trade_id } = await t.trade({ ...f, from: ETH, to: USDC, amount_in_atoms: HALF_ETH });
      const s = await t.sim('POST', `/destinations/${f.destination_id}/suspend`, { reason: 'delta screening hit' });
      t.expectHttp('suspended', s, 200);
      await t.poll('trade', trade_id);
      await t.expectStatus('trade', trade_id, 'settled');
      const credits = await t.credits(f.account_id);
      const change = credits.find((c) => c.asset_key === ETH);
      if (!change) throw new StepFailed('no ETH change credit after the settled trade');
      t.expectError(
        await t.rfq({
          account_id: f.account_id,
          credit_id: change.credit_id,
          destination_id: f.destination_id,
          from: ETH,
          to: USDC,
          amount_in_atoms: '100000000000000000',
        }),
        'destination_suspended',
        403,
      );
      t.expectError(
        await t.zap({
          account_id: f.account_id,
          from_asset_key: ETH,
          to_asset_key: USDC,
          amount_in_atoms: '100000000000000000',
          destination_id: f.destination_id,
          credit_id: change.credit_id,
        }),
        'destination_suspended',
        403,
      );
      const usdc = credits.find((c) => c.asset_key === USDC);
      if (!usdc) throw new StepFailed('no USDC credit after the settled trade');
      t.expectError(
        await t.cancel({ account_id: f.account_id, credit_id: usdc.credit_id, destination_id: f.destination_id }),
        'destination_suspended',
        403,
      );
      const dest = await t.call('GET', `/accounts/${f.account_id}/destinations`);
      const d = dest.body.destinations.find((x) => x.destination_id === f.destination_id);
      await t.expect(
        'suspension visible on the destination',
        d?.suspended_at_ms != null && d.suspension_reason === 'delta screening hit',
        JSON.stringify(d),
      );
      t.expectHttp('reactivated', await t.sim('POST', `/destinations/${f.destination_id}/reactivate`), 200);
      const again = await t.trade({
        account_id: f.account_id,
        credit_id: change.credit_id,
        destination_id: f.destination_id,
        from: ETH,
        to: USDC,
        amount_in_atoms: '100000000000000000',
      });
      await t.poll('trade', again.trade_id);
      await t.expectStatus('trade', again.trade_id, 'settled');
      await t.expectEvents(f.account_id, f.destination_id, ['destination.suspended', 'destination.reactivated'], { exact: true });
      await t.expectBalance(f.account_id, ETH, (BigInt(ONE_ETH) - BigInt(HALF_ETH) - 100000000000000000n).toString(), '0');
      await t.expectInvariants();
    },
  },
];
