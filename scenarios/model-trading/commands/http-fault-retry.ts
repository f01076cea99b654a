// Command: an HTTP fault on the next POST /accounts (429, 500, 503, or the response lost after the write
// ran), and a client that retries with the same Idempotency-Key: exactly one account exists afterwards, and
// the retry answers it.
import type fc from 'fast-check';
import { expect } from 'vitest';
import { advance, api, checkAfterStep, type TradingModel, type TradingReal } from '../model.ts';

export type HttpFaultKind = '429' | '500' | '503' | 'lost_500' | 'lost_reset';

export class HttpFaultRetry implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(readonly kind: HttpFaultKind) {}
  check = (): boolean => true;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const what = `http.${this.kind}`;
    m.reach.tried.add(what);
    const effect = this.kind.startsWith('lost')
      ? { lose_response: true, mode: this.kind === 'lost_reset' ? 'reset' : 'error_500' }
      : { http_status: Number(this.kind) };
    const rule = await r.sim.control('POST', '/faults', {
      target: 'http',
      effect,
      match: { method: 'POST', path: '/v1/accounts' },
      times: 1,
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(200);
    const external_id = `retry-${m.addresses++}-${this.kind}`;
    const key = `create-${external_id}`;
    const body = { label: 'retried', external_id };
    const first = await api(r, 'POST', '/accounts', { body, idem: key }).catch(() => null);
    if (first === null || first.status >= 429) m.reach.reached.add(what);
    if (this.kind === '429') await advance(m, r, 1_000);
    const retry = await api(r, 'POST', '/accounts', { body, idem: key });
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    const listed = await api(r, 'GET', `/accounts?external_id=${external_id}`);
    expect(
      listed.body.accounts.map((a: { account_id: string }) => a.account_id),
      `accounts made by one retried create (${this.kind})`,
    ).toEqual([retry.body.account.account_id]);
    await checkAfterStep(m, r);
  }
  toString = (): string => `httpFaultRetry(${this.kind})`;
}
