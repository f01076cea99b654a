// The deposit machine on its own: every edge xstate/graph sees is taken at least once, every guard is
// tripped, terminal states absorb, and the effects are the ones the model applies.
import { describe, expect, it } from 'vitest';
import { createSimKernel } from '../../../sim/index.ts';
import { createWorld, type World } from '../../world.ts';
import { DEFAULT_PROFILE } from '../../profile.ts';
import { edgesOf, statusOf, type MachineSnapshot } from '../../engine/index.ts';
import { depositMachine, type DepositEffect, type DepositEvent } from './machine.ts';
import { depositLifecycle } from './model.ts';

type Snap = MachineSnapshot<typeof depositMachine>;

function run(world: World, id: string, input: { required_confirmations: number; partner_screening: boolean }, events: DepositEvent[]) {
  const first = depositLifecycle.start<DepositEffect>(world, id, input);
  let snapshot: Snap = first.snapshot;
  const effects: string[] = first.effects.map((e) => e.type);
  const refused: string[] = [];
  for (const event of events) {
    const step = depositLifecycle.send<DepositEffect>(world, id, snapshot, event);
    if (!step) {
      refused.push(event.type);
      continue;
    }
    snapshot = step.snapshot;
    effects.push(...step.effects.map((e) => e.type));
  }
  return { status: statusOf(snapshot), context: snapshot.context, effects, refused };
}

const C: DepositEvent = { type: 'CONFIRM', blocks: 1 };
/** All of a 2-confirmation deposit's blocks at once (profile deposit_confirmation_steps: at_finality). */
const C2: DepositEvent = { type: 'CONFIRM', blocks: 2 };
const CLEAN: DepositEvent = { type: 'SCREENED_CLEAN' };
const FLAG: DepositEvent = { type: 'SCREENED_FLAG', flag_reason: 'sanctions_match' };
const CLOSE: DepositEvent = { type: 'PARTNER_WINDOW_CLOSED' };
const PFLAG: DepositEvent = { type: 'PARTNER_FLAG', flag_category: 'aml', flag_message: 'm' };
const DROP: DepositEvent = { type: 'DROP' };
const ALL: DepositEvent[] = [C, CLEAN, FLAG, CLOSE, PFLAG, DROP];

describe('deposit machine', () => {
  const world = createWorld({ sim: createSimKernel({ seed: 'deposit-machine' }), profile: DEFAULT_PROFILE });
  const plain = { required_confirmations: 2, partner_screening: false };
  const partner = { required_confirmations: 2, partner_screening: true };

  it('verifies on the last confirmation when screening passed first (CONFIRM → verified)', () => {
    const r = run(world, 'd1', plain, [CLEAN, C, C]);
    expect(r).toMatchObject({ status: 'verified', effects: ['detected', 'verified'], refused: [] });
    expect(r.context.confirmations).toBe(2);
  });

  it('verifies on screening when finality came first (SCREENED_CLEAN → verified), and never counts past finality', () => {
    const r = run(world, 'd2', plain, [C, C, C, CLEAN]);
    expect(r).toMatchObject({ status: 'verified', refused: ['CONFIRM'] });
    expect(r.context.confirmations).toBe(2);
  });

  it('counts every block at once at finality: verifies when screened, else waits at finality for screening', () => {
    expect(run(world, 'd1b', plain, [CLEAN, C2])).toMatchObject({
      status: 'verified',
      effects: ['detected', 'verified'],
      context: { confirmations: 2 },
    });
    const waiting = run(world, 'd2b', plain, [C2, C]);
    expect(waiting).toMatchObject({ status: 'pending', refused: ['CONFIRM'], context: { confirmations: 2 } });
    expect(run(world, 'd2c', plain, [C2, CLEAN])).toMatchObject({ status: 'verified', context: { confirmations: 2 } });
    // Never past finality, whatever a step carries.
    expect(run(world, 'd2d', plain, [C, C2])).toMatchObject({ status: 'pending', context: { confirmations: 2 } });
  });

  it('verifies when the partner window closes last (PARTNER_WINDOW_CLOSED → verified)', () => {
    const r = run(world, 'd3', partner, [C, CLEAN, C, CLOSE]);
    expect(r).toMatchObject({ status: 'verified', effects: ['detected', 'verified'] });
  });

  it('closes the window early without verifying, then verifies on the last check', () => {
    const r = run(world, 'd4', partner, [CLOSE, CLOSE, C, CLEAN, C]);
    expect(r).toMatchObject({ status: 'verified', refused: ['PARTNER_WINDOW_CLOSED'] });
  });

  it('flags on a screening flag (routes) and refuses a second screening result', () => {
    expect(run(world, 'd5', plain, [C, FLAG])).toMatchObject({
      status: 'flagged',
      context: { flag_reason: 'sanctions_match', flagged_by: 'routes' },
    });
    expect(run(world, 'd6', plain, [CLEAN, FLAG, CLEAN]).refused).toEqual(['SCREENED_FLAG', 'SCREENED_CLEAN']);
  });

  it('flags on a partner flag while the window is open, and refuses one after it closed or without partner screening', () => {
    const r = run(world, 'd7', partner, [CLEAN, C, C, PFLAG]);
    expect(r).toMatchObject({
      status: 'flagged',
      effects: ['detected', 'flagged'],
      context: {
        flag_reason: 'partner_flagged',
        flagged_by: 'partner',
        partner_flag_category: 'aml',
        partner_flag_message: 'm',
        partner_window_open: false,
      },
    });
    expect(run(world, 'd8', partner, [CLOSE, PFLAG]).refused).toEqual(['PARTNER_FLAG']);
    expect(run(world, 'd9', plain, [PFLAG, CLOSE]).refused).toEqual(['PARTNER_FLAG', 'PARTNER_WINDOW_CLOSED']);
  });

  it('drops below finality and refuses DROP at finality', () => {
    expect(run(world, 'd10', plain, [C, DROP])).toMatchObject({ status: 'dropped', effects: ['detected', 'dropped'] });
    expect(run(world, 'd11', partner, [C, C, DROP]).refused).toEqual(['DROP']);
  });

  it('absorbs every event in each terminal state', () => {
    for (const [id, prefix] of [
      ['t1', [CLEAN, C, C]],
      ['t2', [FLAG]],
      ['t3', [DROP]],
    ] as const) {
      const r = run(world, id, plain, [...prefix, ...ALL]);
      expect(r.refused).toEqual(ALL.map((e) => e.type));
    }
  });

  it('took every edge of the machine', () => {
    const taken = new Set(
      world.transitions.records.filter((r) => r.kind === 'deposit' && r.from !== null).map((r) => `${r.from}|${r.event}|${r.to}`),
    );
    for (const e of edgesOf(depositMachine)) expect(taken, `${e.from} --${e.event}--> ${e.to}`).toContain(`${e.from}|${e.event}|${e.to}`);
  });
});
