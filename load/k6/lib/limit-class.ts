// One documented rate limit exercised under, at and over its value: three constant-arrival-rate
// phases (80% / 100% / 150% by default), each on its own API key when keys are available, separated
// in time by default, with the thresholds that check the limit beside it. The four entry scripts
// (reads, writes, indicative-rfqs, firm-rfqs) are this module plus the request of their class.
// Split runs (--execution-segment) share keys and fixtures through RUN_ID (lib/segment.ts).
import http from 'k6/http';
import { check } from 'k6';
import exec from 'k6/execution';
import { Counter, Rate } from 'k6/metrics';
import type { Options, Scenario } from 'k6/options';
import { hasErrorEnvelope, is2xx, retryAfterMs, type Res } from './api.ts';
import {
  commonConfig,
  durationMs,
  openDirProbe,
  envBool,
  envList,
  envNumber,
  envString,
  msDuration,
  SPEC_LIMITS,
  type Env,
  type LimitClass,
} from './config.ts';
import { createOrg, mustControl, probeControl, type ControlInfo } from './control.ts';
import type { Api } from './fixtures.ts';
import { joinRun, startTogether } from './run.ts';
import { segmentInfo, sharedRunId, type SegmentInfo } from './segment.ts';
import { summaryOutputs } from './summary.ts';

const PHASES = ['under', 'at', 'over'] as const;
type Phase = (typeof PHASES)[number];

export interface LimitClassSpec<F> {
  /** Names the summary files: `<script>-summary.json`, `<script>-junit.xml`. */
  script: string;
  limit_class: LimitClass;
  /** Builds, once per API key in setup, what `send` needs (an account, a funded credit). On a split run
   *  every instance calls it with the same prefix; only the leader may create what cannot be replayed. */
  prepare?: (api: Api, ctl: ControlInfo | null, env: Env, prefix: string, seg: SegmentInfo) => F;
  /** One request of the class; `seq` is unique in the run (Idempotency-Keys). */
  send: (api: Api, fixture: F, seq: string) => Res;
}

interface PhasePlan {
  name: Phase;
  pct: number;
  per_s: number;
  start_ms: number;
  duration_ms: number;
}

interface LimitPlan {
  limit_class: LimitClass;
  limit: number;
  layout: 'sequential' | 'parallel';
  phases: PhasePlan[];
  tolerance: number;
  at_max_rejected: number;
  /** dropped_iterations allowed per phase, as a fraction of its offered iterations (MAX_DROPPED_PCT). */
  max_dropped_fraction: number;
  /** An absolute allowance per phase instead (MAX_DROPPED), or null. */
  max_dropped: number | null;
  /** Latency the pre-allocated VUs absorb without a drop (LATENCY_BUDGET): VUs = rate × this. */
  latency_budget_ms: number;
  pre_allocated_vus: number | null;
  max_vus: number | null;
}

/**
 * The tag a process puts on the over phase's samples when it is the whole run (no execution segment). Split
 * across k6 instances, the instances share each phase's key, and which instance's requests meet the refusals
 * depends on how their schedules interleave: one may take every 429 of the over phase. So the over phase's
 * thresholds select `whole_run:yes`, which only an unsplit process records (its setup knows the segment, its
 * init context cannot: k6 v0.48 panics there), and a split run's over phase is judged by `npm run k6:combine`
 * on the instances' summaries together. No INSTANCES to keep equal to the runner count by hand.
 */
const WHOLE_RUN_TAG = { whole_run: 'yes' } as const;

/**
 * 429s allowed at 100% of the limit: 5%, or one request per 1 s window edge (1/(N+1)) plus 2% where that is
 * more. A fixed-window proxy refuses the (N+1)th request of a window whenever latency jitter puts it
 * there: about 1/(N+1) of an evenly spaced client's requests (17% at 5/s, 9% at 10/s, 1% at 100/s).
 */
function atAllowance(limit: number): number {
  return Math.max(0.05, 1 / (limit + 1) + 0.02);
}

/** The plan from the environment; every number has a spec-derived default. */
function limitPlan(env: Env, limit_class: LimitClass): LimitPlan {
  const limit = envNumber(env, 'LIMIT', SPEC_LIMITS[limit_class]);
  const layout = envString(env, 'LAYOUT', 'sequential');
  if (layout !== 'sequential' && layout !== 'parallel') throw new Error(`LAYOUT must be sequential or parallel, got ${layout}`);
  const chosen = envList(env, 'PHASES');
  for (const p of chosen) if ((PHASES as readonly string[]).indexOf(p) < 0) throw new Error(`PHASES: unknown phase ${p} (under, at, over)`);
  const names = PHASES.filter((p) => chosen.length === 0 || chosen.indexOf(p) >= 0);
  const duration_ms = durationMs(envString(env, 'PHASE_DURATION', '30s'));
  // A gap longer than the limiter's 1 s window, so one phase's traffic never spills into the next's.
  const gap_ms = durationMs(envString(env, 'PHASE_GAP', '3s'));
  const pct: { [p in Phase]: number } = {
    under: envNumber(env, 'UNDER_PCT', 80),
    at: envNumber(env, 'AT_PCT', 100),
    over: envNumber(env, 'OVER_PCT', 150),
  };
  const phases = names.map((name, i) => ({
    name,
    pct: pct[name],
    per_s: (limit * pct[name]) / 100,
    start_ms: layout === 'parallel' ? 0 : i * (duration_ms + gap_ms),
    duration_ms,
  }));
  const vus = (name: string) => (env[name] === undefined || env[name] === '' ? null : envNumber(env, name, 1));
  return {
    limit_class,
    limit,
    layout,
    phases,
    tolerance: envNumber(env, 'TOLERANCE_PCT', 10) / 100,
    at_max_rejected: env.AT_MAX_REJECTED_PCT ? envNumber(env, 'AT_MAX_REJECTED_PCT', 5) / 100 : atAllowance(limit),
    max_dropped_fraction: envNumber(env, 'MAX_DROPPED_PCT', 1) / 100,
    max_dropped: env.MAX_DROPPED === undefined || env.MAX_DROPPED === '' ? null : envNumber(env, 'MAX_DROPPED', 0),
    latency_budget_ms: durationMs(envString(env, 'LATENCY_BUDGET', '1s')),
    pre_allocated_vus: vus('PRE_ALLOCATED_VUS'),
    max_vus: vus('MAX_VUS'),
  };
}

/** k6 wants an integer `rate` per `timeUnit`: 7.5/s becomes 75 per 10 s. */
export function arrival(per_s: number): { rate: number; timeUnit: string } {
  for (const unit of [1, 10, 100, 1000]) {
    const rate = per_s * unit;
    if (Math.abs(rate - Math.round(rate)) < 1e-9) return { rate: Math.round(rate), timeUnit: `${unit}s` };
  }
  return { rate: Math.round(per_s * 1000), timeUnit: '1000s' };
}

/**
 * VUs of one phase. k6 drops an arrival the moment every initialized VU is busy, and only then starts
 * another (up to maxVUs): what absorbs a latency stall is the pre-allocation. So each phase pre-allocates
 * rate × LATENCY_BUDGET (1 s: a stall of that long drops nothing) and may grow to twice that.
 */
function phaseVus(plan: LimitPlan, per_s: number): { pre: number; max: number } {
  const pre = plan.pre_allocated_vus === null ? Math.max(2, Math.ceil((per_s * plan.latency_budget_ms) / 1000)) : plan.pre_allocated_vus;
  const max = plan.max_vus === null ? Math.max(pre, 10, 2 * pre) : Math.max(plan.max_vus, pre);
  return { pre, max };
}

/** dropped_iterations allowed in one phase: MAX_DROPPED, else MAX_DROPPED_PCT of its offered iterations. */
function droppedAllowance(plan: LimitPlan, p: PhasePlan): number {
  if (plan.max_dropped !== null) return plan.max_dropped;
  return Math.floor(plan.max_dropped_fraction * p.per_s * (p.duration_ms / 1000));
}

function scenarioFor(plan: LimitPlan, p: PhasePlan): Scenario {
  const { pre, max } = phaseVus(plan, p.per_s);
  return {
    executor: 'constant-arrival-rate',
    exec: p.name,
    ...arrival(p.per_s),
    duration: msDuration(p.duration_ms),
    startTime: msDuration(p.start_ms),
    preAllocatedVUs: pre,
    maxVUs: max,
    gracefulStop: '5s',
    tags: { limit_class: plan.limit_class, phase: p.name },
  };
}

/**
 * Thresholds beside the limit they check; every metric named here gets a sample on every response. `scope`
 * `process`: what each k6 process declares (the over phase judged on `whole_run:yes` samples only);
 * `whole-run`: the same checks on the whole run's figures, which `npm run k6:combine` re-checks on a split run.
 */
function limitThresholds(plan: LimitPlan, scope: 'process' | 'whole-run' = 'process'): { [metric: string]: string[] } {
  const t: { [metric: string]: string[] } = {
    // Every 429, in any phase, carries the spec's envelope with code rate_limited ...
    rl_429_bad_envelope: ['count==0'],
    // ... and Retry-After when the profile says so (EXPECT_RETRY_AFTER; swapsim's default profile: yes).
    rl_429_missing_retry_after: ['count==0'],
  };
  const over = plan.phases.find((p) => p.name === 'over');
  for (const p of plan.phases) {
    const sel = `{scenario:${p.name}}`;
    t[`rl_errors${sel}`] = ['rate==0'];
    // A generator that did not offer the load it claims cannot pass (a small fraction is allowed: a stall).
    t[`dropped_iterations${sel}`] = [`count<=${droppedAllowance(plan, p)}`];
    if (p.name === 'under') t[`rl_rejected${sel}`] = ['rate==0'];
    if (p.name === 'at') t[`rl_rejected${sel}`] = [`rate<=${round4(plan.at_max_rejected)}`];
  }
  if (over) {
    // Accepted rate = offered rate × accepted fraction; within ±tolerance of the limit means the
    // fraction lies in [(1-tol)·limit/offered, (1+tol)·limit/offered]. Offered is held by dropped_iterations.
    // Above that, one second's worth of the limit once per phase: a token bucket starts full (N at once) and
    // a fixed window can pass N at the end of one window and N at the start of the next.
    const seconds = over.duration_ms / 1000;
    const lo = ((1 - plan.tolerance) * plan.limit) / over.per_s;
    const hi = Math.min(1, ((1 + plan.tolerance) * plan.limit) / over.per_s + plan.limit / (over.per_s * seconds));
    const judged = scope === 'whole-run' ? '{scenario:over}' : '{scenario:over,whole_run:yes}';
    t[`rl_rejected${judged}`] = ['rate>0'];
    t[`rl_accepted${judged}`] = [`rate>=${round4(lo)}`, `rate<=${round4(hi)}`];
    if (scope === 'process') {
      // Figures (k6 keeps a sub-metric only when a threshold names it): the over phase's counts on every
      // instance, for the summary, `swapsim report` and k6:combine.
      t['rl_rejected{scenario:over}'] = ['rate>=0'];
      t['rl_accepted{scenario:over}'] = ['rate>=0'];
    }
  }
  return t;
}

const round4 = (x: number): number => Math.round(x * 10000) / 10000;

function limitOptions(plan: LimitPlan): Options {
  const scenarios: { [name: string]: Scenario } = {};
  for (const p of plan.phases) scenarios[p.name] = scenarioFor(plan, p);
  return { scenarios, thresholds: limitThresholds(plan), setupTimeout: '300s', summaryTrendStats: ['avg', 'med', 'p(95)', 'p(99)', 'max'] };
}

interface PhaseKey<F> {
  key: string;
  fixture: F;
}

interface LimitSetupData<F> {
  run_id: string;
  expect_retry_after: boolean;
  keys_from: 'control-plane' | 'API_KEYS' | 'API_KEY';
  /** Printed on stdout by handleSummary: which keys were used, and why. */
  notes: string[];
  segment: string | null;
  /** When the phases started (epoch ms): the leader's announced time on a split run with a control plane, else setup's end. */
  start_ms: number;
  /** Whether start_ms was agreed between a split run's instances (else each started as its setup ended). */
  start_agreed: boolean;
  phases: { [p: string]: PhaseKey<F> };
}

interface Metrics {
  rejected: Rate;
  accepted: Rate;
  errors: Rate;
  bad_envelope: Counter;
  missing_retry_after: Counter;
}

/** Records one response against every limit metric (each gets a sample, so no threshold goes unevaluated).
 *  `whole_run`: this process is the whole run (not a segment), so its figures may be judged here. */
export function recordLimitResponse(m: Metrics, res: Res, expect_retry_after: boolean, whole_run = false): void {
  const rejected = res.status === 429;
  const accepted = is2xx(res);
  const tags = whole_run ? WHOLE_RUN_TAG : undefined;
  m.rejected.add(rejected, tags);
  m.accepted.add(accepted, tags);
  m.errors.add(!rejected && !accepted);
  const envelope = !rejected || hasErrorEnvelope(res, 'rate_limited');
  const retryAfter = !rejected || !expect_retry_after || retryAfterMs(res) !== null;
  m.bad_envelope.add(envelope ? 0 : 1);
  m.missing_retry_after.add(retryAfter ? 0 : 1);
  check(res, {
    'answered 2xx or 429': () => accepted || rejected,
    '429 carries the error envelope': () => envelope,
    '429 carries Retry-After (when expected)': () => retryAfter,
  });
}

/** The limits the control plane holds for these keys (for the note on stdout), where it knows them. */
function limitsOf(ctl: ControlInfo, keys: string[], cls: LimitClass): string {
  const orgs = mustControl(ctl, 'GET', '/organizations').organizations as any[];
  return keys
    .map((k) => {
      const org = orgs.find((o) => (o.api_keys as string[]).indexOf(k) >= 0);
      return `…${k.slice(-4)} ${org ? `${org.rate_limits[cls]}/s` : 'unknown there'}`;
    })
    .join(', ');
}

/**
 * Keys, one per phase. Keys the user gives (API_KEYS) are used, control plane or not, unless
 * CREATE_ORGS=true; without them, a control plane creates one organization per phase (LIMIT set on the
 * class under test); else API_KEY. A split run names the organizations' keys from RUN_ID, so that every
 * instance uses the same ones (the first creates them).
 */
function phaseKeys(
  env: Env,
  plan: LimitPlan,
  ctl: ControlInfo | null,
  run_id: string,
  seg: SegmentInfo,
): { from: LimitSetupData<unknown>['keys_from']; keys: string[]; notes: string[] } {
  const common = commonConfig(env);
  const n = plan.phases.length;
  const create = envBool(env, 'CREATE_ORGS');
  const given = common.api_keys;
  const names = plan.phases.map((p) => p.name).join(', ');
  if (ctl !== null && (create === true || (create === undefined && given.length === 0))) {
    // Fresh organizations: the limit under test set to LIMIT, the others left at the spec's values.
    const keys = plan.phases.map((p) =>
      createOrg(
        ctl,
        { [plan.limit_class]: plan.limit },
        seg.segment === null ? undefined : `sk_k6_${run_id}_${plan.limit_class}_${p.name}`,
      ),
    );
    const notes = [
      `keys: ${n} organizations created through the control plane at ${ctl.url} (${plan.limit_class} ${plan.limit}/s), one per phase (${names})`,
    ];
    if (given.length > 0) notes.push(`keys: API_KEYS (${given.length} given) not used: CREATE_ORGS=true`);
    return { from: 'control-plane', keys, notes };
  }
  if (given.length > 0) {
    const keys = plan.phases.map((_p, i) => given[i % given.length]!);
    const notes = [`keys: API_KEYS (${given.length} given), phases ${names} take them in turn`];
    if (ctl !== null)
      notes.push(
        `keys: the control plane at ${ctl.url} answers; API_KEYS used instead of new organizations (CREATE_ORGS=true would create them); there ${plan.limit_class} is ${limitsOf(ctl, keys, plan.limit_class)}, the thresholds expect ${plan.limit}/s`,
      );
    return { from: 'API_KEYS', keys, notes };
  }
  return {
    from: 'API_KEY',
    keys: Array.from({ length: n }, () => common.api_key),
    notes: [`keys: API_KEY (…${common.api_key.slice(-4)}) for every phase${ctl === null ? '' : ' (CREATE_ORGS=false)'}`],
  };
}

function limitSetup<F>(env: Env, plan: LimitPlan, spec: LimitClassSpec<F>): LimitSetupData<F> {
  const common = commonConfig(env);
  const seg = segmentInfo();
  const run_id = sharedRunId(common.run_id, seg);
  const ctl = probeControl(common.control_url, common.control_token);
  // RUN_ID claimed on the server first (a reused one is refused); a follower waits for its leader's run.
  const join = joinRun(ctl, run_id, seg, durationMs(envString(env, 'SPLIT_WAIT', '60s')));
  const expectEnv = envBool(env, 'EXPECT_RETRY_AFTER');
  const expect_retry_after = expectEnv !== undefined ? expectEnv : ctl !== null && ctl.retry_after !== null ? ctl.retry_after : true;
  const { from, keys, notes } = phaseKeys(env, plan, ctl, run_id, seg);
  const distinct = keys.filter((k, i) => keys.indexOf(k) === i);
  if (plan.layout === 'parallel' && distinct.length < keys.length) {
    throw new Error(`LAYOUT=parallel needs one API key per phase (${keys.length}); got ${distinct.length}: give API_KEYS or a CONTROL_URL`);
  }
  const fixtures: { [key: string]: F } = {};
  for (const key of distinct) {
    fixtures[key] = spec.prepare
      ? spec.prepare({ base_url: common.base_url, key }, ctl, env, `${run_id}-${distinct.indexOf(key)}`, seg)
      : (null as F);
  }
  const phases: { [p: string]: PhaseKey<F> } = {};
  plan.phases.forEach((p, i) => (phases[p.name] = { key: keys[i]!, fixture: fixtures[keys[i]!]! }));
  const start_ms = startTogether(ctl, run_id, seg, join);
  if (seg.segment !== null)
    notes.push(
      `split run: this instance plays segment ${seg.segment}${seg.leader ? ' (leader)' : ''}; RUN_ID ${run_id}; ${start_ms === null ? "phases start when this instance's setup ends (no control plane to agree a start time)" : `phases start at ${new Date(start_ms).toISOString()}, as the leader announced`}`,
    );
  for (const note of notes) console.log(note);
  return {
    run_id,
    expect_retry_after,
    keys_from: from,
    notes,
    segment: seg.segment,
    start_ms: start_ms ?? Date.now(),
    start_agreed: start_ms !== null,
    phases,
  };
}

export interface LimitScript<F> {
  options: Options;
  setup: () => LimitSetupData<F>;
  under: (data: LimitSetupData<F>) => void;
  at: (data: LimitSetupData<F>) => void;
  over: (data: LimitSetupData<F>) => void;
  handleSummary: (data: any) => { [out: string]: string };
}

/** What a script exports when its configuration is unusable: setup throws the reason, the summary is red. */
const UNUSABLE_OPTIONS: Options = { scenarios: { unusable: { executor: 'shared-iterations', exec: 'under', iterations: 1, vus: 1 } } };

/** Everything an entry script exports, built in the init context (metrics must be declared there). */
export function limitClassScript<F>(env: Env, spec: LimitClassSpec<F>): LimitScript<F> {
  const common = commonConfig(env, { control: true }, openDirProbe());
  let plan: LimitPlan | null = null;
  let config_error: string | null = null;
  try {
    if (common.summary_error !== null) throw new Error(common.summary_error);
    plan = limitPlan(env, spec.limit_class);
  } catch (e) {
    // Not thrown here: k6 would exit before handleSummary, leaving an earlier run's green files in place.
    config_error = `unusable configuration: ${e instanceof Error ? e.message : String(e)}`;
  }
  const m: Metrics = {
    rejected: new Rate('rl_rejected'),
    accepted: new Rate('rl_accepted'),
    errors: new Rate('rl_errors'),
    bad_envelope: new Counter('rl_429_bad_envelope'),
    missing_retry_after: new Counter('rl_429_missing_retry_after'),
  };
  // 429s are what the over phase is for: keep them out of http_req_failed, which then shows real failures.
  http.setResponseCallback(http.expectedStatuses({ min: 200, max: 399 }, 429));
  const phase = (name: Phase) => (data: LimitSetupData<F>) => {
    const p = data.phases[name]!;
    const seq = `${data.run_id}-${name}-${exec.scenario.iterationInTest}`;
    const res = spec.send({ base_url: common.base_url, key: p.key }, p.fixture, seq);
    recordLimitResponse(m, res, data.expect_retry_after, data.segment === null);
  };
  return {
    options: plan === null ? UNUSABLE_OPTIONS : limitOptions(plan),
    setup: () => {
      if (plan === null) throw new Error(config_error!);
      return limitSetup(env, plan, spec);
    },
    under: phase('under'),
    at: phase('at'),
    over: phase('over'),
    handleSummary: (data) =>
      summaryOutputs(spec.script, common.summary_dir, data, {
        plan: plan ?? undefined,
        config_error,
        ...(plan === null ? {} : { whole_run_thresholds: limitThresholds(plan, 'whole-run') }),
      }),
  };
}
