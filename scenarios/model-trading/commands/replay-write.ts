// Command: an accept the model made, sent again: with its Idempotency-Key and the same payload it must answer
// its first answer byte for byte (never run again); with its key and another payload, 409
// idempotency_key_reuse; with a fresh key (a second accept of the same quote), 409 quote_consumed.
import type fc from 'fast-check';
import { expect } from 'vitest';
import { api, checkAfterStep, type TradingModel, type TradingReal } from '../model.ts';

export type ReplayMode = 'same_payload' | 'other_payload' | 'fresh_key';

export class ReplayWrite implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(
    readonly writeIdx: number,
    readonly mode: ReplayMode,
  ) {}
  check = (m: Readonly<TradingModel>): boolean => m.writes.length > 0;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const w = m.writes[this.writeIdx % m.writes.length];
    const what = `idempotency.${this.mode}`;
    m.reach.tried.add(what);
    if (this.mode === 'same_payload') {
      const res = await api(r, w.method, w.path, { body: w.body, idem: w.key });
      expect({ status: res.status, body: res.body }, `replay of ${w.method} ${w.path} with key ${w.key}`).toEqual({
        status: w.status,
        body: w.answer,
      });
    } else if (this.mode === 'other_payload') {
      const res = await api(r, w.method, w.path, { body: { ...w.body, client_order_id: 'another payload' }, idem: w.key });
      expect([res.status, res.body.error?.code], `same key ${w.key}, another payload`).toEqual([409, 'idempotency_key_reuse']);
    } else {
      const res = await api(r, w.method, w.path, { body: w.body, idem: `${w.key}-again-${m.writes.length}` });
      expect([res.status, res.body.error?.code], `a second accept of ${w.path} under a new key`).toEqual([409, 'quote_consumed']);
    }
    m.reach.reached.add(what);
    await checkAfterStep(m, r);
  }
  toString = (): string => `replayWrite(write#${this.writeIdx}, ${this.mode})`;
}
