// Command: an idempotent write the model made, sent again with its Idempotency-Key: with the same payload it
// must answer its first answer byte for byte (never run again); with another payload, 409 idempotency_key_reuse.
import type fc from 'fast-check';
import { expect } from 'vitest';
import { api, checkAfterStep, type TradingModel, type TradingReal } from '../model.ts';

export class ReplayWrite implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(readonly writeIdx: number, readonly samePayload: boolean) {}
  check = (m: Readonly<TradingModel>): boolean => m.writes.length > 0;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const w = m.writes[this.writeIdx % m.writes.length];
    const what = this.samePayload ? 'idempotency.replay' : 'idempotency.reuse';
    m.reach.tried.add(what);
    const body = this.samePayload ? w.body : { ...w.body, client_marker: 'a different payload' };
    const res = await api(r, w.method, w.path, { body, idem: w.key });
    if (this.samePayload) {
      expect({ status: res.status, body: res.body }, `replay of ${w.method} ${w.path} with key ${w.key}`).toEqual({ status: w.status, body: w.answer });
    } else {
      expect([res.status, res.body.error?.code], `same key ${w.key}, another payload`).toEqual([409, 'idempotency_key_reuse']);
    }
    m.reach.reached.add(what);
    await checkAfterStep(m, r);
  }
  toString = (): string => `replayWrite(write#${this.writeIdx}, ${this.samePayload ? 'same payload' : 'another payload'})`;
}
