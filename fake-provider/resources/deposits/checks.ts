// The timers that step a deposit after it lands: its confirmations (one step per block, or one at the
// finality block), source screening, the partner's window and an injected partner flag. Each is a task of
// data (the deposit's id, and where its confirmations stand), run by the handlers registered here.
import type { World } from '../../world.ts';
import { defineTask } from '../../engine/index.ts';
import { screen } from '../screening/index.ts';
import type { DepositEvent } from './machine.ts';
import { depositStore, sendDeposit, type Deposit } from './model.ts';

/** Events that carry no data: one frozen object each, shared by every deposit. */
const DROP: DepositEvent = Object.freeze({ type: 'DROP' });
const SCREENED_CLEAN: DepositEvent = Object.freeze({ type: 'SCREENED_CLEAN' });
const PARTNER_WINDOW_CLOSED: DepositEvent = Object.freeze({ type: 'PARTNER_WINDOW_CLOSED' });
/** A confirmation step carries only its block count: one frozen event for a block at a time. */
const CONFIRM_ONE: DepositEvent = Object.freeze({ type: 'CONFIRM', blocks: 1 });
const confirmEvent = (blocks: number): DepositEvent => (blocks === 1 ? CONFIRM_ONE : { type: 'CONFIRM', blocks });

/** Where a deposit's confirmations stand: the block the next task reaches, and its due time. */
interface ConfirmTask {
  deposit_id: string;
  n: number;
  due_ms: number;
  block_ms: number;
}

/** A deposit's other checks name only the deposit. */
interface DepositTask {
  deposit_id: string;
}

/**
 * `d.confirm_step` blocks at a time (one per block, or all of them at the finality block): each step
 * schedules the next, and a resolved deposit stops the chain (per block, the settle report and the
 * timeline count each).
 */
function scheduleConfirmations(world: World, d: Deposit, block_ms: number): void {
  const step = d.confirm_step;
  const due_ms = d.landed_at_ms + d.faults.delay_ms + step * block_ms;
  world.sim.scheduler.schedule(due_ms, 'deposit.confirm', { deposit_id: d.deposit_id, n: step, due_ms, block_ms } satisfies ConfirmTask);
}

// A deposit forgotten (its organization deleted) is not found: its remaining checks do nothing.
const depositOf = (world: World, deposit_id: string): Deposit | undefined => depositStore(world).byId.get(deposit_id);

defineTask('deposit.confirm', (world, chain: ConfirmTask) => {
  const d = depositOf(world, chain.deposit_id);
  if (!d) return;
  const required = d.snapshot.context.required_confirmations;
  if (d.faults.drop && chain.n === required) {
    sendDeposit(world, d, DROP);
    return;
  }
  if (sendDeposit(world, d, confirmEvent(d.confirm_step)) && chain.n < required) {
    const due_ms = chain.due_ms + d.confirm_step * chain.block_ms;
    const next: ConfirmTask = { deposit_id: chain.deposit_id, n: chain.n + d.confirm_step, due_ms, block_ms: chain.block_ms };
    world.sim.scheduler.schedule(due_ms, 'deposit.confirm', next);
  }
});

defineTask('deposit.screening', (world, { deposit_id }: DepositTask) => {
  const d = depositOf(world, deposit_id);
  if (!d) return;
  const flag = d.faults.flag !== null && d.faults.flag !== 'partner_flagged' ? d.faults.flag : screen(world, d.source_address);
  sendDeposit(world, d, flag ? { type: 'SCREENED_FLAG', flag_reason: flag } : SCREENED_CLEAN);
});

defineTask('deposit.partner_window', (world, { deposit_id }: DepositTask) => {
  const d = depositOf(world, deposit_id);
  if (d) sendDeposit(world, d, PARTNER_WINDOW_CLOSED);
});

defineTask('deposit.partner_flag', (world, { deposit_id }: DepositTask) => {
  const d = depositOf(world, deposit_id);
  if (d) sendDeposit(world, d, { type: 'PARTNER_FLAG', flag_category: 'swapsim_fault', flag_message: 'flagged by a swapsim fault rule' });
});

export function scheduleChecks(world: World, d: Deposit, block_ms: number): void {
  const { scheduler } = world.sim;
  scheduleConfirmations(world, d, block_ms);
  const task: DepositTask = { deposit_id: d.deposit_id };
  scheduler.after(world.profile.deposit_screening_ms, 'deposit.screening', task);
  if (d.screening_deadline_ms !== null) {
    scheduler.schedule(d.screening_deadline_ms, 'deposit.partner_window', task);
    // An injected partner answers halfway through its window.
    if (d.faults.flag === 'partner_flagged') scheduler.after(Math.floor(world.profile.partner_window_ms / 2), 'deposit.partner_flag', task);
  }
}
