// `swapsim verify` as a function: the generated runs (scenario.ts), run alone or several at once behind the
// hub (batch.ts), each on its own provider seeded from the verify seed and the run number (lane.ts: the run,
// its bounds and its judgement). A failing run is explained alone: its fired background effects pinned into
// targeted rules, shrunk step by step on the same provider seed, and printed with a replay command that
// carries the case itself, so it reproduces every time. Every run is bounded in wall time; the call always ends.
import { randomBytes, randomInt } from 'node:crypto';
import type { ConductFinding, VerifyCase, VerifyDivergence, VerifyResult } from '../../reports/types.ts';
import { DEFAULT_PROFILE } from '../../fake-provider/profile.ts';
import type { WebhookEffect } from '../arbitraries/steps.ts';
import { WALL } from '../../sim/wall.ts';
import { confirmAlone, planBatches, runBatch } from './batch.ts';
import { compactRuns, coverageTable, type CoverageRow } from './coverage.ts';
import {
  ANSWER_SLOT_MS,
  closeOpened,
  openLanes,
  runOnce,
  sameFailure,
  simSeedFor,
  type OpenedLanes,
  type Outcome,
  type RelaySlot,
  type Session,
} from './lane.ts';
import { startRelay, type Relay, type RelayRecord } from './relay.ts';
import { decodeCase, describeScenario, encodeCase, generateScenario, NO_BACKGROUND, type VerifyScenario, type VStep } from './scenario.ts';

export interface VerifyOptions {
  app_url: string;
  /** Generated scenarios to run (default 100). */
  runs?: number;
  /** Verify seed (default: drawn, and printed). Run n's scenario and provider seed derive from it. */
  seed?: number;
  /** Run only generated run n of the seed (no shrinking). */
  run?: number;
  /** Replay a case token printed with a failure (no shrinking). */
  case?: string;
  /** Stop after this much wall time, inside a run too; the runs done so far stand. */
  time_limit_ms?: number;
  /** Wall time one run may take before it is ended and reported (default 300 s). */
  run_time_limit_ms?: number;
  /** An answer to a delivery slower than this is a finding (default 8 s; the provider gives up at 10 s). */
  latency_limit_ms?: number;
  webhook_path?: string;
  /** Base of the provider seeds (default `verify-<seed>`); run n's provider seed is `<base>/run-<n>`. */
  sim_seed?: string;
  /** Wall time given to an app without POST /probe/sync to converge after the quiescence step (default 3000). */
  quiescence_ms?: number;
  /** Wall time spent shrinking a failure before the smallest failing case so far is reported (default 90 s). */
  shrink_time_limit_ms?: number;
  /** Sim time from a delivery attempt to the moment its answer lands (default ANSWER_SLOT_MS, 5 min). */
  answer_slot_ms?: number;
  /**
   * Runs at once (default DEFAULT_CONCURRENCY): runs in order are grouped into batches, each run on its own
   * provider behind verify's hub; a run whose scenario is app-wide (rotate, restart, API faults, an adversarial
   * profile) runs alone. 1: every run alone, one after another.
   */
  concurrency?: number;
  /** `fail` (default): client-conduct findings of the app's key fail the run they happen in; `warn`: reported only. */
  conduct?: 'fail' | 'warn';
  /** Called after each run (not after shrink attempts); in a batch, in run order once the batch has ended. */
  on_run?: (u: {
    done: number;
    failures: number;
    note: string;
    run: number;
    wall_ms: number;
    records: readonly RelayRecord[];
    batch: number;
    batch_size: number;
  }) => void;
}

export interface VerifyFailure {
  run: number;
  /** The reason in one sentence: the first line of the failure. */
  headline: string;
  kind: string;
  sim_seed: string;
  replay_command: string;
  /** Runs only the generated run, unshrunk. */
  rerun_command: string;
  case_token: string;
  shrunk_steps: string[];
  original_steps: number;
  notes: string[];
  divergence: VerifyDivergence;
  detail: string;
  /** Further lines of the finding (attempts, other findings, excused answers). */
  more: string[];
  /** The delivery log of the events involved. */
  delivery_log: string[];
  /** How the fired background effects were pinned before shrinking. */
  pinned: string | null;
  /** Set when the run failed in a batch but not the same way alone: then it is neither shrunk nor given a case replay. */
  alone: string | null;
}

export interface VerifyReport extends VerifyResult {
  sim_seed: string;
  /** Runs run at once behind the hub (1: one after another, each configured directly). */
  concurrency: number;
  interrupted: boolean;
  runs_to_catch?: number;
  num_shrinks?: number;
  shrink_cut?: boolean;
  failure?: VerifyFailure;
  /** Every spec coverage item (coverage.ts) and the runs whose observed reach included it. */
  coverage: CoverageRow[];
}

/**
 * Runs at once when not given. A correct app answering each webhook 5 s late, 100 runs at seed 1 (docs/verify.md):
 * 1 → 966 s, 4 → 98 runs in 600 s, 8 → 524 s, 12 → 523 s (the themes cap a batch at 7 runs).
 */
export const DEFAULT_CONCURRENCY = 8;

function replayCommand(o: {
  app_url: string;
  seed: number;
  token: string;
  webhook_path: string;
  sim_base: string;
  default_base: string;
}): string {
  const hook = o.webhook_path === '/webhooks' ? '' : ` --webhook-path ${o.webhook_path}`;
  const base = o.sim_base === o.default_base ? '' : ` --sim-seed ${o.sim_base}`;
  return `npx swapsim verify --app ${o.app_url} --seed ${o.seed}${base}${hook} --case ${o.token}`;
}

/** Smaller variants of a scenario, most reducing first. */
function* shrinkCandidates(s: VerifyScenario): Generator<VerifyScenario> {
  if (s.adversarial_profile) yield { ...s, adversarial_profile: false };
  if (Object.values(s.background).some((p) => p > 0)) yield { ...s, background: NO_BACKGROUND };
  if (s.accounts.length > 1) yield { ...s, accounts: s.accounts.slice(0, 1) };
  // Runs carry a dozen steps or more: whole chunks first (halves, then quarters, last first), then single steps.
  for (let size = Math.floor(s.steps.length / 2); size >= 2; size = Math.floor(size / 2)) {
    for (let end = s.steps.length; end - size >= 0; end -= size)
      yield { ...s, steps: [...s.steps.slice(0, end - size), ...s.steps.slice(end)] };
  }
  for (let i = s.steps.length - 1; i >= 0; i--) yield { ...s, steps: s.steps.filter((_, j) => j !== i) };
  if (s.partner_screening) yield { ...s, partner_screening: false };
  if (s.labels === 'unicode') yield { ...s, labels: 'ascii' };
  if (s.body_style && s.body_style !== 'compact') yield { ...s, body_style: 'compact' };
  for (let i = 0; i < s.steps.length; i++) {
    const st = s.steps[i];
    const replace = (next: VStep): VerifyScenario => ({ ...s, steps: s.steps.map((x, j) => (j === i ? next : x)) });
    if ('times' in st && st.times > 1) yield replace({ ...st, times: 1 } as VStep);
    if (st.kind !== 'trade' && st.kind !== 'zap' && st.kind !== 'cancel') continue;
    for (const key of ['fault', 'late', 'dup', 'reverse'] as const) {
      if (key in st && (st as Record<string, unknown>)[key] !== undefined) {
        const { [key]: _dropped, ...rest } = st as Record<string, unknown>;
        yield replace(rest as VStep);
      }
    }
  }
}

/** Background firings as targeted rules from the funding on: the case no longer depends on chance. */
function pinBackground(s: VerifyScenario, fired: Outcome['fired_background']): VerifyScenario {
  const counts = new Map<string, { account: number; event_type: string; effect: WebhookEffect; times: number }>();
  for (const f of fired) {
    const key = `${f.account} ${f.event_type} ${f.effect}`;
    const c = counts.get(key) ?? { ...f, times: 0 };
    c.times++;
    counts.set(key, c);
  }
  const pinned: VStep[] = [...counts.values()].map((c) => ({
    kind: 'chaos',
    account: c.account,
    effect: c.effect,
    event_type: c.event_type,
    times: c.times,
  }));
  return { ...s, background: NO_BACKGROUND, steps: [...pinned, ...s.steps] };
}

export async function verify(options: VerifyOptions): Promise<VerifyReport> {
  const started = WALL.now_ms();
  const started_at = new Date(started).toISOString();
  const app_url = options.app_url.replace(/\/$/, '');
  const webhook_path = options.webhook_path ?? '/webhooks';
  const seed = options.seed ?? randomInt(0, 2 ** 31 - 1);
  const default_base = `verify-${seed}`;
  const sim_base = options.sim_seed ?? default_base;
  const relayOptions = {
    app_webhook_url: app_url + webhook_path,
    handler_limit_ms: DEFAULT_PROFILE.webhook_timeout_ms,
    slow_after_ms: Math.min(options.latency_limit_ms ?? 8_000, DEFAULT_PROFILE.webhook_timeout_ms),
    t0_ms: started, // one origin for every relay: a batch's records share a clock
  };
  const newSlot = async (): Promise<RelaySlot> => {
    const slot: RelaySlot = { relay: null as unknown as Relay, on_slow: null };
    slot.relay = await startRelay({ ...relayOptions, on_slow: (r) => slot.on_slow?.(r) });
    return slot;
  };
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a positive integer, not ${concurrency}`);
  const session: Session = {
    app_url,
    webhook_path,
    slots: [await newSlot()],
    newSlot,
    hub: null,
    concurrency,
    sim_base,
    verifier_key: `sk_verifier_${randomBytes(12).toString('hex')}`,
    quiescence_ms: options.quiescence_ms ?? 3_000,
    latency_limit_ms: options.latency_limit_ms ?? 8_000,
    run_time_limit_ms: options.run_time_limit_ms ?? 300_000,
    deadline_ms: options.time_limit_ms === undefined ? Infinity : started + options.time_limit_ms,
    sync_supported: null,
    conduct: [],
    conduct_mode: options.conduct ?? 'fail',
    configured_once: false,
    answer_slot_ms: options.answer_slot_ms ?? ANSWER_SLOT_MS,
  };
  const report: VerifyReport = {
    kind: 'verify',
    app_url,
    seed: String(seed),
    started_at,
    runs: 0,
    passed: 0,
    failed: 0,
    wall_ms: 0,
    cases: [],
    conduct: [],
    sim_seed: sim_base,
    interrupted: false,
    concurrency,
    coverage: [],
  };
  const reached: Array<{ run: number; items: string[] }> = [];
  // Each unit's providers are opened while the unit before it runs (lane.ts openLanes); any verify never reaches
  // (a failure, the time limit) are closed at the end.
  const ahead = new Map<number, Promise<OpenedLanes>>();
  try {
    let plan: Array<{ run: number; scenario: VerifyScenario }>;
    if (options.case !== undefined) plan = [{ ...decodeCase(options.case) }].map((c) => ({ run: c.run, scenario: c.scenario }));
    else if (options.run !== undefined) plan = [{ run: options.run, scenario: generateScenario(seed, options.run) }];
    else plan = Array.from({ length: options.runs ?? 100 }, (_, i) => ({ run: i + 1, scenario: generateScenario(seed, i + 1) }));
    const replaying = options.case !== undefined || options.run !== undefined;

    /**
     * The first failure that did not happen again when its run went alone: kept, and reported only if no later run
     * fails on its own (a failure that only a batch's timing produces cannot replay; a later one that can is the
     * better report, and names this one in a note).
     */
    const report_failure = async (
      failing: { run: number; scenario: VerifyScenario; outcome: Outcome; vcase: VerifyCase },
      batch_runs: { batch: number; runs: number[] } | null,
      alone: string | null,
    ): Promise<void> => {
      report.runs_to_catch = failing.run;
      const f = await explain(
        session,
        options,
        {
          seed,
          run: failing.run,
          scenario: failing.scenario,
          outcome: failing.outcome,
          replaying,
          app_url,
          webhook_path,
          default_base,
          batch: batch_runs,
          alone,
        },
        report,
      );
      report.failure = f;
      Object.assign(failing.vcase, {
        shrunk_steps: f.shrunk_steps,
        divergence: f.divergence,
        replay_command: f.replay_command,
        headline: f.headline,
        sim_seed: f.sim_seed,
        delivery_log: f.delivery_log,
      });
    };
    let company: {
      failing: { run: number; scenario: VerifyScenario; outcome: Outcome; vcase: VerifyCase };
      batch_runs: { batch: number; runs: number[] };
      alone: string;
    } | null = null;
    const batches = planBatches(plan, concurrency);
    const openAhead = (i: number): Promise<OpenedLanes> => {
      let p = ahead.get(i);
      if (p === undefined) {
        p = openLanes(session, batches[i]);
        p.catch(() => undefined); // awaited, and its error reported, when the unit runs
        ahead.set(i, p);
      }
      return p;
    };
    for (const [batch_index, batch] of batches.entries()) {
      if (WALL.now_ms() >= session.deadline_ms) {
        report.interrupted = true;
        break;
      }
      const opened = openAhead(batch_index);
      ahead.delete(batch_index);
      if (batch_index + 1 < batches.length)
        opened.then(
          () => openAhead(batch_index + 1),
          () => undefined,
        );
      const outcomes =
        batch.length === 1
          ? [await runOnce(session, batch[0].scenario, batch[0].run, null, opened)]
          : await runBatch(session, batch, opened);
      // In run order: a run the time limit ended counts as neither a pass nor a failure.
      let failing: { run: number; scenario: VerifyScenario; outcome: Outcome; vcase: VerifyCase } | null = null;
      for (const [i, { run, scenario }] of batch.entries()) {
        const outcome = outcomes[i];
        if (outcome.interrupted) {
          report.interrupted = true;
          continue;
        }
        const vcase: VerifyCase = { run, seed: String(seed), ok: outcome.ok, steps: describeScenario(scenario), batch: batch_index + 1 };
        report.cases.push(vcase);
        report.runs++;
        reached.push({ run, items: outcome.reached });
        const first_failure = !outcome.ok && failing === null;
        options.on_run?.({
          done: report.runs,
          failures: outcome.ok ? 0 : 1,
          note: !first_failure ? '' : replaying ? 'mismatch found' : 'mismatch found, shrinking',
          run,
          wall_ms: outcome.wall_ms,
          records: outcome.records,
          batch: batch_index + 1,
          batch_size: batch.length,
        });
        if (outcome.ok) report.passed++;
        else {
          report.failed++;
          if (outcome.finding) vcase.headline = outcome.finding.headline;
          failing ??= { run, scenario, outcome, vcase };
        }
      }
      if (failing === null) {
        if (report.interrupted) break;
        continue;
      }
      const batch_runs = batch.length > 1 ? { batch: batch_index + 1, runs: batch.map((b) => b.run) } : null;
      // Lower runs not run yet: the alone runs this batch passed over, which come right after it.
      const lower = batches
        .slice(batch_index + 1)
        .flat()
        .filter((b) => b.run < failing!.run);
      let alone: string | null = null;
      if (batch_runs !== null) {
        // A failure is explained alone, so its replay is the run on its own. The batch's runs up to the lowest
        // failing one, and the lower alone runs it passed over, run alone in order, and the first that fails alone
        // is the one reported: the run verify with concurrency 1 would have reported, whenever the batch's failure
        // is real on its own.
        const confirming = [...batch.filter((b) => b.run <= failing!.run), ...lower].sort((a, b) => a.run - b.run);
        const found = await confirmAlone(session, confirming);
        const at_once = `runs ${compactRuns(batch_runs.runs)} at once`;
        if (typeof found === 'object') {
          let vcase = report.cases.find((c) => c.run === found.run);
          if (vcase === undefined) {
            // A passed-over alone run, run here for the first time.
            vcase = {
              run: found.run,
              seed: String(seed),
              ok: false,
              steps: describeScenario(found.scenario),
              batch: batches.findIndex((b) => b.some((x) => x.run === found.run)) + 1,
            };
            report.cases.push(vcase);
            [report.runs, report.failed] = [report.runs + 1, report.failed + 1];
            reached.push({ run: found.run, items: found.outcome.reached });
          } else if (vcase.ok) [vcase.ok, report.passed, report.failed] = [false, report.passed - 1, report.failed + 1];
          const before = vcase === failing.vcase ? failing.outcome.finding : null;
          if (before && found.outcome.finding && before.headline !== found.outcome.finding.headline)
            found.outcome.more.unshift(`note: in its batch (${at_once}) this run failed with: ${before.headline}`);
          else if (vcase !== failing.vcase)
            found.outcome.more.unshift(
              `note: ${batch.some((b) => b.run === found.run) ? `in its batch (${at_once}) this run passed` : `this run goes alone after the batch of ${at_once}`}, and run ${failing.run} failed with: ${failing.outcome.finding?.headline}; run alone, this one fails`,
            );
          failing = { ...found, vcase };
        } else {
          const together = `batch ${batch_runs.batch}: ${at_once} behind the hub`;
          alone =
            found === 'passed'
              ? `run ${failing.run} failed only alongside other runs (${together}); run alone, ${confirming.length === 1 ? `run ${failing.run} passes` : `runs ${compactRuns(confirming.map((b) => b.run))} pass`}`
              : `run ${failing.run} failed alongside other runs (${together}) and the time limit passed before it could be run again alone`;
          if (found === 'passed' && !replaying) {
            company ??= { failing, batch_runs, alone };
            continue;
          }
        }
      }
      // The lowest failing run of the first batch with a failure that happens alone too; explained alone, exactly as a run alone is.
      await report_failure(failing, batch_runs, alone);
      if (company !== null)
        report.failure!.more.unshift(`note: earlier, ${company.alone}, with: ${company.failing.outcome.finding?.headline}`);
      company = null;
      break;
    }
    // Only company failures: the first is the report, with the command that runs its batch again.
    if (company !== null) await report_failure(company.failing, company.batch_runs, company.alone);
    // Passed-over alone runs ran after their batch: the cases read in run order.
    report.cases.sort((a, b) => a.run - b.run);
    report.conduct = dedupeConduct(session.conduct);
    report.coverage = coverageTable(reached);
    report.wall_ms = Math.round(WALL.now_ms() - started);
    return report;
  } finally {
    await Promise.all([...ahead.values()].map((p) => p.then(closeOpened, () => undefined)));
    await Promise.all(session.slots.map((slot) => slot.relay.close()));
    await session.hub?.close();
  }
}

function dedupeConduct(list: ConductFinding[]): ConductFinding[] {
  const seen = new Set<string>();
  return list.filter((c) => {
    const key = `${c.kind} ${c.detail}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Pins the background, shrinks on the run's own provider seed, and writes the failure up. */
async function explain(
  s: Session,
  options: VerifyOptions,
  c: {
    seed: number;
    run: number;
    scenario: VerifyScenario;
    outcome: Outcome;
    replaying: boolean;
    app_url: string;
    webhook_path: string;
    default_base: string;
    batch: { batch: number; runs: number[] } | null;
    alone: string | null;
  },
  report: VerifyReport,
): Promise<VerifyFailure> {
  let best = c.scenario;
  let best_outcome = c.outcome;
  const target = c.outcome.finding!;
  let pinned: string | null = null;
  let shrinks = 0;
  const alone = c.alone;
  if (alone !== null) best_outcome.more.unshift(`note: ${alone}`);
  if (!c.replaying && alone === null) {
    const budget_end = Math.min(WALL.now_ms() + (options.shrink_time_limit_ms ?? 90_000), s.deadline_ms);
    if (Object.values(best.background).some((p) => p > 0) && WALL.now_ms() < budget_end) {
      const candidate = pinBackground(best, best_outcome.fired_background);
      const o = await runOnce(s, candidate, c.run, target);
      if (o.finding && sameFailure(o.finding, target)) {
        best = candidate;
        best_outcome = o;
        pinned =
          c.outcome.fired_background.length === 0
            ? 'no background effect fired: the background was dropped'
            : `${c.outcome.fired_background.length} background effects that fired were pinned as targeted rules`;
      } else
        pinned =
          'the background effects that fired could not be pinned as targeted rules (the case still depends on them; the replay uses the same provider seed, so it draws them again)';
    }
    let improved = true;
    while (improved && WALL.now_ms() < budget_end) {
      improved = false;
      for (const candidate of shrinkCandidates(best)) {
        if (WALL.now_ms() >= budget_end) {
          report.shrink_cut = true;
          break;
        }
        const o = await runOnce(s, candidate, c.run, target);
        shrinks++;
        if (o.finding && sameFailure(o.finding, target)) {
          best = candidate;
          best_outcome = o;
          improved = true;
          break;
        }
      }
    }
  }
  report.num_shrinks = shrinks;
  const f = best_outcome.finding!;
  const token = encodeCase(c.run, best);
  let replay_command = replayCommand({
    app_url: c.app_url,
    seed: c.seed,
    token,
    webhook_path: c.webhook_path,
    sim_base: s.sim_base,
    default_base: c.default_base,
  });
  // A case that passes alone has no replay of its own: the command that runs its batch again is the honest one.
  if (alone !== null && c.batch !== null)
    replay_command = replay_command.replace(
      / --case \S+$/,
      ` --runs ${c.batch.runs[c.batch.runs.length - 1]} --concurrency ${s.concurrency}`,
    );
  return {
    alone,
    run: c.run,
    headline: f.headline,
    kind: f.kind,
    sim_seed: simSeedFor(s.sim_base, c.run),
    replay_command,
    rerun_command: replay_command.replace(/ --(case \S+|runs \d+ --concurrency \d+)$/, ` --run ${c.run}`),
    case_token: token,
    shrunk_steps: describeScenario(best),
    original_steps: describeScenario(c.scenario).length,
    notes: best_outcome.run?.notes ?? [],
    divergence: { entity_type: f.entity_type, entity_id: f.entity_id, field: f.field, app: f.app, provider: f.provider },
    detail: f.detail.join('; '),
    more: best_outcome.more,
    delivery_log: best_outcome.delivery_log,
    pinned,
  };
}
