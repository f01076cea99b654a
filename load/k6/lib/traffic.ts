// Shared by lifecycle-mix and proxy-conduct: the journey scenario, setup (key, optional fault rules
// through the control plane) and teardown (swapsim's own client-conduct findings about this run). On a
// split run (--execution-segment) keys come from RUN_ID and only the leader applies faults and reads conduct.
import exec from 'k6/execution';
import type { Counter } from 'k6/metrics';
import type { Options, Scenario } from 'k6/options';
import { commonConfig, durationMs, envBool, envNumber, envString, msDuration, type Env } from './config.ts';
import { createOrg, mustControl, probeControl, type ControlInfo } from './control.ts';
import { assetsConfig } from './fixtures.ts';
import { lifeConfig, runJourney, type LifeMetrics } from './lifecycle.ts';
import { arrival } from './limit-class.ts';
import { joinRun, startTogether } from './run.ts';
import { segmentInfo, sharedRunId } from './segment.ts';

export interface TrafficData {
  run_id: string;
  key: string;
  keys: string[];
  control: ControlInfo | null;
  fault_ids: string[];
  expect_retry_after: boolean;
  /** Printed on stdout by handleSummary: which keys were used, and why. */
  notes: string[];
  segment: string | null;
  leader: boolean;
  /** When the journeys started (epoch ms): the leader's announced time on a split run with a control plane, else setup's end. */
  start_ms: number;
  start_agreed: boolean;
  /** Per key, the conduct findings already there when the run began (kind and request ids): not this run's. */
  conduct_before: { [key: string]: string[] };
}

/** A conduct finding as the scripts report it: kind, the key's last four characters, message. */
export interface RunFinding {
  kind: string;
  api_key: string;
  message: string;
}

const findingId = (f: { kind: string; request_ids?: string[] }): string => `${f.kind}:${(f.request_ids || []).join(',')}`;

function findingsOf(ctl: ControlInfo, key: string): any[] {
  return mustControl(ctl, 'GET', `/conduct?api_key=${encodeURIComponent(key)}`).conduct.findings as any[];
}

/**
 * swapsim's conduct findings about this run's keys made since the run began (API_KEYS may carry findings from
 * before it: not this run's). Null when nobody reads them here (no control plane, or not the leader).
 */
function runFindings(data: TrafficData): RunFinding[] | null {
  if (data.control === null || !data.leader) return null;
  const out: RunFinding[] = [];
  for (const key of data.keys) {
    const before = data.conduct_before[key] || [];
    for (const f of findingsOf(data.control, key)) {
      if (before.indexOf(findingId(f)) >= 0) continue;
      out.push({ kind: String(f.kind), api_key: `…${key.slice(-4)}`, message: String(f.message) });
    }
  }
  return out;
}

/** runFindings for handleSummary, which must not throw (the server may be gone by then): an error is a finding. */
export function safeFindings(data: TrafficData): RunFinding[] | null {
  try {
    return runFindings(data);
  } catch (e) {
    return [
      {
        kind: 'unread',
        api_key: '',
        message: `the conduct findings could not be read at the end: ${e instanceof Error ? e.message : String(e)}`,
      },
    ];
  }
}

/**
 * A script's options, or when the environment makes them unusable, one iteration of `exec` that never
 * runs (setup throws `config_error` first) so that handleSummary still writes a red summary: throwing in
 * the init context would exit before it and leave an earlier run's green files in place.
 */
export function guardedOptions(build: () => Options, exec_name: string): { options: Options; config_error: string | null } {
  try {
    return { options: build(), config_error: null };
  } catch (e) {
    const config_error = `unusable configuration: ${e instanceof Error ? e.message : String(e)}`;
    return {
      options: { scenarios: { unusable: { executor: 'shared-iterations', exec: exec_name, iterations: 1, vus: 1 } } },
      config_error,
    };
  }
}

/**
 * Journeys overlap: one takes ~30 s against a realtime swapsim (deposit finality, fills, settlement), and
 * k6 drops an arrival when every initialized VU is busy. So the pre-allocation covers JOURNEY_BUDGET (60 s)
 * of journeys at the arrival rate (30 at 0.5/s), at least 10.
 */
function journeyVus(env: Env): { pre: number; max: number } {
  const per_s = envNumber(env, 'JOURNEYS_PER_S', 0.5);
  const budget_s = durationMs(envString(env, 'JOURNEY_BUDGET', '60s')) / 1000;
  const pre = env.PRE_ALLOCATED_VUS ? envNumber(env, 'PRE_ALLOCATED_VUS', 10) : Math.max(10, Math.ceil(per_s * budget_s));
  const max = env.MAX_VUS ? Math.max(pre, envNumber(env, 'MAX_VUS', 60)) : Math.max(60, 2 * pre);
  return { pre, max };
}

export function journeyScenario(env: Env, start_ms = 0): Scenario {
  const { pre, max } = journeyVus(env);
  return {
    executor: 'constant-arrival-rate',
    exec: 'journey',
    ...arrival(envNumber(env, 'JOURNEYS_PER_S', 0.5)),
    duration: msDuration(durationMs(envString(env, 'DURATION', '60s'))),
    startTime: msDuration(start_ms),
    preAllocatedVUs: pre,
    maxVUs: max,
    // A journey polls to terminal states: let the last ones finish.
    gracefulStop: envString(env, 'GRACEFUL_STOP', '120s'),
  };
}

/**
 * Keys: API_KEYS when given (unless CREATE_ORGS=true); else, with a control plane and `create_orgs_default`
 * (or CREATE_ORGS=true), two fresh organizations with the spec's limits (mix, burst); else API_KEY.
 * FAULTS (JSON array of `/_sim/faults` bodies) is applied when a control plane is there (by the leader).
 */
export function trafficSetup(env: Env, create_orgs_default: boolean): TrafficData {
  const common = commonConfig(env, { control: create_orgs_default });
  const seg = segmentInfo();
  const run_id = sharedRunId(common.run_id, seg);
  const control = probeControl(common.control_url, common.control_token);
  // RUN_ID claimed on the server first (a reused one is refused); a follower waits for its leader's run.
  const join = joinRun(control, run_id, seg, durationMs(envString(env, 'SPLIT_WAIT', '60s')));
  const create = envBool(env, 'CREATE_ORGS');
  const given = common.api_keys;
  const notes: string[] = [];
  let keys: string[];
  if (control !== null && (create === true || (create === undefined && create_orgs_default && given.length === 0))) {
    const named = (role: string) => (seg.segment === null ? undefined : `sk_k6_${run_id}_${role}`);
    keys = [createOrg(control, undefined, named('mix')), createOrg(control, undefined, named('burst'))];
    notes.push(`keys: 2 organizations created through the control plane at ${control.url} (the spec's limits)`);
    if (given.length > 0) notes.push(`keys: API_KEYS (${given.length} given) not used: CREATE_ORGS=true`);
  } else if (given.length > 0) {
    keys = given;
    notes.push(`keys: API_KEYS (${given.length} given)`);
    if (control !== null && create_orgs_default)
      notes.push(
        `keys: the control plane at ${control.url} answers; API_KEYS used instead of new organizations (CREATE_ORGS=true would create them)`,
      );
  } else {
    keys = [common.api_key];
    notes.push(`keys: API_KEY (…${common.api_key.slice(-4)})`);
  }
  const fault_ids: string[] = [];
  const faults = envString(env, 'FAULTS', '');
  if (faults !== '') {
    if (control === null) notes.push('FAULTS given but no control plane answers: no fault rules applied');
    else if (!seg.leader) notes.push('FAULTS: applied by the leader instance (segment from 0)');
    else for (const rule of JSON.parse(faults) as unknown[]) fault_ids.push(mustControl(control, 'POST', '/faults', rule).fault.fault_id);
  }
  // Findings already recorded for these keys (API_KEYS used before) are not this run's.
  const conduct_before: { [key: string]: string[] } = {};
  if (control !== null && seg.leader) for (const key of keys) conduct_before[key] = findingsOf(control, key).map(findingId);
  const start_ms = startTogether(control, run_id, seg, join);
  if (seg.segment !== null)
    notes.push(
      `split run: this instance plays segment ${seg.segment}${seg.leader ? ' (leader: it reads the conduct findings)' : ''}; RUN_ID ${run_id}; ${start_ms === null ? "journeys start when this instance's setup ends (no control plane to agree a start time)" : `journeys start at ${new Date(start_ms).toISOString()}, as the leader announced`}`,
    );
  for (const n of notes) console.log(n);
  const ra = envBool(env, 'EXPECT_RETRY_AFTER');
  const expect_retry_after = ra !== undefined ? ra : control !== null && control.retry_after !== null ? control.retry_after : true;
  return {
    run_id,
    key: keys[0]!,
    keys,
    control,
    fault_ids,
    expect_retry_after,
    notes,
    segment: seg.segment,
    leader: seg.leader,
    start_ms: start_ms ?? Date.now(),
    start_agreed: start_ms !== null,
    conduct_before,
  };
}

export function journeyIteration(env: Env, m: LifeMetrics, data: TrafficData): void {
  const common = commonConfig(env);
  runJourney({
    api: { base_url: common.base_url, key: data.key },
    ctl: data.control,
    assets: assetsConfig(env),
    cfg: lifeConfig(env),
    m,
    id: `${data.run_id}-j${exec.scenario.iterationInTest}-vu${exec.vu.idInTest}`,
  });
}

/** Removes this run's fault rules and records swapsim's conduct findings for the run's keys. */
export function trafficTeardown(findings: Counter, data: TrafficData): void {
  findings.add(0);
  // One instance reads the findings: each instance reading them would count every finding N times.
  if (data.control === null || !data.leader) return;
  for (const id of data.fault_ids) mustControl(data.control, 'DELETE', `/faults/${id}`);
  for (const f of runFindings(data) || []) {
    findings.add(1, { kind: f.kind });
    console.warn(`conduct finding ${f.kind}: ${f.message}`);
  }
}
