// Command: delta screening clears a suspended destination; it is usable again.
import type fc from 'fast-check';
import { expect } from 'vitest';
import { checkAfterStep, type TradingModel, type TradingReal } from '../model.ts';

export class ReactivateDestination implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(readonly destinationIdx: number) {}
  check = (m: Readonly<TradingModel>): boolean => m.destinations.some((d) => d.suspended);
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const suspended = m.destinations.filter((d) => d.suspended);
    const d = suspended[this.destinationIdx % suspended.length];
    const res = await r.sim.control('POST', `/destinations/${d.destination_id}/reactivate`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    d.suspended = false;
    await checkAfterStep(m, r);
  }
  toString = (): string => `reactivateDestination(suspended#${this.destinationIdx})`;
}
