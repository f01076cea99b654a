// Deposit screening: a deposit flagged for each flag reason (source screening for the service's own
// reasons, the partner inside its window), and a partner flag that comes too late.
import type { Scenario } from '../dsl/index.ts';
import { ETH, ofType, ONE_ETH } from '../dsl/index.ts';

const SERVICE_REASONS = ['sanctions_match', 'high_risk_score', 'mixer_association'] as const;

function flaggedBySource(reason: string): Scenario {
  const name = `deposit-flagged-${reason.replace(/_/g, '-')}`;
  return {
    name,
    summary: `A deposit from an address screening flags as ${reason}: deposit.flagged by routes, no credit, no balance`,
    tags: ['deposit', 'screening'],
    async run(t) {
      const account_id = await t.account();
      const source = t.address(ETH, 'source');
      t.expectHttp(
        'source flagged in screening',
        await t.sim('POST', '/screening/addresses', { address: source, flag_reason: reason }),
        200,
      );
      const d = await t.deposit(account_id, ETH, ONE_ETH, { source_address: source });
      t.expectEqual('deposit flagged without credit', [d.status, d.credit_id, d.deposit.flag_reason], ['flagged', null, reason]);
      const events = await t.expectEvents(account_id, account_id, ['deposit.pending', 'deposit.flagged'], {
        absent: ['deposit.verified', 'credit.created'],
      });
      const [flagged] = ofType(events, 'deposit.flagged');
      t.expectEqual(
        'deposit.flagged data',
        [flagged.data.flag_reason, flagged.data.flagged_by, flagged.data.tx_hash, flagged.data.source_address],
        [reason, 'routes', d.tx_hash, source],
      );
      await t.expectBalance(account_id, ETH, '0', '0');
      await t.expectInvariants();
    },
  };
}

export const depositScenarios: Scenario[] = [
  ...SERVICE_REASONS.map(flaggedBySource),
  {
    name: 'deposit-partner-flagged',
    summary:
      'With partner screening on, the partner flags a deposit 8 s into its 10 s window: partner_flagged, no credit; a second flag is 409',
    tags: ['deposit', 'screening', 'partner'],
    org: { partner_screening: true },
    async run(t) {
      const account_id = await t.account();
      const d = await t.deposit(account_id, ETH, ONE_ETH, { wait: false });
      const [screening] = await t
        .expectEvents(account_id, account_id, ['deposit.pending', 'deposit.partner_screening'])
        .then((es) => ofType(es, 'deposit.partner_screening'));
      t.expectEqual('window is 10 s', screening.data.screening_deadline_ms - screening.created_at_ms, 10_000);
      // From the event, not from now: on a realtime clock time has moved since it was published.
      await t.advanceTo(screening.created_at_ms + 8_000);
      const flag = await t.call('POST', `/deposits/${d.deposit_address_id}/flag`, {
        body: { tx_hash: d.tx_hash, flag_category: 'aml', flag_message: 'linked to a hack' },
        idem: null,
      });
      t.expectHttp('flag accepted inside the window', flag, 200);
      await t.settle();
      const events = await t.expectEvents(account_id, account_id, ['deposit.flagged'], { absent: ['deposit.verified', 'credit.created'] });
      const [flagged] = ofType(events, 'deposit.flagged');
      t.expectEqual(
        'flagged by the partner',
        [flagged.data.flag_reason, flagged.data.flagged_by, flagged.data.partner_flag_category],
        ['partner_flagged', 'partner', 'aml'],
      );
      await t.expectBalance(account_id, ETH, '0', '0');
      const again = await t.call('POST', `/deposits/${d.deposit_address_id}/flag`, {
        body: { tx_hash: d.tx_hash, flag_category: 'aml', flag_message: 'again' },
        idem: null,
      });
      t.expectError(again, 'deposit_window_closed', 409);
      await t.expectInvariants();
    },
  },
  {
    name: 'deposit-partner-flag-too-late',
    summary: 'The partner flags 11 s after deposit.partner_screening: 409 deposit_window_closed, and the deposit is verified and credited',
    tags: ['deposit', 'screening', 'partner'],
    org: { partner_screening: true },
    async run(t) {
      const account_id = await t.account();
      const d = await t.deposit(account_id, ETH, ONE_ETH, { wait: false });
      const [screening] = ofType(await t.events({ account_id, types: 'deposit.partner_screening' }), 'deposit.partner_screening');
      await t.expect('deposit.partner_screening published', screening?.data.tx_hash === d.tx_hash);
      await t.advanceTo(screening.created_at_ms + 11_000);
      const late = await t.call('POST', `/deposits/${d.deposit_address_id}/flag`, {
        body: { tx_hash: d.tx_hash, flag_category: 'aml', flag_message: 'late' },
        idem: null,
      });
      t.expectError(late, 'deposit_window_closed', 409);
      await t.settle();
      await t.expectEvents(account_id, account_id, ['deposit.pending', 'deposit.partner_screening', 'deposit.verified', 'credit.created'], {
        absent: ['deposit.flagged'],
      });
      await t.expectBalance(account_id, ETH, ONE_ETH, '0');
      await t.expectInvariants();
    },
  },
];
