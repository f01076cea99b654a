// Idempotency-Key store per organization: the fingerprint is method + path + canonical body. Same key and
// payload replays the stored response (or awaits the one in flight); a different payload is a 409.
// Responses kept: every final answer except 429 and 5xx, so a throttled or failed write can be retried.
import { createHash } from 'node:crypto';
import { defineStore, type World } from '../world.ts';
import { ApiError } from './errors.ts';

export interface StoredReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface Entry {
  fingerprint: string;
  created_at_ms: number;
  reply: Promise<StoredReply>;
}

const idempotency = defineStore('idempotency', () => new Map<string, Entry>());

/** A deleted organization's records go with it. */
export function forgetIdempotency(world: World, org_id: string): void {
  const prefix = `${org_id}\u0000`;
  const store = idempotency(world);
  for (const id of store.keys()) if (id.startsWith(prefix)) store.delete(id);
}

/** Nesting canonicalJson follows at most (HTTP bodies stop at MAX_BODY_DEPTH; this guards in-process callers). */
const CANONICAL_DEPTH_MAX = 256;

/** JSON with sorted keys; a value nested past CANONICAL_DEPTH_MAX is a 400, never a stack overflow. */
export function canonicalJson(value: unknown, depth = 0): string {
  if (depth > CANONICAL_DEPTH_MAX) throw new ApiError('invalid_parameter', `the request body nests deeper than ${CANONICAL_DEPTH_MAX} levels`);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v, depth + 1)).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k], depth + 1)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function fingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path} ${canonicalJson(body ?? {})}`).digest('hex');
}

export function requireKey(header: string | undefined): string {
  if (header === undefined || header.length === 0) {
    throw new ApiError('parameter_missing', 'Idempotency-Key header is required on this endpoint', { param: 'Idempotency-Key' });
  }
  if (header.length > 255) throw new ApiError('invalid_parameter', 'Idempotency-Key is longer than 255 characters', { param: 'Idempotency-Key' });
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
  const existing = store.get(id);
  if (existing && now - existing.created_at_ms < world.profile.idempotency_retention_ms) {
    if (existing.fingerprint !== print) {
      throw new ApiError('idempotency_key_reuse', 'this Idempotency-Key was used with a different request', { param: 'Idempotency-Key' });
    }
    return { reply: await existing.reply, replayed: true };
  }
  const reply = execute();
  const entry: Entry = { fingerprint: print, created_at_ms: now, reply };
  store.set(id, entry);
  try {
    const r = await reply;
    if (r.status === 429 || r.status >= 500) store.delete(id);
    return { reply: r, replayed: false };
  } catch (e) {
    store.delete(id);
    throw e;
  }
}
