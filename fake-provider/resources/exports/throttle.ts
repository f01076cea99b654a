// Abuse controls of the public export endpoints: sliding windows on sim time (per account, per client
// IP), kept in the exports store. A refused request is not counted, so a client that backs off recovers.
import type { World } from '../../world.ts';
import { ApiError } from '../../http/errors.ts';

export type Windows = Map<string, number[]>;

export interface WindowLimit {
  max: number;
  window_ms: number;
}

/** Hits of `key` still inside the window (older ones are dropped). */
function recent(world: World, windows: Windows, key: string, limit: WindowLimit): number[] {
  const since_ms = world.sim.now_ms() - limit.window_ms;
  const hits = (windows.get(key) ?? []).filter((t) => t > since_ms);
  windows.set(key, hits);
  return hits;
}

/** Throws 429 `rate_limited` (with Retry-After when the profile says so) when `key` is at its limit. */
export function checkWindow(world: World, windows: Windows, key: string, limit: WindowLimit, what: string): void {
  const hits = recent(world, windows, key, limit);
  if (hits.length < limit.max) return;
  const wait_ms = hits[0]! + limit.window_ms - world.sim.now_ms();
  const headers: Record<string, string> = {};
  if (world.profile.rate_limit_retry_after) headers['Retry-After'] = String(Math.max(1, Math.ceil(wait_ms / 1000)));
  throw new ApiError('rate_limited', `too many ${what} (at most ${limit.max} per ${limit.window_ms / 1000} s)`, { headers });
}

export function recordHit(world: World, windows: Windows, key: string): void {
  const hits = windows.get(key) ?? [];
  hits.push(world.sim.now_ms());
  windows.set(key, hits);
}
