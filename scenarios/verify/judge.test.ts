// The delivery-log rules on hand-made logs: a refused or unanswered signed attempt is a finding; verify's own
// drops and wrong signatures are not; an API fault on the app's key excuses a refusal only between the attempt
// and its answer; an ended delivery says so; latency above the limit is a finding; the log reads back each
// attempt. The timeline text the log is parsed from is pinned by a real sim in verify.test.ts and the twins.
import { describe, expect, it } from 'vitest';
import { formatDeliveryLog, judgeDeliveries, judgeLatency, type Attempt } from './judge.ts';
import type { RelayRecord } from './relay.ts';

const rel = (ms: number): string => `t+${ms / 1000}s`;
const attempt = (over: Partial<Attempt>): Attempt => ({
  delivery_id: 'dlv_1',
  event_id: 'evt_1',
  event_type: 'trade.settled',
  at_ms: 1_000,
  http_status: 200,
  copies: 1,
  effects: [],
  replay: false,
  end_state: 'succeeded',
  ...over,
});
const record = (over: Partial<RelayRecord>): RelayRecord => ({
  event_id: 'evt_1',
  event_type: 'trade.settled',
  account_id: 'acct_1',
  delivery_id: 'dlv_1',
  signed_at_ms: 1_000,
  kind: 'provider',
  sent_wall_ms: 0,
  latency_ms: 20,
  status: 200,
  timed_out: false,
  styled: false,
  ...over,
});

describe('judgeDeliveries', () => {
  it('passes answered deliveries, and attempts verify itself dropped or signed wrongly', () => {
    const log = [
      attempt({}),
      attempt({ delivery_id: 'dlv_2', http_status: 0, effects: ['drop'] }),
      attempt({ delivery_id: 'dlv_2', at_ms: 31_000 }),
      attempt({ delivery_id: 'dlv_3', http_status: 401, effects: ['bad_signature'] }),
    ];
    expect(judgeDeliveries(log, [], 300_000, rel).findings).toEqual([]);
  });

  it('finds a refused signed attempt, with every attempt of that delivery', () => {
    const log = [attempt({ http_status: 500 }), attempt({ at_ms: 31_000 })];
    const { findings } = judgeDeliveries(log, [], 300_000, rel);
    expect(findings).toHaveLength(1);
    expect(findings[0].headline).toBe(
      'a correctly signed delivery of evt_1 (trade.settled) was answered 500: a receiver answers 2xx to every valid delivery it has taken (or will take) into account',
    );
    expect(findings[0].detail).toEqual(['attempts of dlv_1: t+1s HTTP 500, t+31s HTTP 200']);
  });

  it('names a delivery that got no answer and ended failed', () => {
    const log = [
      attempt({ http_status: 0, end_state: 'exhausted' }),
      attempt({ at_ms: 5_000, http_status: 0, effects: ['drop'], end_state: 'exhausted' }),
    ];
    expect(judgeDeliveries(log, [], 0, rel).findings[0].headline).toMatch(
      /^a correctly signed delivery of evt_1 \(trade\.settled\) got no answer \(timeout or connection error\), and the delivery ended failed/,
    );
  });

  it("excuses a refusal only when one of verify's API faults fired between the attempt and its answer", () => {
    const log = [attempt({ http_status: 503 }), attempt({ at_ms: 400_000 })];
    expect(judgeDeliveries(log, [250_000], 300_000, rel)).toMatchObject({
      findings: [],
      excused: [expect.stringContaining('evt_1 (trade.settled) answered 503 at t+1s')],
    });
    expect(judgeDeliveries(log, [302_000], 300_000, rel).findings).toHaveLength(1);
    expect(judgeDeliveries(log, [999], 300_000, rel).findings).toHaveLength(1);
  });
});

describe('judgeLatency', () => {
  it('finds the slowest answer above the limit, and only those', () => {
    expect(judgeLatency([record({ latency_ms: 7_900 })], 8_000)).toBeNull();
    const f = judgeLatency(
      [record({ latency_ms: 8_400 }), record({ event_id: 'evt_2', latency_ms: 9_100, event_type: 'credit.created' })],
      8_000,
    );
    expect(f?.headline).toMatch(/^handler took 9\.1 s to answer evt_2 \(credit\.created\), above the 8 s latency limit/);
    expect(f?.detail).toEqual(['2 answers above the limit']);
  });
});

describe('formatDeliveryLog', () => {
  it("lists each attempt with verify's effects, extra copies and the slowest answer; after a cut, only the app's part", () => {
    const log = [attempt({ http_status: 0, effects: ['drop'] }), attempt({ at_ms: 31_000, copies: 2, effects: ['duplicate'] })];
    const records = [record({ latency_ms: 1_234 }), record({ kind: 'concurrent_copy', status: 409 })];
    expect(formatDeliveryLog(['evt_1', 'evt_9'], log, records, rel)).toEqual([
      'evt_1 trade.settled: t+1s no answer [drop by verify]; t+31s HTTP 200 (2 copies) [duplicate by verify] → succeeded; concurrent copy: HTTP 409; slowest answer 1.23 s',
      'evt_9: never delivered',
    ]);
    const cut = [attempt({ http_status: 504 }), attempt({ at_ms: 301_000, http_status: 503 })];
    expect(formatDeliveryLog(['evt_1'], cut, [], rel, true)).toEqual([
      'evt_1 trade.settled: t+1s HTTP 504 → the run was cut here; later attempts were answered by verify',
    ]);
  });
});
