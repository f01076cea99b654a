// Bearer auth: resolves an API key to its organization by one Map lookup (key → org), so the cost does not grow
// with the number of organizations and a near miss costs what any miss does (the Map compares hashes first).
// Failed authentications are throttled per client address (profile `auth_failures_per_ip`, wall time): past
// the limit a wrong key is answered 429 instead of 401, and a valid key is never refused for others' failures.
import { wallNow_ms } from '../../sim/clock.ts';
import { defineStore, type Organization, type World } from '../world.ts';
import { ApiError } from '../contract/errors.ts';
import { checkWindow, recordHit, type Windows } from '../contract/throttle.ts';

/**
 * Every organization key → its organization, kept by organizations.ts. Keyed by the key itself: the keys are
 * held in memory anyway (the organizations', the runtime's key → world map), and a SHA-256 digest of the
 * presented key cost ~1.3 µs of every authenticated request (docs/performance.md).
 */
const keyIndex = defineStore('auth-key-index', () => new Map<string, Organization>());
/** Failed authentications per client address (sliding windows on wall time). */
const failures = defineStore('auth-failures', (): Windows => new Map());

export function indexKeys(world: World, org: Organization): void {
  const index = keyIndex(world);
  for (const k of org.api_keys) index.set(k, org);
}

export function unindexKeys(world: World, org: Organization): void {
  const index = keyIndex(world);
  for (const k of org.api_keys) if (index.get(k) === org) index.delete(k);
}

/** The organization holding this key, if any. */
export function orgOfKey(world: World, key: string): Organization | undefined {
  return keyIndex(world).get(key);
}

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}

/**
 * The organization of a bearer key, else 401; a wrong key from an address past `auth_failures_per_ip` is 429.
 * The key is looked up first: one tenant's (or a deleted tenant's) failing client behind the address every CI
 * job shares must not lock out the others, and a 192-bit key is not guessed in any number of tries. The window
 * runs on wall time so that its Retry-After holds on a virtual clock; a journal records each 429 verdict
 * (`auth_throttled`, by request id) and a replay reuses it, never its own wall clock.
 */
export function authenticate(
  world: World,
  header: string | undefined,
  ip = 'unknown',
  request_id = '',
): { org: Organization; api_key: string } {
  const key = bearerToken(header);
  if (key === undefined) {
    // A missing header is a misconfigured client, not a guess: not counted.
    throw new ApiError('unauthorized', 'missing bearer API key', { param: 'Authorization' });
  }
  const org = orgOfKey(world, key);
  if (org) return { org, api_key: key };
  throttleFailure(world, ip, request_id);
  throw new ApiError('unauthorized', 'invalid API key', { param: 'Authorization' });
}

/** Counts a wrong key against its address; throws the 429 once the address is past its limit. */
function throttleFailure(world: World, ip: string, request_id: string): void {
  const journal = world.sim.journal;
  if (journal.mode === 'replay') {
    const verdict = journal.fact('auth_throttled', request_id) as { message: string; headers: Record<string, string> } | undefined;
    if (verdict) throw new ApiError('rate_limited', verdict.message, { headers: verdict.headers });
    return;
  }
  const windows = failures(world);
  const now_ms = wallNow_ms();
  try {
    checkWindow(world, windows, ip, world.profile.auth_failures_per_ip, 'failed authentications from this address', now_ms);
  } catch (e) {
    if (journal.mode === 'record' && e instanceof ApiError)
      journal.write({ kind: 'fact', what: 'auth_throttled', key: request_id, value: { message: e.message, headers: e.headers ?? {} } });
    throw e;
  }
  recordHit(world, windows, ip, now_ms);
}
