// Abuse controls shared by the public endpoints (export, recovery) and bearer auth: sliding windows on sim time
// (per account, per client IP; a refused request is not counted, so a client that backs off recovers) and the
// OTP guess limit.
import type { World } from '../world.ts';
import { ApiError } from './errors.ts';

export type Windows = Map<string, number[]>;

export interface WindowLimit {
  max: number;
  window_ms: number;
}

/** Hits of `key` still inside the window (older ones are dropped). */
function recent(windows: Windows, key: string, limit: WindowLimit, now_ms: number): number[] {
  const since_ms = now_ms - limit.window_ms;
  const hits = (windows.get(key) ?? []).filter((t) => t > since_ms);
  // An empty window is dropped, so the map holds only keys with hits inside their window.
  if (hits.length > 0) windows.set(key, hits);
  else windows.delete(key);
  return hits;
}

/**
 * Throws 429 `rate_limited` (with Retry-After when the profile says so) when `key` is at its limit. `now_ms`
 * is sim time unless given (the auth throttle passes wall time: its Retry-After must hold on a virtual clock).
 */
export function checkWindow(
  world: World,
  windows: Windows,
  key: string,
  limit: WindowLimit,
  what: string,
  now_ms = world.sim.now_ms(),
): void {
  const hits = recent(windows, key, limit, now_ms);
  if (hits.length < limit.max) return;
  const wait_ms = hits[0]! + limit.window_ms - now_ms;
  const headers: Record<string, string> = {};
  if (world.profile.rate_limit_retry_after) headers['Retry-After'] = String(Math.max(1, Math.ceil(wait_ms / 1000)));
  throw new ApiError('rate_limited', `too many ${what} (at most ${limit.max} per ${limit.window_ms / 1000} s)`, { headers });
}

export function recordHit(world: World, windows: Windows, key: string, now_ms = world.sim.now_ms()): void {
  const hits = windows.get(key) ?? [];
  hits.push(now_ms);
  windows.set(key, hits);
}

/** An emailed OTP and the wrong codes tried against it so far. */
export interface GuardedOtp {
  code: string;
  expires_at_ms: number;
  wrong_guesses: number;
}

/**
 * Counts one wrong code against a live OTP and returns the 401 to answer. The guess that reaches the
 * profile's `otp_max_attempts` burns the OTP (`burn` drops it): from then on even the right code is
 * `invalid_otp`, until a fresh OTP is emailed (`again` says how to get one).
 */
export function wrongOtpGuess(world: World, otp: GuardedOtp | null, burn: () => void, text: { subject: string; again: string }): ApiError {
  const message = `the OTP is not valid for ${text.subject}`;
  if (otp !== null && ++otp.wrong_guesses >= world.profile.otp_max_attempts) {
    burn();
    return new ApiError(
      'invalid_otp',
      `${message}; after ${world.profile.otp_max_attempts} wrong codes it no longer works: ${text.again} for a new one`,
      { param: 'otp_code' },
    );
  }
  return new ApiError('invalid_otp', message, { param: 'otp_code' });
}
