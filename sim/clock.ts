// The simulation clock. `virtual` moves only when the scheduler advances it; `realtime` is moved by a
// driver (see scheduler) towards wall time × speed. The engine reads time only through `now_ms()`.

export type ClockMode = 'virtual' | 'realtime';

export interface Clock {
  readonly mode: ClockMode;
  /** Realtime: sim ms per wall ms (1 for a virtual clock, where it means nothing). */
  readonly speed: number;
  /** Wall time of the last setSpeed (0: never): the driver counts the wall time before it at the old speed. */
  readonly speed_since_wall_ms: number;
  /** Realtime: from now on sim time follows wall time × `speed` (the driver rebases; nothing jumps). */
  setSpeed(speed: number): void;
  now_ms(): number;
  /** Moves time forward (never backward); only the scheduler calls this. */
  setNow(ms: number): void;
}

/** 2026-01-01T00:00:00Z: a fixed, readable epoch so that seeded runs print the same timestamps. */
const DEFAULT_START_MS = 1_767_225_600_000;

/** A class, so every world's clock shares one `now_ms` (see SimScheduler in scheduler.ts for why). */
class SimClock implements Clock {
  constructor(
    readonly mode: ClockMode,
    private rate: number,
    private now: number,
  ) {}

  speed_since_wall_ms = 0;

  get speed(): number {
    return this.rate;
  }

  setSpeed(speed: number): void {
    this.rate = speed;
    this.speed_since_wall_ms = wallNow_ms();
  }

  now_ms(): number {
    return this.now;
  }

  setNow(ms: number): void {
    if (ms > this.now) this.now = ms;
  }
}

/** What the control plane shows of a clock: `{now_ms, mode, speed}`. */
export function clockState(clock: Clock): { now_ms: number; mode: ClockMode; speed: number } {
  return { now_ms: clock.now_ms(), mode: clock.mode, speed: clock.speed };
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
