// Command: the receiver is down for longer than the 72 h retry window (the clock moves 96 h), then comes
// back. Deliveries of events published before the outage end failed and are never attempted again after
// the window (the spec oracle checks every attempt's time); the events stay in the feed to recover from.
import type fc from 'fast-check';
import { expect } from 'vitest';
import { checkAfterStep, type CoreModel, type CoreReal } from '../model.ts';

const HOURS_96_MS = 96 * 3_600_000;

export class LongOutage implements fc.AsyncCommand<CoreModel, CoreReal> {
  check = (m: Readonly<CoreModel>): boolean => m.accounts.length > 0;
  async run(m: CoreModel, r: CoreReal): Promise<void> {
    const before = (await r.sim.api('GET', '/events?limit=100')).body.events.length;
    r.receiver.answer = () => 500;
    await r.sim.advance(HOURS_96_MS);
    m.now_ms += HOURS_96_MS;
    r.receiver.answer = m.outage ? () => 500 : (x) => (x.signature_valid ? 200 : 401);
    // Nothing published before the outage is lost to the feed.
    expect((await r.sim.api('GET', '/events?limit=100')).body.events.length).toBeGreaterThanOrEqual(before);
    await checkAfterStep(m, r);
  }
  toString = (): string => 'webhookOutageLongerThan72h()';
}
