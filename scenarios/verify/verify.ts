// `swapsim verify` as a function: an in-process swapsim (virtual clock), one organization with two keys (the
// verifier drives with one, the app reads with the other, so conduct findings are the app's alone), a webhook
// at the app, POST /probe/configure; then per run fresh accounts, a generated adversarial scenario, the
// quiescence step, and the app's GET /probe/state compared with the provider's truth. fast-check runs it, so a
// failure shrinks, and prints a seed and path that replay it.
import { randomBytes, randomInt } from 'node:crypto';
import fc from 'fast-check';
import { createSim, type Sim } from '../../lib/sim.ts';
import type { ConductFinding, VerifyCase, VerifyDivergence, VerifyResult } from '../../reports/types.ts';
import { deliveryChaos, faultPlan, journey, type DeliveryChaos, type FaultPlan, type Journey } from '../arbitraries/index.ts';
import type { JourneyRun } from '../arbitraries/run.ts';
import { firstDivergence } from './compare.ts';
import * as probe from './probe.ts';
import { WALL } from '../dsl/wall.ts';

export interface VerifyOptions {
  app_url: string;
  /** Generated scenarios to run (default 100). */
  runs?: number;
  /** fast-check seed (default: drawn, and printed). */
  seed?: number;
  /** fast-check path of a failure to replay (with its seed). */
  path?: string;
  /** Stop generating (and shrinking) after this much wall time; the runs done so far stand. */
  time_limit_ms?: number;
  webhook_path?: string;
  /** Seed of the provider's own draws (default: fresh per invocation, so event ids never repeat for a long-lived app). */
  sim_seed?: string;
  /** Wall time given to an app without POST /probe/sync to converge after the quiescence step (default 3000). */
  quiescence_ms?: number;
  /** Wall time spent shrinking a failure before the smallest failing scenario so far is reported (default 90 s). */
  shrink_time_limit_ms?: number;
  /** Called after each run (not after shrink attempts). */
  on_run?: (u: { done: number; failures: number; note: string }) => void;
}

export interface VerifyScenario {
  journey: Journey;
  faults: FaultPlan;
  chaos: DeliveryChaos;
}

/** VerifyResult plus what a person needs to act on a failure. */
export interface VerifyReport extends VerifyResult {
  sim_seed: string;
  interrupted: boolean;
  /** The run (1-based) that first failed. */
  runs_to_catch?: number;
  num_shrinks?: number;
  /** True when shrinking stopped at `shrink_time_limit_ms` (the scenario shown still fails, it may not be the smallest). */
  shrink_cut?: boolean;
  failure?: {
    path: string;
    replay_command: string;
    shrunk_steps: string[];
    notes: string[];
    divergence: VerifyDivergence;
    detail: string;
  };
}

interface RunOutcome {
  ok: boolean;
  run: JourneyRun;
  divergence?: VerifyDivergence;
  detail?: string;
}

export function verifyScenario(): fc.Arbitrary<VerifyScenario> {
  return fc.record({ journey: journey(), faults: faultPlan(), chaos: deliveryChaos() });
}

export const describeScenario = (s: VerifyScenario): string[] => s.journey.describe(s.faults, s.chaos);

// Wall time only through the harness's one wall module (the quiescence wait and the run's own duration).
const sleep = (ms: number): Promise<void> => WALL.wait(ms);

export function replayCommand(o: { app_url: string; seed: number; path: string; webhook_path: string }): string {
  const hook = o.webhook_path === '/webhooks' ? '' : ` --webhook-path ${o.webhook_path}`;
  return `npx swapsim verify --app ${o.app_url} --seed ${o.seed} --path ${o.path}${hook}`;
}

interface Session {
  sim: Sim;
  app_url: string;
  app_key: string;
  webhook: { url: string; secret: string };
  quiescence_ms: number;
  /** Unknown until the first run asks. */
  sync_supported: boolean | null;
  runs: number;
}

/** Compares every account of the run; for an app without /probe/sync, re-reads until it converges or time is up. */
async function judge(s: Session, run: JourneyRun): Promise<Omit<RunOutcome, 'run'>> {
  for (const f of run.forged) {
    if (f.answered !== 401) {
      return {
        ok: false,
        divergence: { entity_type: 'forged_delivery', entity_id: f.event_id, field: 'http_status', app: f.answered, provider: 401 },
        detail: `step ${f.step}: a delivery with an invalid signature (${f.forgery}) was answered ${f.answered}; the spec requires 401 and the event must not be applied`,
      };
    }
  }
  const deadline = WALL.now_ms() + (s.sync_supported ? 0 : s.quiescence_ms);
  for (;;) {
    let found: Omit<RunOutcome, 'run'> | null = null;
    for (const account_id of run.account_ids) {
      const reply = await probe.state(s.app_url, account_id);
      if (!reply.ok) {
        found = { ok: false, divergence: { entity_type: 'probe', entity_id: account_id, field: 'shape', app: reply.problem, provider: 'the probe contract' }, detail: reply.problem };
        break;
      }
      const divergence = firstDivergence(account_id, reply.state, await s.sim.truth(account_id));
      if (divergence) {
        found = { ok: false, divergence, detail: `account ${account_id}` };
        break;
      }
    }
    if (found === null) return { ok: true };
    if (WALL.now_ms() >= deadline) return found;
    await sleep(100);
  }
}

async function runOnce(s: Session, scenario: VerifyScenario): Promise<RunOutcome> {
  s.runs++;
  let run: JourneyRun = { account_ids: [], lines: describeScenario(scenario), notes: [], forged: [], trades: [], zaps: [], cancels: [] };
  try {
    run = await scenario.journey.run(s.sim, { faults: scenario.faults, chaos: scenario.chaos, webhook: s.webhook });
    // Quiescence: the rules are gone and the clock settled (journey.run); now the app may catch up from the feed.
    if (s.sync_supported !== false) s.sync_supported = await probe.sync(s.app_url);
    return { run, ...(await judge(s, run)) };
  } catch (err) {
    // An app that stops answering, or a probe call that fails, is a failed run with the reason, never a pass.
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, run, divergence: { entity_type: 'run', entity_id: `run ${s.runs}`, field: 'error', app: message, provider: null }, detail: message };
  }
}

function conductFindings(report: Awaited<ReturnType<Sim['conduct']>>): ConductFinding[] {
  return report.findings.map((f) => ({ api_key: `…${f.api_key_suffix}`, kind: f.kind, detail: f.message, request_ids: f.request_ids }));
}

export async function verify(options: VerifyOptions): Promise<VerifyReport> {
  const started = WALL.now_ms();
  const started_at = new Date(WALL.now_ms()).toISOString();
  const app_url = options.app_url.replace(/\/$/, '');
  const webhook_path = options.webhook_path ?? '/webhooks';
  const seed = options.seed ?? randomInt(0, 2 ** 31 - 1);
  const sim_seed = options.sim_seed ?? `verify-${randomBytes(6).toString('hex')}`;
  const app_key = `sk_app_${randomBytes(12).toString('hex')}`;
  const sim = await createSim({ seed: sim_seed, api_keys: [`sk_verifier_${randomBytes(12).toString('hex')}`, app_key] });
  try {
    const hook = await sim.webhook(app_url + webhook_path);
    await probe.configure(app_url, { base_url: sim.base_url, api_key: app_key, webhook_secret: hook.secret });
    const session: Session = { sim, app_url, app_key, webhook: { url: app_url + webhook_path, secret: hook.secret }, quiescence_ms: options.quiescence_ms ?? 3_000, sync_supported: null, runs: 0 };

    const cases: VerifyCase[] = [];
    let first_failure_run: number | null = null;
    let first_failure_ms = 0;
    let shrink_cut = false;
    let last_failure: RunOutcome | null = null;
    const shrink_budget_ms = options.shrink_time_limit_ms ?? 90_000;
    const property = fc.asyncProperty(verifyScenario(), async (scenario) => {
      // Past the shrink budget every further candidate is let pass, so fast-check stops at the smallest failure so far.
      if (first_failure_run !== null && WALL.now_ms() - first_failure_ms > shrink_budget_ms) {
        shrink_cut = true;
        return;
      }
      const outcome = await runOnce(session, scenario);
      if (first_failure_run === null) {
        cases.push({ run: cases.length + 1, seed: String(seed), ok: outcome.ok, steps: describeScenario(scenario) });
        options.on_run?.({ done: cases.length, failures: outcome.ok ? 0 : 1, note: outcome.ok ? '' : 'mismatch found, shrinking' });
        if (!outcome.ok) {
          first_failure_run = cases.length;
          first_failure_ms = WALL.now_ms();
        }
      }
      if (!outcome.ok) {
        last_failure = outcome;
        throw new Error(`${outcome.divergence!.entity_type} ${outcome.divergence!.entity_id}: ${outcome.divergence!.field} app=${JSON.stringify(outcome.divergence!.app)} provider=${JSON.stringify(outcome.divergence!.provider)}`);
      }
    });
    const details = await fc.check(property, {
      numRuns: options.runs ?? 100,
      seed,
      path: options.path,
      interruptAfterTimeLimit: options.time_limit_ms,
      markInterruptAsFailure: false,
    });

    const conduct = conductFindings(await sim.conduct(app_key));
    const report: VerifyReport = {
      kind: 'verify', app_url, seed: String(seed), started_at, runs: cases.length,
      passed: cases.filter((c) => c.ok).length, failed: details.failed ? 1 : 0,
      wall_ms: Math.round(WALL.now_ms() - started), cases, conduct, sim_seed, interrupted: details.interrupted,
    };
    if (details.failed && !last_failure) throw new Error(`fast-check failed without a recorded run: ${String(details.errorInstance)}`);
    const failure = last_failure as RunOutcome | null;
    if (details.failed && failure && details.counterexample && details.counterexamplePath) {
      const scenario = details.counterexample[0] as VerifyScenario;
      const replay_command = replayCommand({ app_url, seed, path: details.counterexamplePath, webhook_path });
      const shrunk_steps = describeScenario(scenario);
      report.runs_to_catch = first_failure_run ?? 1;
      report.num_shrinks = details.numShrinks;
      report.shrink_cut = shrink_cut;
      report.failure = { path: details.counterexamplePath, replay_command, shrunk_steps, notes: failure.run.notes, divergence: failure.divergence!, detail: failure.detail ?? '' };
      const failed_case = cases[(first_failure_run ?? 1) - 1];
      if (failed_case) Object.assign(failed_case, { shrunk_steps, divergence: failure.divergence, replay_command });
    }
    return report;
  } finally {
    await sim.close();
  }
}
