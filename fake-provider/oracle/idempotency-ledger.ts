// A witness of idempotent answers, apart from the idempotency store it checks: the first final answer for
// each (organization, Idempotency-Key, payload) is remembered as a digest, and every later answer to the
// same key and payload within the retention must be that answer byte for byte (spec: "Same key + same
// payload returns the same result"). An answer that differs means the write ran again. Entries older than
// the retention are swept as new ones arrive, so the ledger stays as small as the store it watches.
import { createHash } from 'node:crypto';
import { defineStore, type World } from '../world.ts';
import type { Violation } from '../resource-records.ts';

interface Witnessed {
  digest: string;
  at_ms: number;
}

const ledger = defineStore('idempotency-ledger', () => ({ first: new Map<string, Witnessed>(), violations: [] as Violation[] }));

/** Violations kept at most (a broken store would otherwise add one per replay). */
const MAX_VIOLATIONS = 100;

/** Called with every final answer to an idempotent write (429 and 5xx are not final: they may be retried). */
export function witnessIdempotentAnswer(world: World, org_id: string, key: string, print: string, answer: { status: number; body: unknown }): void {
  if (answer.status === 429 || answer.status >= 500) return;
  const l = ledger(world);
  const now = world.sim.now_ms();
  const retention = world.profile.idempotency_retention_ms;
  for (const [k, w] of l.first) {
    if (now - w.at_ms < retention) break;
    l.first.delete(k);
  }
  const id = `${org_id}\u0000${key}\u0000${print}`;
  const digest = createHash('sha256').update(`${answer.status} ${JSON.stringify(answer.body)}`).digest('hex');
  const first = l.first.get(id);
  if (first === undefined) l.first.set(id, { digest, at_ms: now });
  else if (first.digest !== digest && l.violations.length < MAX_VIOLATIONS) {
    l.violations.push({ invariant: 'spec.protocol.idempotent_replay', entity_id: key, message: `a replay of Idempotency-Key ${key} answered differently from its first answer (the write ran again)` });
  }
}

export function idempotencyViolations(world: World): Violation[] {
  return world.stores.has('idempotency-ledger') ? [...ledger(world).violations] : [];
}
