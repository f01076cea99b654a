// The realtime driver of a world that goes live outside createRuntime (a reopened journal, a restored snapshot).
import type { Runtime } from '../runtime.ts';
import { followServer } from '../worlds.ts';

/** Starts the runtime's world's realtime driver, each movement journaled (as createRuntime does for a fresh world). */
export function driveRealtime(runtime: Runtime): void {
  const sim = runtime.world.sim;
  if (sim.clock.mode !== 'realtime' || sim.journal.mode === 'replay') return;
  runtime.stopRealtime = sim.scheduler.startRealtime((ms) => {
    sim.journal.write({ kind: 'clock', sim_ms: sim.now_ms(), op: 'advance', ms });
    void followServer(runtime, sim.now_ms() + ms);
  });
}
