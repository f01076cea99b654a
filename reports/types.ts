// The shapes every long-running command writes for reports (scenario runs, swapsim verify, npm run bench,
// k6 summaries): producers import these types, the report builders read them. JSON, sim times in ms.

/** One thing that happened to one entity at one sim time: the rows of GET /_sim/timeline (declared there). */
export type { TimelineEntry } from '../fake-provider/control/timeline.ts';
import type { TimelineEntry } from '../fake-provider/control/timeline.ts';

export interface ExpectationResult {
  label: string;
  ok: boolean;
  detail?: string;
  sim_ms?: number;
}

export interface ConductFinding {
  api_key?: string;
  kind: string;
  detail?: string;
  request_ids: string[];
}

/** `swapsim scenario run`: one scenario. */
export interface ScenarioRun {
  kind: 'scenario';
  name: string;
  summary: string;
  tags: string[];
  seed: string;
  ok: boolean;
  /** Why it failed (first failed expectation or thrown error), absent when ok. */
  error?: string;
  started_sim_ms: number;
  ended_sim_ms: number;
  wall_ms: number;
  steps: string[];
  timeline: TimelineEntry[];
  expectations: ExpectationResult[];
  conduct: ConductFinding[];
}

/** `swapsim scenario run NAME… | --all`: the batch written to report.json. */
export interface ScenarioBatch {
  kind: 'scenario-batch';
  seed: string;
  started_at: string;
  passed: number;
  failed: number;
  runs: ScenarioRun[];
}

export interface VerifyDivergence {
  entity_type: string;
  entity_id: string;
  field: string;
  app: unknown;
  provider: unknown;
}

export interface VerifyCase {
  run: number;
  seed: string;
  ok: boolean;
  steps: string[];
  /** The shrunk scenario, readable, when the case failed. */
  shrunk_steps?: string[];
  divergence?: VerifyDivergence;
  replay_command?: string;
  timeline?: TimelineEntry[];
  /** The reason the case failed, in one sentence (the first line verify prints). */
  headline?: string;
  /** The provider's seed for this run (`<base>/run-<n>`). */
  sim_seed?: string;
  /** The delivery log of the events involved: every attempt, its answer, verify's own effects. */
  delivery_log?: string[];
  /** The batch the run was in (runs of one batch ran at once behind verify's hub; a run alone is a batch of one). */
  batch?: number;
}

/** `swapsim verify`. */
export interface VerifyResult {
  kind: 'verify';
  app_url: string;
  seed: string;
  started_at: string;
  runs: number;
  passed: number;
  failed: number;
  wall_ms: number;
  cases: VerifyCase[];
  conduct: ConductFinding[];
  /** Runs run at once behind verify's hub (1: one after another); absent in reports from before it existed. */
  concurrency?: number;
}

export interface BenchCase {
  name: string;
  requests_per_s: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  errors: number;
  /** e.g. fixed-rate runs: the offered rate. */
  offered_rate_per_s?: number;
}

/** `npm run bench`: the self-benchmark (autocannon). */
export interface BenchResult {
  kind: 'bench';
  started_at: string;
  command: string;
  machine: { cpus: number; node: string };
  cases: BenchCase[];
  ratios: Record<string, number>;
  targets?: Array<{ label: string; ok: boolean; value: number; target: string }>;
}

/** `swapsim report --history`: successive BenchResults side by side, oldest first. */
export interface BenchHistory {
  kind: 'bench-history';
  runs: Array<{ label: string; source?: string; result: BenchResult }>;
}

/** Optional block a swapsim k6 script may add beside k6's own fields in its handleSummary JSON, under the key
 *  `swapsim`, so the load report knows each phase's limit class and rate window. `name` is the value of the tag
 *  that separates the phases in the sub-metric names (e.g. the scenario name in `http_reqs{scenario:over}`). */
export interface K6SummaryExtras {
  script?: string;
  phases?: Array<{
    name: string;
    limit_class?: string;
    limit_per_s?: number;
    offered_rate_per_s?: number;
    duration_s?: number;
    start_s?: number;
  }>;
}

/** One fast-check failure of a soaked property, as fast-check printed it. */
export interface SoakFailure {
  /** fast-check's seed and path: with them the test replays exactly this case. */
  seed: number;
  path: string;
  /** fast-check commands' replayPath, printed inside the counterexample (absent for non-command properties). */
  replay_path?: string;
  /** The shrunk counterexample (the command list), as printed. */
  counterexample: string;
  shrinks?: number;
  /** Runs done when it failed ("Property failed after N tests"). */
  after_runs?: number;
  /** The first lines of the error the shrunk case threw. */
  error?: string;
  replay_command: string;
}

/** A run-progress sample: runs done by `elapsed_ms` of wall time since the soak started. */
export interface SoakSample {
  elapsed_ms: number;
  runs: number;
}

export interface SoakProperty {
  /** core | trading */
  name: string;
  test_file: string;
  runs_requested: number;
  /** Runs done (all requested when it passed; up to the failing one when it failed). */
  runs: number;
  seed: number;
  passed: boolean;
  failures: SoakFailure[];
  /** The test did not run to a verdict (did not load, hook failed, timed out): what vitest said. */
  error?: string;
  wall_ms: number;
  runs_per_s: number;
  samples: SoakSample[];
}

/** `npm run test:soak` (scripts/soak.ts): the model property tests run many times. */
export interface SoakResult {
  kind: 'soak';
  started_at: string;
  command: string;
  seed: number;
  runs_requested: number;
  passed: number;
  failed: number;
  wall_ms: number;
  machine: { cpus: number; node: string };
  properties: SoakProperty[];
}
