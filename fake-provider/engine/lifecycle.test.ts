// The engine's cached-scope transition against xstate's own pure `transition()`: on random event walks
// through every lifecycle machine, both give the same state, context and effects at every step.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialTransition, transition, type AnyStateMachine, type EventObject } from 'xstate';
import { edgesOf, MACHINES } from './machines.ts';
import { pureInitial, pureTransition } from './lifecycle.ts';

/** One payload with every field any machine's events read; guards and assigns take what they need. */
const payload = fc.record({
  chain: fc.constantFrom('evm:1', 'btc', 'solana'),
  export_source: fc.constantFrom('integrator', 'user_email'),
  due_ms: fc.nat({ max: 10_000 }),
  at_ms: fc.nat({ max: 10_000 }),
  final_due_ms: fc.nat({ max: 20_000 }),
  tx_hash: fc.constant('0xabc'),
  code: fc.constantFrom('execution_failed', 'settlement_failed', 'broadcast_failed', 'confirmation_timeout', 'zap_expired'),
  holder_id: fc.constantFrom('h1', 'h2'),
  flag_reason: fc.constantFrom('sanctions_match', 'high_risk_score'),
  flag_category: fc.constant('c'),
  flag_message: fc.constant('m'),
  reason: fc.constant('r'),
  http_status: fc.constantFrom(200, 500, 0),
  credit_id: fc.constant('cred_1'),
  leg: fc.constantFrom('out', 'in'),
});

const INPUTS: Record<string, unknown> = {
  account: { deactivated_allows_export: true },
  cancel: { broadcast_due_ms: 2_000 },
  deposit: { required_confirmations: 3, partner_screening: true },
  rfq: { created_at_ms: 0, expires_at_ms: 1_000 },
  quote: { expires_at_ms: 1_000 },
  webhook_delivery: { due_ms: 0, retry_schedule_ms: [10, 20], retry_window_ms: 100 },
};

const strip = (actions: { type: string; params?: unknown }[]) => actions.map((a) => ({ type: a.type, params: a.params }));
const view = (s: any) => ({ value: s.value, context: s.context, status: s.status });

describe('cached-scope transitions equal xstate transition()', () => {
  for (const [name, info] of Object.entries(MACHINES)) {
    it(name, () => {
      const machine = info.machine as AnyStateMachine;
      const types = [...new Set(edgesOf(machine).map((e) => e.event))];
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.constantFrom(...types), payload), { maxLength: 12 }), (steps) => {
          let [ours, oursActions] = pureInitial(machine, INPUTS[name]) as [any, any];
          let [theirs, theirActions] = (initialTransition as any)(machine, INPUTS[name]);
          expect(view(ours)).toEqual(view(theirs));
          expect(strip(oursActions)).toEqual(strip(theirActions));
          for (const [type, p] of steps) {
            const event = { ...p, type } as EventObject;
            [ours, oursActions] = pureTransition(machine, ours, event) as [any, any];
            [theirs, theirActions] = (transition as any)(machine, theirs, event);
            expect(view(ours)).toEqual(view(theirs));
            expect(strip(oursActions)).toEqual(strip(theirActions));
          }
        }),
        { numRuns: 150 },
      );
    });
  }
});
