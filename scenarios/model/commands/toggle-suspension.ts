// Command: delta screening suspends or reactivates a destination; the list then shows it.
import type fc from 'fast-check';
import { expect } from 'vitest';
import { checkAfterStep, type CoreModel, type CoreReal } from '../model.ts';

export class ToggleSuspension implements fc.AsyncCommand<CoreModel, CoreReal> {
  constructor(readonly destinationIdx: number) {}
  check = (m: Readonly<CoreModel>): boolean => m.destinations.length > 0;
  async run(m: CoreModel, r: CoreReal): Promise<void> {
    const d = m.destinations[this.destinationIdx % m.destinations.length];
    const action = d.suspended ? 'reactivate' : 'suspend';
    const res = await r.sim.control(
      'POST',
      `/destinations/${d.destination_id}/${action}`,
      action === 'suspend' ? { reason: 'delta screening hit' } : {},
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    d.suspended = !d.suspended;
    const list = await r.sim.api('GET', `/accounts/${d.account_id}/destinations?limit=100`);
    const shown = list.body.destinations.find((x: { destination_id: string }) => x.destination_id === d.destination_id);
    expect(shown.suspended_at_ms !== null).toBe(d.suspended);
    expect(shown.suspension_reason !== null).toBe(d.suspended);
    await checkAfterStep(m, r);
  }
  toString = (): string => `toggleSuspension(destination#${this.destinationIdx})`;
}
