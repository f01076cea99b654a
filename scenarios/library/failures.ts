// Every trade and zap failure code injected by a fault rule at the stage where it can happen (the codes from
// the failure-code registry), and a reorg on each settlement leg of trades and zaps (orphaned, then
// reconfirmed). One scenario per case.
import type { Scenario } from '../dsl/index.ts';
import { ETH, HALF_ETH, HUNDRED_USDC, ofType, ONE_ETH, USDC } from '../dsl/index.ts';
import { expectUntouched, funded, usdcZap, zapId } from './common.ts';
import { faultCodesOf, stageOf, type FaultCodeOf } from '../../fake-provider/failure-codes.ts';

/** Failure codes a fault rule can put on a credit-funded trade (the failure-code registry's trade codes). */
const TRADE_FAILURES = faultCodesOf('trade');
/** The same on a credit-funded zap: the codes trades and zaps share (zap-only codes have their own scenarios). */
const ZAP_FAILURES = faultCodesOf('zap').filter((code) => (TRADE_FAILURES as readonly string[]).includes(code));
const kebab = (s: string) => s.replace(/_/g, '-');

function tradeFailure(code: FaultCodeOf<'trade'>): Scenario {
  return {
    name: `trade-fails-${kebab(code)}`,
    summary: `A trade failed with ${code} by a fault rule: trade.failed, no settlement, the 1 ETH credit open again`,
    tags: ['trade', 'failure', 'fault'],
    async run(t) {
      const f = await funded(t);
      await t.fault({ target: 'trade', effect: { fail: code }, match: { account_id: f.account_id }, times: 1 });
      const { trade_id } = await t.trade({ ...f, from: ETH, to: USDC, amount_in_atoms: HALF_ETH });
      await t.poll('trade', trade_id);
      await t.expectStatus('trade', trade_id, 'failed', code);
      // A code of the reorg stage (settlement_orphaned) shows the orphaned leg before the failure.
      const seq = stageOf(code, ['settlement_reorg'])
        ? (['trade.executing', 'trade.settlement_orphaned', 'trade.failed'] as const)
        : (['trade.executing', 'trade.failed'] as const);
      await t.expectEvents(f.account_id, trade_id, seq, { absent: ['trade.settled'] });
      await expectUntouched(t, f, ETH, ONE_ETH);
      await t.expectBalance(f.account_id, USDC, '0', '0');
      await t.expectInvariants();
    },
  };
}

function zapFailure(code: FaultCodeOf<'zap'>): Scenario {
  return {
    name: `zap-fails-${kebab(code)}`,
    summary: `A credit-funded zap failed with ${code} by a fault rule: zap.failed with a recovery for the still-open credit`,
    tags: ['zap', 'failure', 'fault'],
    async run(t) {
      const f = await funded(t, USDC, ETH);
      await t.fault({ target: 'zap', effect: { fail: code }, match: { account_id: f.account_id }, times: 1 });
      const zap_id = await zapId(t, usdcZap(f));
      const zap = await t.poll('zap', zap_id);
      await t.expectStatus('zap', zap_id, 'failed', code);
      const events = await t.expectEvents(f.account_id, zap_id, ['zap.executing', 'zap.failed'], { absent: ['zap.settled'] });
      const [failed] = ofType(events, 'zap.failed');
      t.expectEqual('zap.failed names the code and the recovery', [failed?.data.failure_code, failed?.data.credit_id], [code, f.credit_id]);
      t.expectEqual('GET zap carries the recovery', zap.recovery?.recovery_id, failed?.data.recovery_id);
      await expectUntouched(t, f, USDC, HUNDRED_USDC);
      await t.expectInvariants();
    },
  };
}

function reorg(kind: 'trade' | 'zap', leg: 'out' | 'in'): Scenario {
  return {
    name: `${kind}-reorg-${leg}-leg`,
    summary: `A settled ${kind}'s ${leg} leg is dropped by a reorg and reconfirmed: ${kind}.settlement_orphaned then ${kind}.settlement_reconfirmed, still settled, credits intact`,
    tags: [kind, 'reorg', 'fault'],
    async run(t) {
      const f = kind === 'trade' ? await funded(t) : await funded(t, USDC, ETH);
      await t.fault({ target: kind, effect: { reorg: leg }, match: { account_id: f.account_id }, times: 1 });
      const id =
        kind === 'trade' ? (await t.trade({ ...f, from: ETH, to: USDC, amount_in_atoms: HALF_ETH })).trade_id : await zapId(t, usdcZap(f));
      await t.poll(kind, id);
      await t.settle();
      await t.expectStatus(kind, id, 'settled');
      await t.expectEvents(f.account_id, id, [`${kind}.settled`, `${kind}.settlement_orphaned`, `${kind}.settlement_reconfirmed`], {
        absent: [`${kind}.failed`],
      });
      const x = await t.get(kind, id);
      await t.expect(`${leg} leg finalized again`, x.settlement?.[`${leg}_finalized`] === true, JSON.stringify(x.settlement));
      await t.expectCredit(f.account_id, f.credit_id, 'consumed');
      await t.expectInvariants();
    },
  };
}

export const failureScenarios: Scenario[] = [
  ...TRADE_FAILURES.map(tradeFailure),
  ...ZAP_FAILURES.map(zapFailure),
  reorg('trade', 'out'),
  reorg('trade', 'in'),
  reorg('zap', 'out'),
  reorg('zap', 'in'),
];
