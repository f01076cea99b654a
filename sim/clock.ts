// The simulation clock. `virtual` moves only when the scheduler advances it; `realtime` is moved by a
// driver (see scheduler) towards wall time × speed. The engine reads time only through `now_ms()`.

export type ClockMode = 'virtual' | 'realtime';

export interface Clock {
  readonly mode: ClockMode;
  readonly speed: number;
  now_ms(): number;
  /** Moves time forward (never backward); only the scheduler calls this. */
  setNow(ms: number): void;
}

/** 2026-01-01T00:00:00Z: a fixed, readable epoch so that seeded runs print the same timestamps. */
export const DEFAULT_START_MS = 1_767_225_600_000;

/** A class, so every world's clock shares one `now_ms` (see SimScheduler in scheduler.ts for why). */
class SimClock implements Clock {
  constructor(
    readonly mode: ClockMode,
    readonly speed: number,
    private now: number,
  ) {}

  now_ms(): number {
    return this.now;
  }

  setNow(ms: number): void {
    if (ms > this.now) this.now = ms;
  }
}

export function createClock(opts: { mode?: ClockMode; start_ms?: number; speed?: number } = {}): Clock {
  return new SimClock(opts.mode ?? 'virtual', opts.speed ?? 1, opts.start_ms ?? DEFAULT_START_MS);
}

/** Wall time, for the realtime driver and for rate limits (which the spec defines on wall time). */
export function wallNow_ms(): number {
  return Date.now();
}

/**
 * A wall-clock timer that bounds outside I/O (a webhook receiver's answer), never the simulation: calls
 * `expire` after `ms` unless the returned cancel runs first. Unreferenced: it never keeps the process alive.
 */
export function wallTimeout(ms: number, expire: () => void): () => void {
  const timer = setTimeout(expire, ms);
  timer.unref();
  return () => clearTimeout(timer);
}
