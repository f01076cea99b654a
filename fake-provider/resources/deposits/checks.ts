// The timers that step a deposit after it lands: its confirmations (one step per block, or one at the
// finality block), source screening, the partner's window and an injected partner flag.
import type { World } from '../../world.ts';
import { screen } from '../screening/index.ts';
import type { DepositEvent } from './machine.ts';
import { sendDeposit, type Deposit } from './model.ts';

/** Events that carry no data: one frozen object each, shared by every deposit. */
const DROP: DepositEvent = Object.freeze({ type: 'DROP' });
const SCREENED_CLEAN: DepositEvent = Object.freeze({ type: 'SCREENED_CLEAN' });
const PARTNER_WINDOW_CLOSED: DepositEvent = Object.freeze({ type: 'PARTNER_WINDOW_CLOSED' });
/** A confirmation step carries only its block count: one frozen event for a block at a time. */
const CONFIRM_ONE: DepositEvent = Object.freeze({ type: 'CONFIRM', blocks: 1 });
const confirmEvent = (blocks: number): DepositEvent => (blocks === 1 ? CONFIRM_ONE : { type: 'CONFIRM', blocks });

/** Where a deposit's confirmations stand: the block the next task reaches, its due time, and that task. */
interface ConfirmChain {
  n: number;
  due_ms: number;
  run: () => void;
}

const NOT_YET = (): void => undefined;

/**
 * `d.confirm_step` blocks at a time (one per block, or all of them at the finality block): each step
 * schedules the next, and a resolved deposit stops the chain (per block, the settle report and the
 * timeline count each). One task function per deposit serves every step, its state in a plain record.
 */
function scheduleConfirmations(world: World, d: Deposit, block_ms: number): void {
  const step = d.confirm_step;
  const chain: ConfirmChain = { n: step, due_ms: d.landed_at_ms + d.faults.delay_ms + step * block_ms, run: NOT_YET };
  chain.run = () => confirmStep(world, d, chain, block_ms);
  world.sim.scheduler.schedule(chain.due_ms, 'deposit.confirm', chain.run);
}

function confirmStep(world: World, d: Deposit, chain: ConfirmChain, block_ms: number): void {
  const required = d.snapshot.context.required_confirmations;
  if (d.faults.drop && chain.n === required) {
    sendDeposit(world, d, DROP);
    return;
  }
  if (sendDeposit(world, d, confirmEvent(d.confirm_step)) && chain.n < required) {
    chain.n += d.confirm_step;
    chain.due_ms += d.confirm_step * block_ms;
    world.sim.scheduler.schedule(chain.due_ms, 'deposit.confirm', chain.run);
  }
}

export function scheduleChecks(world: World, d: Deposit, block_ms: number): void {
  const { scheduler } = world.sim;
  scheduleConfirmations(world, d, block_ms);

  scheduler.after(world.profile.deposit_screening_ms, 'deposit.screening', () => {
    const flag = d.faults.flag !== null && d.faults.flag !== 'partner_flagged' ? d.faults.flag : screen(world, d.source_address);
    sendDeposit(world, d, flag ? { type: 'SCREENED_FLAG', flag_reason: flag } : SCREENED_CLEAN);
  });

  if (d.screening_deadline_ms !== null) {
    scheduler.schedule(d.screening_deadline_ms, 'deposit.partner_window', () => {
      sendDeposit(world, d, PARTNER_WINDOW_CLOSED);
    });
    if (d.faults.flag === 'partner_flagged') {
      // An injected partner answers halfway through its window.
      scheduler.after(Math.floor(world.profile.partner_window_ms / 2), 'deposit.partner_flag', () => {
        sendDeposit(world, d, { type: 'PARTNER_FLAG', flag_category: 'swapsim_fault', flag_message: 'flagged by a swapsim fault rule' });
      });
    }
  }
}
