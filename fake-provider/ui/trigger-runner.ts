// What the dashboard's trigger runs need from outside the server: a runner of the scenario library's triggers.
// The server may not import the library (it sits above the app: lib/import-graph.test.ts), so `swapsim serve`
// (cli/trigger-runner.ts) hands one in as RuntimeOptions.trigger_runner; a server without one (the library's
// createSim, tests) answers 501 `trigger_runner_missing`. Types only: runtime.ts and ui/runs.ts both read them.

/** Where and as whom a trigger runs: this server's own URLs and the chosen organization's key. */
export interface TriggerTarget {
  base_url: string;
  control_url: string;
  /** The organization's key: the trigger finds its organization (and that organization's own clock) by it. */
  api_key: string;
  control_token?: string;
  /** An existing account to run in (default: a new one). */
  account_id?: string;
}

/** How a run ended. */
export interface TriggerOutcome {
  ok: boolean;
  /** Why it failed: the run's failure line, or why it could not start; null when it passed. */
  failure: string | null;
  /** The whole run as `swapsim trigger` prints it (empty when it could not start). */
  output: string;
  /** The run as `swapsim trigger --json` prints it (steps, checks, ids, events), or null when it could not start. */
  run: unknown;
}

export interface TriggerRunner {
  /** The triggers it runs, by name (`swapsim trigger --list`); read when first asked (the library loads then). */
  names(): Promise<readonly string[]>;
  /** Runs one; `onLine` gets each step as it happens. Resolves (never rejects) with how it ended. */
  run(name: string, target: TriggerTarget, onLine: (line: string) => void): Promise<TriggerOutcome>;
}
