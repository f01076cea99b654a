// Command: the integrator's webhook receiver goes down (answers 500) or comes back.
import type fc from 'fast-check';
import { checkAfterStep, type CoreModel, type CoreReal } from '../model.ts';

export class WebhookOutage implements fc.AsyncCommand<CoreModel, CoreReal> {
  constructor(readonly down: boolean) {}
  check = (m: Readonly<CoreModel>): boolean => m.outage !== this.down;
  async run(m: CoreModel, r: CoreReal): Promise<void> {
    r.receiver.answer = this.down ? () => 500 : (x) => (x.signature_valid ? 200 : 401);
    m.outage = this.down;
    await checkAfterStep(m, r);
  }
  toString = (): string => (this.down ? 'webhookOutageStarts()' : 'webhookOutageEnds()');
}
