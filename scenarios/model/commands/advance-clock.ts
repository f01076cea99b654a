// Command: move the sim clock forward; everything due runs (confirmations, screening, deliveries).
import type fc from 'fast-check';
import { checkAfterStep, type CoreModel, type CoreReal } from '../model.ts';

export class AdvanceClock implements fc.AsyncCommand<CoreModel, CoreReal> {
  constructor(readonly ms: number) {}
  check = (): boolean => true;
  async run(m: CoreModel, r: CoreReal): Promise<void> {
    await r.sim.advance(this.ms);
    m.now_ms += this.ms;
    await checkAfterStep(m, r);
  }
  toString = (): string => `advance(${this.ms})`;
}
