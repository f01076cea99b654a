// Command: create an account (POST /accounts) and remember it.
import type fc from 'fast-check';
import { expect } from 'vitest';
import { checkAfterStep, LIMITS, type CoreModel, type CoreReal } from '../model.ts';

export class CreateAccount implements fc.AsyncCommand<CoreModel, CoreReal> {
  constructor(readonly label: string) {}
  check = (m: Readonly<CoreModel>): boolean => m.accounts.length < LIMITS.accounts;
  async run(m: CoreModel, r: CoreReal): Promise<void> {
    const res = await r.sim.api('POST', '/accounts', { body: { label: this.label } });
    expect(res.status).toBe(200);
    expect(res.body.account.status).toBe('active');
    m.accounts.push({ account_id: res.body.account.account_id, created_at_ms: res.body.account.created_at_ms });
    await checkAfterStep(m, r);
  }
  toString = (): string => `createAccount(${JSON.stringify(this.label)})`;
}
