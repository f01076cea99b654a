// The engine against xstate's own pure `transition()`: on random event walks through every lifecycle
// machine, the transition table (or, for a machine the table cannot express, the cached-scope xstate step)
// gives the same state, context, status, acceptance and emitted effects at every step, and logs each step.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assign, createMachine, emit, initialTransition, setup, transition, type AnyStateMachine, type EventObject } from 'xstate';
import { newWorld } from '../app.ts';
import { edgesOf, registeredMachines } from './machines.ts';
import '../resources/index.ts'; // every resource registers its lifecycles' machines
import { send, start, tableFor, type EntitySnapshot } from './lifecycle.ts';

const MACHINES = Object.fromEntries(registeredMachines());

/** One payload with every field any machine's events read; guards and assigns take what they need. */
const payload = fc.record({
  chain: fc.constantFrom('evm:1', 'btc', 'solana'),
  export_source: fc.constantFrom('integrator', 'user_email'),
  due_ms: fc.nat({ max: 10_000 }),
  at_ms: fc.nat({ max: 10_000 }),
  blocks: fc.constantFrom(1, 2, 3),
  final_due_ms: fc.nat({ max: 20_000 }),
  tx_hash: fc.constant('0xabc'),
  code: fc.constantFrom('execution_failed', 'settlement_failed', 'broadcast_failed', 'confirmation_timeout', 'zap_expired'),
  failure_code: fc.constantFrom('broadcast_failed', 'confirmation_timeout'),
  holder_id: fc.constantFrom('h1', 'h2'),
  flag_reason: fc.constantFrom('sanctions_match', 'high_risk_score'),
  flag_category: fc.constant('c'),
  flag_message: fc.constant('m'),
  reason: fc.constant('r'),
  http_status: fc.constantFrom(200, 500, 0),
  credit_id: fc.constant('cred_1'),
  quote_id: fc.constant('quote_1'),
  trade_id: fc.constant('trd_1'),
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

type XSnap = { value: unknown; context: unknown; status: string; can(e: EventObject): boolean };
const emitted = (actions: { type: string; params?: unknown }[]) =>
  actions.filter((a) => a.type === 'xstate.emit').map((a) => (a.params as { event: unknown }).event);
/** The engine names a nested state value by its JSON (flat machines: the state key itself). */
const view = (s: { value: unknown; context: unknown; status: string }) => ({
  value: typeof s.value === 'string' ? s.value : JSON.stringify(s.value),
  context: s.context,
  status: s.status,
});

/** Walks the engine and xstate side by side; every step must agree, and every accepted step is logged. */
function agreeOnWalk(machine: AnyStateMachine, input: unknown, steps: Array<[string, Record<string, unknown>]>): void {
  const world = newWorld({ seed: 'table-vs-xstate', clock: 'virtual' });
  const first = start(world, machine, 'e1', input);
  let ours: EntitySnapshot = first.snapshot;
  let [theirs, theirActions] = (initialTransition as (m: AnyStateMachine, i: unknown) => [XSnap, { type: string; params?: unknown }[]])(
    machine,
    input,
  );
  expect(view(ours)).toEqual(view(theirs));
  expect(first.effects).toEqual(emitted(theirActions));
  let logged = 1;
  for (const [type, p] of steps) {
    const event = { ...p, type } as EventObject;
    const accepted = theirs.can(event);
    const step = send(world, machine, 'e1', ours, event);
    expect(step !== null, `${machine.id} in ${String(theirs.value)} accepts ${type}`).toBe(accepted);
    [theirs, theirActions] = (
      transition as (m: AnyStateMachine, s: XSnap, e: EventObject) => [XSnap, { type: string; params?: unknown }[]]
    )(machine, theirs, event);
    if (step) {
      ours = step.snapshot;
      logged++;
      expect(step.effects).toEqual(emitted(theirActions));
    }
    expect(view(ours)).toEqual(view(theirs));
  }
  const records = world.transitions.forEntity('e1');
  expect(records.length).toBe(logged);
  expect(records[records.length - 1].to).toBe(ours.value);
}

describe('engine transitions equal xstate transition()', () => {
  it('every registered machine runs on a transition table (none falls back to xstate)', () => {
    expect(
      Object.values(MACHINES)
        .filter((i) => tableFor(i.machine) === null)
        .map((i) => i.machine.id),
    ).toEqual([]);
  });

  for (const [name, info] of Object.entries(MACHINES)) {
    it(name, () => {
      const machine = info.machine as AnyStateMachine;
      const types = [...new Set([...edgesOf(machine).map((e) => e.event), 'UNKNOWN_EVENT'])];
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.constantFrom(...types), payload), { maxLength: 14 }), (steps) =>
          agreeOnWalk(machine, INPUTS[name], steps),
        ),
        { numRuns: 200 },
      );
    });
  }

  it('a machine the table cannot express (nested states) falls back to xstate, with the same results', () => {
    const nested = createMachine({
      id: 'nested',
      initial: 'a',
      context: { n: 0 },
      states: {
        a: { initial: 'a1', states: { a1: { on: { NEXT: 'a2' } }, a2: {} }, on: { DONE: 'b' } },
        b: { type: 'final', entry: assign({ n: 1 }) },
      },
    });
    expect(tableFor(nested)).toBeNull();
    agreeOnWalk(nested, undefined, [
      ['NEXT', {}],
      ['NEXT', {}],
      ['DONE', {}],
      ['NEXT', {}],
    ]);
  });

  it('parameterized and targetless actions see the context the previous assign left', () => {
    const m = setup({
      types: { context: {} as { n: number }, events: {} as { type: 'INC'; by: number } | { type: 'NOOP' } },
      actions: {
        add: assign({ n: ({ context }, params: { k: number }) => context.n + params.k }),
        report: emit(({ context }) => ({ type: 'n', n: context.n })),
      },
      guards: { small: ({ context }) => context.n < 5 },
    }).createMachine({
      id: 'param',
      initial: 'on',
      context: { n: 0 },
      states: {
        on: {
          on: {
            INC: [
              { guard: 'small', actions: [{ type: 'add', params: { k: 2 } }, 'report'] },
              { target: 'off', actions: 'report' },
            ],
            NOOP: {},
          },
        },
        off: { type: 'final' },
      },
    });
    expect(tableFor(m)).not.toBeNull();
    agreeOnWalk(m, undefined, [
      ['INC', {}],
      ['NOOP', {}],
      ['INC', {}],
      ['INC', {}],
      ['INC', {}],
      ['INC', {}],
    ]);
  });
});
