// The model tests' progress hook for `scripts/soak.ts`: wraps a property body so that, when
// SWAPSIM_PROGRESS_FILE is set, it appends a JSON line every SWAPSIM_PROGRESS_EVERY runs and at each failure
// (calls after the first failure are fast-check shrinking). Without the variable it returns the body itself: inert.
import { appendFileSync } from 'node:fs';

/** One line of the progress file. `runs` counts generated runs; `shrinks` the calls made after the first failure. */
export interface SoakProgressLine {
  property: string;
  runs: number;
  failed: boolean;
  shrinks: number;
  /** Wall clock (epoch ms) when the line was written. */
  t_ms: number;
  /** On a failing call: what it threw. The last one written is the shrunk counterexample's (vitest's JSON drops the cause). */
  error?: string;
}

export function soakProgress<A extends unknown[]>(
  property: string,
  body: (...args: A) => Promise<void>,
  env: NodeJS.ProcessEnv = process.env,
): (...args: A) => Promise<void> {
  const file = env.SWAPSIM_PROGRESS_FILE;
  if (!file) return body;
  const every = Math.max(1, Math.floor(Number(env.SWAPSIM_PROGRESS_EVERY)) || 10);
  const state = { runs: 0, failed: false, shrinks: 0 };
  const note = (error?: string): void =>
    appendFileSync(file, `${JSON.stringify({ property, ...state, t_ms: Date.now(), error } satisfies SoakProgressLine)}\n`);
  return async (...args: A): Promise<void> => {
    if (state.failed) state.shrinks++;
    else state.runs++;
    try {
      await body(...args);
    } catch (err) {
      state.failed = true;
      note(String((err as Error)?.message ?? err).slice(0, 4_000));
      throw err;
    }
    if (state.failed ? state.shrinks % (every * 10) === 0 : state.runs % every === 0) note();
  };
}
