// Idempotency-Key store per organization: the fingerprint is method + path + canonical body. Same key and
// payload replays the stored response (or awaits the one in flight); a different payload is a 409.
// Responses kept: every final answer except 429 and 5xx, so a throttled or failed write can be retried.
// Records expire after `idempotency_retention_ms` of sim time and are swept; an organization keeps at most
// `idempotency_max_records` and `idempotency_max_bytes_per_org` (estimated bytes of keys and stored answers; its
// oldest go first), so memory stays bounded whatever keys and bodies a client sends.
import { createHash } from 'node:crypto';
import { defineStore, type World } from '../world.ts';
import { ApiError } from '../contract/errors.ts';

export interface StoredReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface Entry {
  fingerprint: string;
  created_at_ms: number;
  /** The answer once it is in (then `reply` is dropped: a record is data, which a snapshot of the world copies). */
  answer: StoredReply | null;
  /** The answer in flight, until it is in. */
  reply: Promise<StoredReply> | null;
  /** Estimated bytes held (key, fingerprint, stored answer), counted in its queue's `bytes` once the answer is in. */
  bytes: number;
}

/** One organization's records in creation order (sim time never goes back): expiry and the caps take from the front. */
interface OrgQueue {
  items: Array<{ id: string; at_ms: number }>;
  head: number;
  /** Estimated bytes of its live records. */
  bytes: number;
}

/** The longest Idempotency-Key accepted (spec: not shown); a longer one is a 400 and is never stored anywhere. */
export const IDEMPOTENCY_KEY_MAX_CHARS = 255;

/** Per record besides its strings: the entry, the queue item, map slots (a rough V8 figure; bounds, not accounting). */
const ENTRY_OVERHEAD_BYTES = 200;

const idempotency = defineStore('idempotency', () => ({
  entries: new Map<string, Entry>(),
  queues: new Map<string, OrgQueue>(),
  writes: 0,
}));

/** Removes a record and takes its bytes off its organization's count. */
function remove(store: ReturnType<typeof idempotency>, q: OrgQueue, id: string): void {
  const entry = store.entries.get(id);
  if (entry === undefined) return;
  q.bytes -= entry.bytes;
  store.entries.delete(id);
}

/**
 * Drops the queue's front while it is expired (or past the count or byte cap); a front item whose record was
 * replaced or removed is skipped.
 */
function sweepQueue(store: ReturnType<typeof idempotency>, q: OrgQueue, expired_before_ms: number, cap: number, max_bytes: number): void {
  while (q.head < q.items.length) {
    const front = q.items[q.head];
    const live = store.entries.get(front.id);
    const current = live !== undefined && live.created_at_ms === front.at_ms;
    if (current && front.at_ms > expired_before_ms && q.items.length - q.head <= cap && q.bytes <= max_bytes) break;
    if (current) remove(store, q, front.id);
    q.head++;
  }
  // Compacted once half the array is spent: amortized O(1) per write.
  if (q.head > 1024 && q.head * 2 > q.items.length) {
    q.items.splice(0, q.head);
    q.head = 0;
  }
}

/** Sweeps every organization's expired records (each write sweeps its own; this catches orgs gone quiet). */
function sweepAll(world: World): void {
  const store = idempotency(world);
  const before_ms = world.sim.now_ms() - world.profile.idempotency_retention_ms;
  for (const [org, q] of store.queues) {
    sweepQueue(store, q, before_ms, world.profile.idempotency_max_records, world.profile.idempotency_max_bytes_per_org);
    if (q.head >= q.items.length) store.queues.delete(org);
  }
}

/** Records held, for tests and the soak bench. */
export function idempotencyRecords(world: World): number {
  return idempotency(world).entries.size;
}

/** Estimated bytes one organization's records hold, for tests and the tenants bench. */
export function idempotencyBytes(world: World, org_id: string): number {
  return idempotency(world).queues.get(org_id)?.bytes ?? 0;
}

/** A deleted organization's records go with it. */
export function forgetIdempotency(world: World, org_id: string): void {
  const store = idempotency(world);
  const q = store.queues.get(org_id);
  if (q) for (const item of q.items) store.entries.delete(item.id);
  store.queues.delete(org_id);
}

/** Nesting canonicalJson follows at most (HTTP bodies stop at MAX_BODY_DEPTH; this guards in-process callers). */
const CANONICAL_DEPTH_MAX = 256;

/** JSON with sorted keys; a value nested past CANONICAL_DEPTH_MAX is a 400, never a stack overflow. */
export function canonicalJson(value: unknown, depth = 0): string {
  if (depth > CANONICAL_DEPTH_MAX)
    throw new ApiError('invalid_parameter', `the request body nests deeper than ${CANONICAL_DEPTH_MAX} levels`);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v, depth + 1)).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k], depth + 1)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function fingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path} ${canonicalJson(body ?? {})}`)
    .digest('hex');
}

export function requireKey(header: string | undefined): string {
  if (header === undefined || header.length === 0) {
    throw new ApiError('parameter_missing', 'Idempotency-Key header is required on this endpoint', { param: 'Idempotency-Key' });
  }
  if (header.length > IDEMPOTENCY_KEY_MAX_CHARS)
    throw new ApiError('invalid_parameter', `Idempotency-Key is longer than ${IDEMPOTENCY_KEY_MAX_CHARS} characters`, {
      param: 'Idempotency-Key',
    });
  return header;
}

/** Runs `execute` once per (org, key); later calls with the same key get its reply. */
export async function withIdempotency(
  world: World,
  org_id: string,
  key: string,
  print: string,
  execute: () => Promise<StoredReply>,
): Promise<{ reply: StoredReply; replayed: boolean }> {
  const store = idempotency(world);
  const id = `${org_id}\u0000${key}`;
  const now = world.sim.now_ms();
  if (++store.writes % 4096 === 0) sweepAll(world);
  const existing = store.entries.get(id);
  if (existing && now - existing.created_at_ms < world.profile.idempotency_retention_ms) {
    if (existing.fingerprint !== print) {
      throw new ApiError('idempotency_key_reuse', 'this Idempotency-Key was used with a different request', { param: 'Idempotency-Key' });
    }
    return { reply: existing.answer ?? (await existing.reply!), replayed: true };
  }
  const reply = execute();
  const entry: Entry = { fingerprint: print, created_at_ms: now, answer: null, reply, bytes: 0 };
  let q = store.queues.get(org_id);
  if (q === undefined) store.queues.set(org_id, (q = { items: [], head: 0, bytes: 0 }));
  // An expired record under the same key is replaced: its bytes leave the count with it.
  remove(store, q, id);
  store.entries.set(id, entry);
  q.items.push({ id, at_ms: now });
  const queue = q;
  const drop = (): void => {
    if (store.entries.get(id) === entry) remove(store, queue, id);
  };
  try {
    const r = await reply;
    entry.answer = r;
    entry.reply = null;
    if (r.status === 429 || r.status >= 500) drop();
    else if (store.entries.get(id) === entry) {
      // Counted once the answer is in (its size is known then), and swept to the caps at once.
      entry.bytes = 2 * (id.length + print.length + (JSON.stringify(r.body) ?? '').length) + ENTRY_OVERHEAD_BYTES;
      queue.bytes += entry.bytes;
      sweepQueue(
        store,
        queue,
        world.sim.now_ms() - world.profile.idempotency_retention_ms,
        world.profile.idempotency_max_records,
        world.profile.idempotency_max_bytes_per_org,
      );
    }
    return { reply: r, replayed: false };
  } catch (e) {
    drop();
    throw e;
  }
}
