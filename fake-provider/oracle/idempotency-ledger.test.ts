// The idempotent-answer witness: a replay answered as the first answer is fine; one answered differently
// (the write ran again) is a violation; 429s and 5xx are not first answers; past the retention, or once the
// organization's idempotency_max_records writes came after it, the key is new.
import { describe, expect, it } from 'vitest';
import { createSimKernel } from '../../sim/index.ts';
import { createWorld } from '../world.ts';
import { DEFAULT_PROFILE } from '../profile.ts';
import { idempotencyViolations, noteIdempotentWrite, witnessIdempotentAnswer } from './idempotency-ledger.ts';

const world = () => createWorld({ sim: createSimKernel({ seed: 'ledger', clock: 'virtual', secret_seed: 's' }), profile: DEFAULT_PROFILE });
const first = { status: 200, body: { request_id: 'req_1', trade: { trade_id: 'trd_1' } } };

describe('idempotency ledger', () => {
  it('accepts a replay that answers the first answer, byte for byte', () => {
    const w = world();
    witnessIdempotentAnswer(w, 'org', 'k', 'print', first);
    witnessIdempotentAnswer(w, 'org', 'k', 'print', structuredClone(first));
    expect(idempotencyViolations(w)).toEqual([]);
  });

  it('flags a replay that ran the write again (another trade id, another request id)', () => {
    const w = world();
    witnessIdempotentAnswer(w, 'org', 'k', 'print', first);
    witnessIdempotentAnswer(w, 'org', 'k', 'print', { status: 200, body: { request_id: 'req_2', trade: { trade_id: 'trd_2' } } });
    expect(idempotencyViolations(w).map((v) => v.invariant)).toEqual(['spec.protocol.idempotent_replay']);
  });

  it('keys by organization and payload; 429 and 5xx are not first answers', () => {
    const w = world();
    witnessIdempotentAnswer(w, 'org', 'k', 'print', { status: 503, body: {} });
    witnessIdempotentAnswer(w, 'org', 'k', 'print', first);
    witnessIdempotentAnswer(w, 'other-org', 'k', 'print', { status: 200, body: { other: true } });
    witnessIdempotentAnswer(w, 'org', 'k', 'another-print', { status: 409, body: {} });
    expect(idempotencyViolations(w)).toEqual([]);
  });

  it('forgets a key past the retention', async () => {
    const w = world();
    witnessIdempotentAnswer(w, 'org', 'k', 'print', first);
    await w.sim.scheduler.advance(DEFAULT_PROFILE.idempotency_retention_ms + 1);
    witnessIdempotentAnswer(w, 'org', 'k', 'print', { status: 200, body: { request_id: 'req_9' } });
    expect(idempotencyViolations(w)).toEqual([]);
  });

  it('forgives a key the per-organization cap may have evicted, and still flags one inside the cap', () => {
    const w = createWorld({
      sim: createSimKernel({ seed: 'ledger', clock: 'virtual', secret_seed: 's' }),
      profile: { ...DEFAULT_PROFILE, idempotency_max_records: 3 },
    });
    const write = (key: string, answer: { status: number; body: unknown }): void => {
      noteIdempotentWrite(w, 'org');
      witnessIdempotentAnswer(w, 'org', key, 'print', answer);
    };
    write('k0', first);
    write('k1', first);
    write('k1', { status: 200, body: { request_id: 'req_2' } });
    expect(idempotencyViolations(w).map((v) => v.entity_id)).toEqual(['k1']);
    write('k2', first);
    write('k3', first);
    write('k0', { status: 200, body: { request_id: 'req_3' } });
    expect(idempotencyViolations(w).map((v) => v.entity_id)).toEqual(['k1']);
  });
});
