// Bearer auth: resolves an API key to its organization by one hash lookup (SHA-256 of the key → org), so the
// cost does not grow with the number of organizations and the time taken says nothing about near misses.
// Failed authentications are throttled per client address (profile `auth_failures_per_ip`, sim time).
import { createHash } from 'node:crypto';
import { defineStore, type Organization, type World } from '../world.ts';
import { ApiError } from './errors.ts';
import { checkWindow, recordHit, type Windows } from './throttle.ts';

const digest = (key: string): string => createHash('sha256').update(key, 'utf8').digest('base64');

/** The digest of every organization key → its organization, kept by organizations.ts. */
const keyIndex = defineStore('auth-key-index', () => new Map<string, Organization>());
/** Failed authentications per client address (sliding windows on sim time). */
const failures = defineStore('auth-failures', (): Windows => new Map());

export function indexKeys(world: World, org: Organization): void {
  const index = keyIndex(world);
  for (const k of org.api_keys) index.set(digest(k), org);
}

export function unindexKeys(world: World, org: Organization): void {
  const index = keyIndex(world);
  for (const k of org.api_keys) if (index.get(digest(k)) === org) index.delete(digest(k));
}

/** The organization holding this key, if any. */
export function orgOfKey(world: World, key: string): Organization | undefined {
  return keyIndex(world).get(digest(key));
}

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}

export function authenticate(world: World, header: string | undefined, ip = 'unknown'): { org: Organization; api_key: string } {
  const limit = world.profile.auth_failures_per_ip;
  const windows = failures(world);
  // An address past its failures is refused before its key is looked at: a guess that would be right waits too.
  if (windows.has(ip)) checkWindow(world, windows, ip, limit, 'failed authentications from this address');
  const key = bearerToken(header);
  if (key === undefined) {
    // A missing header is a misconfigured client, not a guess: not counted.
    throw new ApiError('unauthorized', 'missing bearer API key', { param: 'Authorization' });
  }
  const org = orgOfKey(world, key);
  if (!org) {
    recordHit(world, windows, ip);
    throw new ApiError('unauthorized', 'invalid API key', { param: 'Authorization' });
  }
  return { org, api_key: key };
}
