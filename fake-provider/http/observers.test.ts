// The observers app.ts registers see a real server's answers: conduct records each authenticated
// /v1 request, and the oracle's witness each answer to an IDEM write (it is what /_sim/invariants reads).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../testing/harness.ts';
import { idempotencyLedgerSize } from '../oracle/idempotency-ledger.ts';

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim();
});
afterAll(() => sim.close());

describe('the registered observers', () => {
  it('conduct records the requests and the witness holds the first answer of each IDEM write', async () => {
    const world = sim.running.runtime.world;
    expect(idempotencyLedgerSize(world)).toBe(0);
    await sim.api('POST', '/accounts', { body: { label: 'a' }, idem: 'obs-1' });
    await sim.api('POST', '/accounts', { body: { label: 'a' }, idem: 'obs-1' });
    await sim.api('GET', '/accounts?limit=1&nobody_declares=1');
    expect(idempotencyLedgerSize(world)).toBe(1);
    const conduct = (await sim.control('GET', `/conduct?api_key=${sim.api_key}`)).body.conduct;
    expect(conduct.requests.map((r: { method: string; path: string; status: number }) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'POST /accounts 200',
      'POST /accounts 200',
      'GET /accounts 200',
    ]);
    const [first, replay, read] = conduct.requests as Array<{ idempotency_key: string | null; body_fingerprint: string | null }>;
    expect([first.idempotency_key, replay.idempotency_key, read.idempotency_key]).toEqual(['obs-1', 'obs-1', null]);
    expect(replay.body_fingerprint).toBe(first.body_fingerprint);
    expect(read.body_fingerprint).toBeNull();
  });
});
