// k6: the lifecycle mix pointed at a staging proxy (no control plane by default: steps that need /_sim
// are skipped and counted), plus two probes of the proxy's own conduct: a burst over the reads limit
// (429s and Retry-After must pass through untouched) and Idempotency-Key replays (a retried write
// must never become a second write; a reused key with another payload must stay a 409).
import exec from 'k6/execution';
import http from 'k6/http';
import { Counter, Rate } from 'k6/metrics';
import type { Options } from 'k6/options';
import { call, json } from './lib/api.ts';
import { commonConfig, durationMs, envNumber, envString, msDuration, openDirProbe, SPEC_LIMITS } from './lib/config.ts';
import { journeyCountersZero, journeyThresholds, lifeConfig, lifeMetrics, resilient } from './lib/lifecycle.ts';
import { arrival, recordLimitResponse } from './lib/limit-class.ts';
import { summaryOutputs } from './lib/summary.ts';
import {
  guardedOptions,
  journeyIteration,
  journeyScenario,
  safeFindings,
  trafficSetup,
  trafficTeardown,
  type TrafficData,
} from './lib/traffic.ts';
import { assetsConfig } from './lib/fixtures.ts';

const m = lifeMetrics();
const findings = new Counter('conduct_findings');
const rl = {
  rejected: new Rate('rl_rejected'),
  accepted: new Rate('rl_accepted'),
  errors: new Rate('rl_errors'),
  bad_envelope: new Counter('rl_429_bad_envelope'),
  missing_retry_after: new Counter('rl_429_missing_retry_after'),
};
const replayMismatch = new Counter('idempotency_replay_mismatch');
const reuseNot409 = new Counter('idempotency_reuse_not_409');

const common = commonConfig(__ENV, { control: false }, openDirProbe());
/** The whole run's thresholds, which `npm run k6:combine` re-checks on a split run's summaries. */
let wholeRun: { [metric: string]: string[] } = {};

http.setResponseCallback(http.expectedStatuses({ min: 200, max: 399 }, 429));

const guarded = guardedOptions((): Options => {
  if (common.summary_error !== null) throw new Error(common.summary_error);
  const keysGiven = common.api_keys.length;
  const duration_ms = durationMs(envString(__ENV, 'DURATION', '60s'));
  // The burst runs on its own key (API_KEYS' second) beside the mix, or after it on the only key.
  const burstStart_ms = keysGiven >= 2 ? 0 : duration_ms + durationMs(envString(__ENV, 'PHASE_GAP', '3s'));
  const burstPerS = (envNumber(__ENV, 'READS_LIMIT', SPEC_LIMITS.reads) * envNumber(__ENV, 'OVER_PCT', 150)) / 100;
  const burst_ms = durationMs(envString(__ENV, 'BURST_DURATION', '10s'));
  const replaysPerS = envNumber(__ENV, 'REPLAYS_PER_S', 1);
  // As the limit scripts: VUs for LATENCY_BUDGET (1 s) of latency, drops allowed as MAX_DROPPED_PCT (1%) of the offered burst.
  const budget_s = durationMs(envString(__ENV, 'LATENCY_BUDGET', '1s')) / 1000;
  const burstVus = Math.max(2, Math.ceil(burstPerS * budget_s));
  const dropped = __ENV.MAX_DROPPED
    ? envNumber(__ENV, 'MAX_DROPPED', 0)
    : Math.floor((envNumber(__ENV, 'MAX_DROPPED_PCT', 1) / 100) * burstPerS * (burst_ms / 1000));
  return {
    scenarios: {
      journeys: journeyScenario(__ENV),
      replay: {
        executor: 'constant-arrival-rate',
        exec: 'replay',
        ...arrival(replaysPerS),
        duration: msDuration(duration_ms),
        preAllocatedVUs: Math.max(2, Math.ceil(replaysPerS * 4 * budget_s)),
        maxVUs: Math.max(10, Math.ceil(replaysPerS * 8 * budget_s)),
      },
      burst: {
        executor: 'constant-arrival-rate',
        exec: 'burst',
        ...arrival(burstPerS),
        duration: msDuration(burst_ms),
        startTime: msDuration(burstStart_ms),
        preAllocatedVUs: burstVus,
        maxVUs: Math.max(10, 2 * burstVus),
      },
    },
    thresholds: processThresholds({
      ...journeyThresholds(__ENV),
      duplicate_writes: ['count==0'],
      idempotency_replay_mismatch: ['count==0'],
      idempotency_reuse_not_409: ['count==0'],
      // The burst is over the limit: 429s must reach the client, as the service sent them. (Split over k6
      // instances, one instance may meet none of them: judged here only on an unsplit run; see processThresholds.)
      'rl_rejected{scenario:burst}': ['rate>0'],
      'rl_errors{scenario:burst}': ['rate==0'],
      rl_429_bad_envelope: ['count==0'],
      rl_429_missing_retry_after: ['count==0'],
      'dropped_iterations{scenario:journeys}': ['count<=0'],
      'dropped_iterations{scenario:replay}': ['count<=0'],
      'dropped_iterations{scenario:burst}': [`count<=${dropped}`],
    }),
    setupTimeout: '120s',
    teardownTimeout: '120s',
  };
}, 'journey');
export const options: Options = guarded.options;

/** Keeps the whole run's thresholds for the summary (k6:combine re-checks them); each process judges the
 *  burst's 429s on its `whole_run:yes` samples only, which an unsplit process alone records (as the limit
 *  scripts' over phase: lib/limit-class.ts, WHOLE_RUN_TAG), and keeps the burst's figures. */
function processThresholds(t: { [metric: string]: string[] }): { [metric: string]: string[] } {
  wholeRun = t;
  const p = {
    ...t,
    'rl_rejected{scenario:burst,whole_run:yes}': t['rl_rejected{scenario:burst}']!,
    'rl_rejected{scenario:burst}': ['rate>=0'],
  };
  return p;
}

export function setup(): TrafficData {
  if (guarded.config_error !== null) throw new Error(guarded.config_error);
  journeyCountersZero(m);
  return trafficSetup(__ENV, false);
}

export function journey(data: TrafficData): void {
  journeyIteration(__ENV, m, data);
}

export function burst(data: TrafficData): void {
  const key = data.keys[1 % data.keys.length]!;
  const res = call(common.base_url, 'GET', envString(__ENV, 'READ_PATH', '/accounts?limit=1'), { key, name: 'burst read' });
  recordLimitResponse(rl, res, data.expect_retry_after, data.segment === null);
}

/** A write sent, then re-sent with the same key (a client whose reply was lost), then with another payload. */
export function replay(data: TrafficData): void {
  const id = `${data.run_id}-replay-${exec.scenario.iterationInTest}`;
  const j = {
    api: { base_url: common.base_url, key: data.key },
    ctl: data.control,
    assets: assetsConfig(__ENV),
    cfg: lifeConfig(__ENV),
    m,
    id,
  };
  const body = { label: 'k6 replay', external_id: id };
  const first = resilient(j, 'POST', '/accounts', { idem: id, body, name: '/accounts' });
  const again = resilient(j, 'POST', '/accounts', { idem: id, body, name: '/accounts' });
  const a = json(first)?.account?.account_id;
  const b = json(again)?.account?.account_id;
  replayMismatch.add(first.status === 200 && again.status === 200 && a === b ? 0 : 1);
  const other = resilient(j, 'POST', '/accounts', {
    idem: id,
    body: { label: 'k6 replay, another payload', external_id: id },
    name: '/accounts',
    expected: [409],
  });
  reuseNot409.add(other.status === 409 && json(other)?.error?.code === 'idempotency_key_reuse' ? 0 : 1);
  const list = resilient(j, 'GET', `/accounts?external_id=${encodeURIComponent(id)}&limit=100`, { name: '/accounts' });
  const n = Array.isArray(json(list)?.accounts) ? json(list).accounts.length : 0;
  m.duplicate_writes.add(Math.max(0, n - 1), { resource: 'account' });
}

export function teardown(data: TrafficData): void {
  trafficTeardown(findings, data);
}

export function handleSummary(data: any): { [out: string]: string } {
  const setup = data?.setup_data ? (data.setup_data as TrafficData) : null;
  return summaryOutputs('proxy-conduct', common.summary_dir, data, {
    config_error: guarded.config_error,
    conduct: setup === null ? null : safeFindings(setup),
    whole_run_thresholds: wholeRun,
  });
}
