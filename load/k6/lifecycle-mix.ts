// k6: realistic lifecycle traffic against swapsim (or anything with its control plane): journeys of
// accounts, destinations, deposits, firm RFQs, accepts, trades, zaps, cancels and event-feed pages,
// written the way the spec asks clients to behave; swapsim's conduct recorder then judges the client.
import { Counter } from 'k6/metrics';
import type { Options } from 'k6/options';
import { commonConfig, envNumber, openDirProbe } from './lib/config.ts';
import { journeyCountersZero, journeyThresholds, lifeMetrics } from './lib/lifecycle.ts';
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

const m = lifeMetrics();
const findings = new Counter('conduct_findings');
const common = commonConfig(__ENV, { control: true }, openDirProbe());

const guarded = guardedOptions((): Options => {
  if (common.summary_error !== null) throw new Error(common.summary_error);
  return {
    scenarios: { journeys: journeyScenario(__ENV) },
    thresholds: {
      ...journeyThresholds(__ENV),
      // However often a write was retried, it took effect once.
      duplicate_writes: ['count==0'],
      // swapsim's verdict on this client since the run began: Retry-After honoured, poll_after_ms kept, keys reused right.
      conduct_findings: ['count==0'],
      'http_req_duration{expected_response:true}': [`p(95)<${envNumber(__ENV, 'P95_MS', 2000)}`],
      dropped_iterations: [`count<=${envNumber(__ENV, 'MAX_DROPPED', 0)}`],
    },
    setupTimeout: '120s',
    teardownTimeout: '120s',
  };
}, 'journey');
export const options: Options = guarded.options;

export function setup(): TrafficData {
  if (guarded.config_error !== null) throw new Error(guarded.config_error);
  journeyCountersZero(m);
  return trafficSetup(__ENV, true);
}

export function journey(data: TrafficData): void {
  journeyIteration(__ENV, m, data);
}

export function teardown(data: TrafficData): void {
  trafficTeardown(findings, data);
}

export function handleSummary(data: any): { [out: string]: string } {
  const setup = data?.setup_data ? (data.setup_data as TrafficData) : null;
  return summaryOutputs('lifecycle-mix', common.summary_dir, data, {
    config_error: guarded.config_error,
    conduct: setup === null ? null : safeFindings(setup),
    whole_run_thresholds: options.thresholds as { [m: string]: string[] },
  });
}
