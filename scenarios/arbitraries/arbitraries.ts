// fast-check arbitraries over the scenario steps: a journey (accounts and what their users do), a fault plan
// (provider-side failures, reorgs, delays) and delivery chaos (swarm-style background probabilities drawn per
// run, targeted webhook effects, outages past the retry window, forged deliveries). Every choice shrinks
// toward "less": fewer steps, no chaos, probability 0.
import fc from 'fast-check';
import { FAIL_CODES } from '../../fake-provider/control/faults.ts';
import type { AccountSetup, BackgroundChaos, ChaosStep, FaultStep, JourneyStep, WebhookEffect } from './steps.ts';

// Coarse choices on purpose: each value a shrink can try costs a whole run, so fewer, well-spread values
// shrink in a few dozen runs instead of hundreds, and read better in a report.
const idx = fc.nat({ max: 3 });
const at = fc.nat({ max: 8 });
const asset = fc.nat({ max: 3 });
const usd = fc.constantFrom(20, 150, 1_000, 5_000);
const fraction_bps = fc.constantFrom(10_000, 5_000, 2_500, 1_000);

export const accountSetup = (): fc.Arbitrary<AccountSetup> => fc.record({ asset, usd });

export function journeyStep(): fc.Arbitrary<JourneyStep> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(1_000, 10_000, 60_000, 600_000) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('deposit' as const), account: idx, asset, usd }) },
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('trade' as const), account: idx, credit: idx, destination: idx, fraction_bps }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('zap' as const),
        account: idx,
        credit: idx,
        destination: idx,
        fraction_bps,
        floor: fc.constantFrom('none' as const, 'none' as const, 'unreachable' as const),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('zap_deposit' as const), account: idx, asset, destination: idx, usd }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), account: idx, credit: idx }) },
  );
}

const codes = <C extends string>(list: readonly C[]) => fc.constantFrom(...list).map((fail) => ({ fail }));
const reorg = fc.constantFrom('out' as const, 'in' as const).map((leg) => ({ reorg: leg }));
const delay = fc.constantFrom(60_000, 600_000).map((delay_ms) => ({ delay_ms }));

export function faultStep(): fc.Arbitrary<FaultStep> {
  const base = { kind: fc.constant('fault' as const), at, account: idx };
  return fc.oneof(
    // Reorgs weigh as much as every failure code together: orphan then reconfirm is the subtle path.
    fc.record({
      ...base,
      target: fc.constant('trade' as const),
      effect: fc.oneof({ weight: 2, arbitrary: codes(FAIL_CODES.trade) }, { weight: 2, arbitrary: reorg }, { weight: 1, arbitrary: delay }),
    }),
    fc.record({
      ...base,
      target: fc.constant('zap' as const),
      effect: fc.oneof({ weight: 2, arbitrary: codes(FAIL_CODES.zap) }, { weight: 2, arbitrary: reorg }, { weight: 1, arbitrary: delay }),
    }),
    fc.record({ ...base, target: fc.constant('cancel' as const), effect: fc.oneof(codes(FAIL_CODES.cancel), delay) }),
    fc.record({
      ...base,
      target: fc.constant('deposit' as const),
      effect: fc.oneof(
        codes(FAIL_CODES.deposit),
        fc.constantFrom('sanctions_match' as const, 'high_risk_score' as const).map((flag) => ({ flag })),
        delay,
      ),
    }),
  );
}

const EVENT_TYPES = [
  '*',
  'credit.created',
  'trade.*',
  'trade.executing',
  'trade.filled',
  'trade.pending_settle',
  'zap.*',
  'zap.filled',
  'cancel.*',
  'cancel.sent',
  'deposit.*',
];
const EFFECTS: WebhookEffect[] = ['duplicate', 'drop', 'delay_60s', 'reorder', 'bad_signature', 'delay_10min'];

export function chaosStep(): fc.Arbitrary<ChaosStep> {
  return fc.oneof(
    fc.record({
      kind: fc.constant('chaos' as const),
      at,
      account: idx,
      effect: fc.constantFrom(...EFFECTS),
      event_type: fc.constantFrom(...EVENT_TYPES),
      times: fc.integer({ min: 1, max: 3 }),
    }),
    fc.record({ kind: fc.constant('outage' as const), at, account: idx, hours: fc.constantFrom(73, 80) }),
    fc.record({
      kind: fc.constant('forge' as const),
      at,
      account: idx,
      forgery: fc.constantFrom('wrong_secret' as const, 'tampered_body' as const, 'unsigned' as const),
      event: fc.constantFrom('credit.created' as const, 'trade.executing' as const),
    }),
  );
}

/** Swarm testing: each run draws its own probability per effect; most runs leave most effects off. */
export function backgroundChaos(): fc.Arbitrary<BackgroundChaos> {
  const p = fc.constantFrom(0, 0, 0.05, 0.2, 0.5);
  return fc.record({ duplicate: p, reorder: p, drop: p, bad_signature: p, delay: p });
}
