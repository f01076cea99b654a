// Command (first of every run): the run's organization, with drawn fees (decimal integrator bps included),
// recovery and partner screening on or off. The model reads its fees from here, never from the fake.
import type fc from 'fast-check';
import { expect } from 'vitest';
import type { TOrg, TradingModel, TradingReal } from '../model.ts';

const UNTHROTTLED = { reads: 100_000, writes: 100_000, indicative_rfqs: 100_000, firm_rfqs: 100_000 };

export class SetupOrg implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(readonly org: TOrg) {}
  check = (): boolean => true;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const res = await r.sim.control('POST', '/organizations', { ...this.org, rate_limits: UNTHROTTLED });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    r.key = res.body.organization.api_key;
    m.org_id = res.body.organization.organization_id;
    m.org = this.org;
  }
  toString = (): string => `setupOrg(${JSON.stringify(this.org)})`;
}
