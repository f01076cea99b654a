// Shared by lifecycle-mix and proxy-conduct: the journey scenario, setup (key, optional fault rules
// through the control plane) and teardown (swapsim's own client-conduct findings about this run).
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
import type { Scenario } from 'k6/options';
import { commonConfig, durationMs, envBool, envNumber, envString, msDuration, type Env } from './config.ts';
import { createOrg, mustControl, probeControl, type ControlInfo } from './control.ts';
import { assetsConfig } from './fixtures.ts';
import { lifeConfig, runJourney, type LifeMetrics } from './lifecycle.ts';
import { arrival } from './limit-class.ts';

export interface TrafficData {
  run_id: string;
  key: string;
  keys: string[];
  control: ControlInfo | null;
  fault_ids: string[];
  expect_retry_after: boolean;
}

export function journeyScenario(env: Env, start_ms = 0): Scenario {
  return {
    executor: 'constant-arrival-rate',
    exec: 'journey',
    ...arrival(envNumber(env, 'JOURNEYS_PER_S', 0.5)),
    duration: msDuration(durationMs(envString(env, 'DURATION', '60s'))),
    startTime: msDuration(start_ms),
    preAllocatedVUs: envNumber(env, 'PRE_ALLOCATED_VUS', 10),
    maxVUs: envNumber(env, 'MAX_VUS', 60),
    // A journey polls to terminal states: let the last ones finish.
    gracefulStop: envString(env, 'GRACEFUL_STOP', '120s'),
  };
}

/**
 * Keys: with a control plane (and CREATE_ORGS not false) a fresh organization with the spec's limits;
 * else API_KEYS, else API_KEY. FAULTS (JSON array of `/_sim/faults` bodies) is applied when it is there.
 */
export function trafficSetup(env: Env, create_orgs_default: boolean): TrafficData {
  const common = commonConfig(env, { control: create_orgs_default });
  const run_id = common.run_id || `k6${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const control = probeControl(common.control_url);
  const create = envBool(env, 'CREATE_ORGS');
  let keys = common.api_keys.length > 0 ? common.api_keys : [common.api_key];
  if (control !== null && (create === undefined ? create_orgs_default : create)) keys = [createOrg(control), createOrg(control)];
  const fault_ids: string[] = [];
  const faults = envString(env, 'FAULTS', '');
  if (faults !== '') {
    if (control === null) console.warn('FAULTS given but no control plane answers: no fault rules applied');
    else for (const rule of JSON.parse(faults) as unknown[]) fault_ids.push(mustControl(control, 'POST', '/faults', rule).fault.fault_id);
  }
  const ra = envBool(env, 'EXPECT_RETRY_AFTER');
  const expect_retry_after = ra !== undefined ? ra : control !== null && control.retry_after !== null ? control.retry_after : true;
  return { run_id, key: keys[0]!, keys, control, fault_ids, expect_retry_after };
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
  if (data.control === null) return;
  for (const id of data.fault_ids) mustControl(data.control, 'DELETE', `/faults/${id}`);
  for (const key of data.keys) {
    const conduct = mustControl(data.control, 'GET', `/conduct?api_key=${encodeURIComponent(key)}`).conduct;
    for (const f of conduct.findings as { kind: string; message: string }[]) {
      findings.add(1, { kind: f.kind });
      console.warn(`conduct finding ${f.kind}: ${f.message}`);
    }
  }
}
