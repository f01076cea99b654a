// Bearer auth: resolves an API key to its organization. Keys are compared as SHA-256 digests with
// timingSafeEqual against every key of every org, so the time taken says nothing about near misses
// (organization keys' digests are cached per world, so a valid key is not re-hashed on every request).
import { createHash, timingSafeEqual } from 'node:crypto';
import { defineStore, type Organization, type World } from '../world.ts';
import { ApiError } from './errors.ts';

const digest = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

/** The digest of each organization key, computed once per world (by content, so it can never go stale). */
const keyDigests = defineStore('auth-key-digests', () => new Map<string, Buffer>());

function digestOf(world: World, key: string): Buffer {
  const known = keyDigests(world);
  let d = known.get(key);
  if (d === undefined) {
    d = digest(key);
    known.set(key, d);
  }
  return d;
}

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}

export function authenticate(world: World, header: string | undefined): { org: Organization; api_key: string } {
  const key = bearerToken(header);
  if (key === undefined) throw new ApiError('unauthorized', 'missing bearer API key', { param: 'Authorization' });
  // A key that is some organization's key already has its digest in the per-world cache (only org keys are
  // ever put there, so unknown keys cannot grow it); any other key is hashed. Every comparison still runs.
  const wanted = keyDigests(world).get(key) ?? digest(key);
  let found: Organization | undefined;
  for (const org of world.orgs.values()) {
    for (const k of org.api_keys) {
      // No early exit: every comparison runs whatever matched.
      if (timingSafeEqual(wanted, digestOf(world, k)) && found === undefined) found = org;
    }
  }
  if (!found) throw new ApiError('unauthorized', 'invalid API key', { param: 'Authorization' });
  return { org: found, api_key: key };
}
