// A witness of idempotent answers, apart from the idempotency store it checks: the first final answer for
// each (organization, Idempotency-Key, payload) is remembered as a digest, and every later answer to the
// same key and payload within the retention must be that answer byte for byte (spec: "Same key + same
// payload returns the same result"). An answer that differs means the write ran again. Entries past the
// retention or the per-organization cap are swept as new ones arrive, so the ledger stays as small as
// the store it watches.
import { createHash } from 'node:crypto';
import { defineStore, type World } from '../world.ts';
import type { Violation } from '../resource-records.ts';

interface Witnessed {
  digest: string;
  at_ms: number;
  /** The organization's idempotent-write count when this answer was witnessed. */
  write_n: number;
}

interface OrgLedger {
  /** First answers by key and payload, in the order they were witnessed (sim time never goes back). */
  first: Map<string, Witnessed>;
  /** Idempotent writes the organization has sent, counted before the store sees them (replays too). */
  writes: number;
}

const ledger = defineStore('idempotency-ledger', () => ({ orgs: new Map<string, OrgLedger>(), violations: [] as Violation[] }));

/** Violations kept at most (a broken store would otherwise add one per replay). */
const MAX_VIOLATIONS = 100;

function orgLedger(world: World, org_id: string): OrgLedger {
  const orgs = ledger(world).orgs;
  let o = orgs.get(org_id);
  if (o === undefined) orgs.set(org_id, (o = { first: new Map(), writes: 0 }));
  return o;
}

/**
 * Called before every idempotent write reaches the store. The profile lets an organization keep at most
 * `idempotency_max_records` keys (its oldest go first, even inside the retention): once that many writes came
 * after a key's first answer, the store may rightly have forgotten it, so a different answer is no violation.
 * Counting every write, replays and refusals included, errs on the side of forgiving.
 */
export function noteIdempotentWrite(world: World, org_id: string): void {
  orgLedger(world, org_id).writes++;
}

/** Called with every final answer to an idempotent write (429 and 5xx are not final: they may be retried). */
export function witnessIdempotentAnswer(
  world: World,
  org_id: string,
  key: string,
  print: string,
  answer: { status: number; body: unknown },
): void {
  if (answer.status === 429 || answer.status >= 500) return;
  const l = ledger(world);
  const o = orgLedger(world, org_id);
  const now = world.sim.now_ms();
  const retention = world.profile.idempotency_retention_ms;
  const cap = world.profile.idempotency_max_records;
  // What can no longer be held against the store goes: past the retention, or past the cap's window.
  for (const [k, w] of o.first) {
    if (now - w.at_ms < retention && o.writes - w.write_n < cap) break;
    o.first.delete(k);
  }
  const id = `${key}\u0000${print}`;
  const digest = createHash('sha256')
    .update(`${answer.status} ${JSON.stringify(answer.body)}`)
    .digest('hex');
  const first = o.first.get(id);
  if (first === undefined) o.first.set(id, { digest, at_ms: now, write_n: o.writes });
  else if (first.digest !== digest && l.violations.length < MAX_VIOLATIONS) {
    l.violations.push({
      invariant: 'spec.protocol.idempotent_replay',
      entity_id: key,
      message: `a replay of Idempotency-Key ${key} answered differently from its first answer (the write ran again)`,
    });
  }
}

export function idempotencyViolations(world: World): Violation[] {
  return world.stores.has('idempotency-ledger') ? [...ledger(world).violations] : [];
}

/** First answers the ledger holds, all organizations together (for the soak bench). */
export function idempotencyLedgerSize(world: World): number {
  if (!world.stores.has('idempotency-ledger')) return 0;
  let n = 0;
  for (const o of ledger(world).orgs.values()) n += o.first.size;
  return n;
}

/** A deleted organization: the answers witnessed for its keys go. */
export function forgetIdempotencyLedger(world: World, org_id: string): void {
  if (world.stores.has('idempotency-ledger')) ledger(world).orgs.delete(org_id);
}
