// Wall time for the harness and the clients (scenarios, verify, lib/http-client.ts), kept beside the kernel's
// clock on purpose: the wall clock (clock.ts `wallNow_ms`) for a run's wall_ms and started_at, and a wall wait
// for the one thing that runs on wall time, the /v1 rate limiter (a client honouring Retry-After). Sim time
// never comes from here.
import { setTimeout as sleep } from 'node:timers/promises';
import { wallNow_ms } from './clock.ts';

export interface Wall {
  now_ms(): number;
  /** Resolves after `ms`; rejects (AbortError) if `signal` aborts first. */
  wait(ms: number, signal?: AbortSignal): Promise<void>;
}

export const WALL: Wall = {
  now_ms: wallNow_ms,
  wait: async (ms, signal) => void (await sleep(ms, undefined, signal ? { signal } : undefined)),
};
