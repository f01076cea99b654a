// The deterministic kernel in one object (SimKernel, a world's `sim`): clock, seeded RNG streams, scheduler,
// fault plan, journal. Everything the engine knows of time and chance comes from here. Not the public `Sim`
// client of lib/sim.ts, which runs a whole server around one.
import { createClock, wallNow_ms, type Clock, type ClockMode } from './clock.ts';
import { createFaultPlan, type FaultPlan } from './faults.ts';
import { createJournal, type Journal } from './journal.ts';
import { createRng, randomSecretSeed, type Rng } from './rng.ts';
import { createScheduler, type Scheduler } from './scheduler.ts';

export * from './clock.ts';
export * from './faults.ts';
export * from './journal.ts';
export * from './rng.ts';
export * from './scheduler.ts';

export interface SimKernelOptions {
  seed?: string | number;
  /** Seeds the `secrets` stream (API keys, webhook secrets, OTPs); random per sim when absent. */
  secret_seed?: string;
  clock?: ClockMode;
  speed?: number;
  start_ms?: number;
  journal_path?: string | null;
  /** A journal shared across worlds (a runtime's recording, or a replay); wins over `journal_path`. */
  journal?: Journal;
  /** The server's fault plan, whose rules also hold here (a world whose clock follows the server's). */
  fault_parent?: () => FaultPlan;
  /**
   * This world's name (an organization id, or `server`) when it shares server rules' `times` counts with other
   * worlds: how its share is consumed is journaled under that name (faults.ts ShareLedger). None: the count alone.
   */
  fault_world?: string;
}

/**
 * The kernel. A class, so every world's kernel shares one `now_ms` (see SimScheduler in scheduler.ts for
 * why); the type is the class's, declared once.
 */
class Kernel {
  readonly seed: string;
  readonly clock: Clock;
  readonly rng: Rng;
  /** The secret stream: API keys swapsim makes, webhook secrets, OTPs. Never derived from `seed`. */
  readonly secrets: Rng;
  readonly secret_seed: string;
  readonly scheduler: Scheduler;
  readonly faults: FaultPlan;
  /** Set once, at construction; `adoptJournal` re-points a world restored from a snapshot at its server's journal. */
  journal: Journal;

  constructor(opts: SimKernelOptions) {
    this.seed = String(opts.seed ?? 1);
    const mode = opts.clock ?? 'virtual';
    // A virtual clock starts at a fixed epoch (same seed, same bytes); a realtime one at wall time.
    const start_ms = opts.start_ms ?? (mode === 'realtime' ? wallNow_ms() : undefined);
    this.clock = createClock({ mode, speed: opts.speed, start_ms });
    this.rng = createRng(this.seed);
    this.secret_seed = opts.secret_seed ?? randomSecretSeed();
    this.secrets = createRng(this.secret_seed, 'secrets');
    this.scheduler = createScheduler(this.clock);
    this.faults = createFaultPlan(
      this.rng.fork('faults'),
      opts.fault_parent,
      opts.fault_world === undefined ? undefined : { world: opts.fault_world, journal: () => this.journal },
    );
    this.journal = opts.journal ?? createJournal(opts.journal_path ?? null);
  }

  now_ms(): number {
    return this.clock.now_ms();
  }

  /**
   * A world rebuilt from a journal's prefix (a snapshot restored) goes on in the server that restored it: what it
   * does next is that server's input, journaled (or replayed) there.
   */
  adoptJournal(journal: Journal): void {
    this.journal = journal;
  }

  /**
   * Wall time of an outside exchange that happens at sim instant `at_ms` for `id` (a webhook attempt's
   * `Svc-Timestamp`: receivers check it against their own clock, so it cannot be sim time). Recording keeps
   * it as a `fact` line keyed `<id>@<at_ms>`, and a replay reads that back, never the wall clock. A journal
   * written before these facts were kept holds none: the sim instant is then what it signed with.
   */
  wallStamp_ms(what: string, id: string, at_ms: number): number {
    const { journal } = this;
    if (journal.mode === 'off') return wallNow_ms();
    const key = `${id}@${at_ms}`;
    if (journal.mode === 'replay') {
      const recorded = journal.fact(what, key);
      return typeof recorded === 'number' ? recorded : at_ms;
    }
    const ms = wallNow_ms();
    journal.write({ kind: 'fact', what, key, value: ms });
    return ms;
  }
}

export type SimKernel = Kernel;

export function createSimKernel(opts: SimKernelOptions = {}): SimKernel {
  return new Kernel(opts);
}
