// Command: move the sim clock forward; everything due runs (fills, settlements, confirmations, expiries).
import type fc from 'fast-check';
import { advance, checkAfterStep, type TradingModel, type TradingReal } from '../model.ts';

export class AdvanceClock implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(readonly ms: number) {}
  check = (): boolean => true;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    await advance(m, r, this.ms);
    await checkAfterStep(m, r);
  }
  toString = (): string => `advance(${this.ms})`;
}
