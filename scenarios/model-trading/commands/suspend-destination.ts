// Command: delta screening suspends a usable destination (new trades, zaps and cancels to it are refused).
import type fc from 'fast-check';
import { expect } from 'vitest';
import { checkAfterStep, type TradingModel, type TradingReal } from '../model.ts';

export class SuspendDestination implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(readonly destinationIdx: number) {}
  check = (m: Readonly<TradingModel>): boolean => m.destinations.some((d) => !d.suspended);
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const usable = m.destinations.filter((d) => !d.suspended);
    const d = usable[this.destinationIdx % usable.length];
    const res = await r.sim.control('POST', `/destinations/${d.destination_id}/suspend`, { reason: 'delta screening hit' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    d.suspended = true;
    await checkAfterStep(m, r);
  }
  toString = (): string => `suspendDestination(usable#${this.destinationIdx})`;
}
