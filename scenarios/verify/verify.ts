// `swapsim verify` as a function. Each run gets a fresh in-process swapsim (virtual clock) whose seed is
// derived from the verify seed and the run number, a webhook pointing at the relay (which forwards to the
// app), and POST /probe/configure; then a generated scenario (scenario.ts: faults tied to their operations),
// quiescence, and the judgement: the app's answers to deliveries (provider log + relay), then its state
// against the provider's truth. A failing run has its fired background effects pinned into targeted rules,
// is shrunk step by step on the same provider seed, and is printed with a replay command that carries the
// case itself, so it reproduces every time. Every run is bounded in wall time; the whole call always ends.
import { randomBytes, randomInt } from 'node:crypto';
import { createSim, listAll, type Sim } from '../../lib/sim.ts';
import { adversarialProfile } from '../../fake-provider/profiles/index.ts';
import { DEFAULT_PROFILE, type Profile } from '../../fake-provider/profile.ts';
import type { ConductFinding, VerifyCase, VerifyDivergence, VerifyResult } from '../../reports/types.ts';
import type { WebhookEffect } from '../arbitraries/steps.ts';
import { WALL } from '../dsl/wall.ts';
import { firstDivergence } from './compare.ts';
import { deliveryLog, formatDeliveryLog, judgeDeliveries, judgeLatency, type Attempt, type Finding } from './judge.ts';
import * as probe from './probe.ts';
import { startHub, type Hub, type Mount } from './hub.ts';
import { startRelay, type Relay, type RelayRecord } from './relay.ts';
import { runVerifyScenario, type RunHooks, type VerifyRun } from './run.ts';
import { decodeCase, describeScenario, encodeCase, generateScenario, NO_BACKGROUND, type VerifyScenario, type VStep } from './scenario.ts';

export type { VerifyScenario } from './scenario.ts';

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
   * Runs at once (default DEFAULT_CONCURRENCY): consecutive runs are grouped into batches, each run on its own
   * provider behind verify's hub; a run whose scenario is app-wide (rotate, restart, API faults, an adversarial
   * profile) runs alone. 1: every run alone, one after another.
   */
  concurrency?: number;
  /** Called after each run (not after shrink attempts); in a batch, in run order once the batch has ended. */
  on_run?: (u: { done: number; failures: number; note: string; run: number; wall_ms: number; records: readonly RelayRecord[]; batch: number; batch_size: number }) => void;
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
}

interface Outcome {
  ok: boolean;
  /** Wall time from the run's start (its batch's start, in a batch) to its verdict. */
  wall_ms: number;
  /** Ended by the global time limit: neither a pass nor a failure. */
  interrupted: boolean;
  finding?: Finding;
  run: VerifyRun | null;
  log: Attempt[];
  records: RelayRecord[];
  /** Background webhook firings: which account's event, which effect. */
  fired_background: Array<{ account: number; event_type: string; effect: WebhookEffect }>;
  delivery_log: string[];
  more: string[];
}

/** One relay and who to tell when its handler limit passes; a batch of n runs uses n of them. */
interface RelaySlot {
  relay: Relay;
  on_slow: ((r: RelayRecord) => void) | null;
}

interface Session {
  app_url: string;
  webhook_path: string;
  /** Relays, created as a batch first needs them and reused; the first serves every run that goes alone. */
  slots: RelaySlot[];
  newSlot(): Promise<RelaySlot>;
  hub: Hub | null;
  concurrency: number;
  sim_base: string;
  verifier_key: string;
  quiescence_ms: number;
  latency_limit_ms: number;
  run_time_limit_ms: number;
  deadline_ms: number;
  sync_supported: boolean | null;
  conduct: ConductFinding[];
  configured_once: boolean;
  answer_slot_ms: number;
}

const BACKGROUND_EFFECT: Record<string, WebhookEffect> = { duplicate: 'duplicate', reorder: 'reorder', drop: 'drop', bad_signature: 'bad_signature', delay: 'delay_60s' };

/**
 * Sim time between a delivery attempt and the moment its answer lands (profile `webhook_answer_slot_ms`): the
 * deliveries sent within it overlap in wall time, so a handler answering in 5 s costs about 5 s per burst.
 * Measured with a 5 s handler: 10 s → 25 s a run, 60 s → 12 s, 300 s → 7.8 s, 600 s → 7.9 s (docs/verify.md).
 */
export const ANSWER_SLOT_MS = 300_000;

/** Wire statuses after which a trade, zap or cancel changes no more (a quiet point needs all of them there). */
const TERMINAL = new Set(['settled', 'failed', 'confirmed']);

/**
 * Runs per batch when not given. With a 5 s handler, 100 runs at seed 1 (docs/verify.md): 1 → 966 s, 4 → ?, 8 → ?, 12 → ?.
 */
export const DEFAULT_CONCURRENCY = 8;

export const simSeedFor = (base: string, run: number): string => `${base}/run-${run}`;

export function replayCommand(o: { app_url: string; seed: number; token: string; webhook_path: string; sim_base: string; default_base: string }): string {
  const hook = o.webhook_path === '/webhooks' ? '' : ` --webhook-path ${o.webhook_path}`;
  const base = o.sim_base === o.default_base ? '' : ` --sim-seed ${o.sim_base}`;
  return `npx swapsim verify --app ${o.app_url} --seed ${o.seed}${base}${hook} --case ${o.token}`;
}

/** Resolves after `ms` of wall time, or never if `ms` is infinite; `cancel` stops the wait. */
function wallTimer(ms: number): { done: Promise<'timer'>; cancel: () => void } {
  const ctl = new AbortController();
  const done = Number.isFinite(ms)
    ? WALL.wait(Math.max(0, ms), ctl.signal).then(() => 'timer' as const, () => new Promise<'timer'>(() => undefined))
    : new Promise<'timer'>(() => undefined);
  return { done, cancel: () => ctl.abort() };
}

async function eventsOf(sim: Sim, account_ids: string[]): Promise<Map<string, { type: string; account: number; data: Record<string, unknown> }>> {
  const out = new Map<string, { type: string; account: number; data: Record<string, unknown> }>();
  for (const [account, account_id] of account_ids.entries()) {
    for (const e of await listAll<{ event_id: string; type: string; data: Record<string, unknown> }>(sim, `/events?account_id=${account_id}`, 'events')) out.set(e.event_id, { type: e.type, account, data: e.data });
  }
  return out;
}

const sameFailure = (a: Finding, b: Finding): boolean => a.kind === b.kind && (a.kind !== 'state' || (a.entity_type === b.entity_type && a.field === b.field));

/** The app's state against the truth, for every account; an app without /probe/sync is re-read until it converges, time is up, or (shrinking) the expected mismatch shows. */
async function judgeState(s: Session, sim: Sim, run: VerifyRun, expect: Finding | null): Promise<Finding | null> {
  const deadline = WALL.now_ms() + (s.sync_supported ? 0 : s.quiescence_ms);
  for (;;) {
    let found: Finding | null = null;
    for (const account_id of run.account_ids) {
      const reply = await probe.state(s.app_url, account_id);
      if (!reply.ok) {
        found = { kind: 'probe', headline: `GET /probe/state broke the probe contract: ${reply.problem}`, entity_type: 'probe', entity_id: account_id, field: 'shape', app: reply.problem, provider: 'the probe contract', detail: [], event_ids: [] };
        break;
      }
      const d = firstDivergence(account_id, reply.state, await sim.truth(account_id));
      if (d) {
        const direction = d.entity_type === 'balance' ? (BigInt(String(d.app)) > BigInt(String(d.provider)) ? ' (the app counts more than the provider holds)' : ' (the app counts less than the provider holds)') : '';
        found = { kind: 'state', headline: `state mismatch: ${d.entity_type} ${d.entity_id} ${d.field}: app ${JSON.stringify(d.app)}, provider ${JSON.stringify(d.provider)}${direction}`, ...d, detail: [`account ${account_id}`], event_ids: [] };
        break;
      }
    }
    if (found === null) return null;
    // Shrinking: once the mismatch being chased shows, waiting longer cannot change the verdict.
    if (expect && sameFailure(found, expect)) return found;
    if (WALL.now_ms() >= deadline) return found;
    await WALL.wait(100);
  }
}

/** Events a state finding is about: the entity's own, or for a balance the account's credits and settlements in that asset. */
function involvedEvents(f: Finding, events: Map<string, { type: string; account: number; data: Record<string, unknown> }>, run: VerifyRun): string[] {
  if (f.event_ids.length > 0) return f.event_ids;
  const out: string[] = [];
  if (f.entity_type === 'balance') {
    const [account_id, asset_key] = f.entity_id.split(' ');
    const account = run.account_ids.indexOf(account_id);
    for (const [id, e] of events) {
      if (e.account !== account) continue;
      if ((e.type === 'credit.created' && e.data.asset_key === asset_key) || /\.(settled|confirmed)$/.test(e.type)) out.push(id);
    }
  } else {
    for (const [id, e] of events) if (Object.values(e.data).includes(f.entity_id)) out.push(id);
  }
  return out.slice(0, 12);
}

/** A run's provider: its own in-process sim, seeded `<base>/run-<n>`, whether it runs alone or in a batch. */
async function openLane(s: Session, scenario: VerifyScenario, run_no: number, app_key: string): Promise<{ sim: Sim; profile: Profile }> {
  const sim_seed = simSeedFor(s.sim_base, run_no);
  // Answers land one webhook timeout after their attempt (sim time): a slow handler's answers overlap instead
  // of holding the clock once per event, and the outcome still lands at a fixed sim time.
  const base_profile = scenario.adversarial_profile ? adversarialProfile(sim_seed) : DEFAULT_PROFILE;
  const profile = { ...base_profile, webhook_answer_slot_ms: s.answer_slot_ms };
  const sim = await createSim({ seed: sim_seed, api_keys: [s.verifier_key, app_key], profile });
  return { sim, profile };
}

/** How a run reaches the app: the webhook it registered, the secret the app holds, and how to configure the app again. */
interface Connection {
  webhook_id: string;
  secret: string;
  configure(secret: string): Promise<void>;
}

async function ensureSlots(s: Session, n: number): Promise<void> {
  while (s.slots.length < n) s.slots.push(await s.newSlot());
}

/** One run alone, as verify has always run: its own provider, the app configured with it directly. */
async function runOnce(s: Session, scenario: VerifyScenario, run_no: number, expect: Finding | null): Promise<Outcome> {
  const app_key = `sk_app_${randomBytes(12).toString('hex')}`;
  const { sim, profile } = await openLane(s, scenario, run_no, app_key);
  const slot = s.slots[0];
  slot.relay.reset();
  return driveLane(s, { sim, profile, slot, app_key, scenario, run_no, expect, started_ms: WALL.now_ms() }, async () => {
    const hook = await sim.webhook(slot.relay.url);
    slot.relay.setSecret(hook.secret);
    const configure = (secret: string) => probe.configure(s.app_url, { base_url: sim.base_url, api_key: app_key, webhook_secret: secret });
    await configure(hook.secret);
    return { webhook_id: hook.webhook_id, secret: hook.secret, configure };
  });
}

interface LaneRun {
  sim: Sim;
  profile: Profile;
  slot: RelaySlot;
  app_key: string;
  scenario: VerifyScenario;
  run_no: number;
  expect: Finding | null;
  started_ms: number;
  /** In a batch the sim stays up until every run of the batch has ended (the app's composite feed reads every lane), and the batch reads the conduct record then. */
  batched?: boolean;
}

/** Reads the app key's client-conduct findings on a lane and closes its sim (bounded: a stuck close cannot hold verify). */
async function closeLane(s: Session, sim: Sim, app_key: string): Promise<void> {
  for (const f of (await sim.conduct(app_key).catch(() => null))?.findings ?? []) s.conduct.push({ api_key: `…${f.api_key_suffix}`, kind: f.kind, detail: f.message, request_ids: f.request_ids });
  const closing = wallTimer(5_000);
  await Promise.race([sim.close(), closing.done]);
  closing.cancel();
}

/** Drives one run's scenario on its lane and judges it; closes the lane's sim unless its batch does. */
async function driveLane(s: Session, lane: LaneRun, connect: () => Promise<Connection>): Promise<Outcome> {
  const { sim, profile, slot, app_key, scenario, run_no, expect } = lane;
  const relay = slot.relay;
  const out: Outcome = { ok: false, wall_ms: 0, interrupted: false, run: null, log: [], records: [], fired_background: [], delivery_log: [], more: [] };
  let slow: RelayRecord | null = null;
  // A cut ends what verify itself has in flight to the app too: the relay's deliveries and its forged ones.
  const cutting = new AbortController();
  const cut = (): void => {
    relay.cut();
    cutting.abort();
  };
  slot.on_slow = (r) => {
    slow = r;
    cut();
  };
  try {
    const hook = await connect();
    const configure = hook.configure;
    s.configured_once = true;
    let midrun: Finding | null = null;
    const quietCheck = async (step: number, run: VerifyRun): Promise<string> => {
      // While verify's API faults are on, the app may rightly fail to catch up: not a quiet point.
      if (run.api_rule_ids.length > 0) return 'API faults on the app\'s key are on: no check';
      const pending = await listAll(sim, `/webhooks/${hook.webhook_id}/deliveries?status=pending`, 'deliveries');
      if (pending.length > 0) return `not a quiet point (${pending.length} deliveries pending): no check`;
      for (const account_id of run.account_ids) {
        const t = await sim.truth(account_id);
        const busy = [...t.trades, ...t.zaps, ...t.cancels].filter((e) => !TERMINAL.has(e.status));
        if (busy.length > 0) return `not a quiet point (${busy.length} operations in flight): no check`;
      }
      if (s.sync_supported !== false) s.sync_supported = await probe.sync(s.app_url);
      const f = await judgeState(s, sim, run, expect);
      if (f === null) return "quiet point: the app's state matched";
      midrun ??= { ...f, headline: f.headline.replace(/^state mismatch:/, `state mismatch at a quiet point (step ${step}, nothing in flight):`) };
      return `quiet point: ${f.headline}`;
    };
    const hooks: RunHooks = {
      relay, configure, webhook_id: hook.webhook_id, secret: hook.secret, app_webhook_url: s.app_url + s.webhook_path,
      header_prefix: profile.webhook_header_prefix, probe: quietCheck, answer_slot_ms: s.answer_slot_ms, cut_signal: cutting.signal,
    };
    const work = runVerifyScenario(sim, scenario, hooks).then((run) => ({ run }), (error: unknown) => ({ error }));
    const limit_ms = Math.min(s.run_time_limit_ms, s.deadline_ms - WALL.now_ms());
    const timer = wallTimer(limit_ms);
    const first = await Promise.race([work, timer.done]);
    timer.cancel();
    let cut_by: 'run_limit' | 'time_limit' | null = null;
    let busy: Array<{ event_id: string; event_type: string; elapsed_ms: number }> = [];
    if (first === 'timer') {
      cut_by = WALL.now_ms() >= s.deadline_ms ? 'time_limit' : 'run_limit';
      busy = relay.inFlight();
      cut();
    }
    // After a cut every delivery is answered at once, so the run's remaining sim time passes quickly.
    const grace = wallTimer(60_000);
    const settled = await Promise.race([work, grace.done]);
    grace.cancel();
    if (settled === 'timer') throw new Error('the run did not end within 60 s of being cut');
    if ('error' in settled) throw settled.error;
    const run = settled.run;
    out.run = run;
    out.records = [...relay.records];
    const rel = (ms: number): string => `t+${((ms - run.started_at_ms) / 1000).toFixed(1)}s`;
    if (cut_by === 'time_limit' && slow === null) {
      out.interrupted = true;
      return out;
    }
    out.log = await deliveryLog(sim, run.account_ids);
    const events = await eventsOf(sim, run.account_ids);
    const { fired } = (await sim.control('GET', '/faults')).body as { fired: Array<{ fault_id: string; at_ms: number; subject: string }> };
    const background = new Set(run.background_rule_ids);
    const background_effect = new Map<string, WebhookEffect>();
    // Background rules were added kind by kind, account by account: recover each rule's effect from that order.
    const kinds = Object.entries(scenario.background).filter(([, p]) => p > 0).map(([k]) => k);
    run.background_rule_ids.forEach((id, i) => background_effect.set(id, BACKGROUND_EFFECT[kinds[Math.floor(i / run.account_ids.length)]]));
    for (const f of fired) {
      if (!background.has(f.fault_id)) continue;
      const e = events.get(f.subject.split(',')[0]);
      if (e) out.fired_background.push({ account: e.account, event_type: e.type, effect: background_effect.get(f.fault_id)! });
    }
    const api_rules = new Set(run.api_rule_ids);
    const api_fault_at = fired.filter((f) => api_rules.has(f.fault_id)).map((f) => f.at_ms);
    for (const r of run.op_rules) if (!fired.some((f) => f.fault_id === r.fault_id)) out.more.push(`note: step ${r.step}'s fault (${r.what}) never fired`);

    // The judgement, most telling first.
    let finding: Finding | null = null;
    if (slow !== null) {
      const r = slow as RelayRecord;
      finding = {
        kind: 'slow_handler', headline: `handler exceeded ${r.latency_ms / 1000} s on event ${r.event_id} (${r.event_type}) without answering (latency limit ${s.latency_limit_ms / 1000} s; the provider gives up at ${DEFAULT_PROFILE.webhook_timeout_ms / 1000} s and retries); the run was ended there`,
        entity_type: 'webhook_delivery', entity_id: r.delivery_id, field: 'latency_ms', app: `> ${r.latency_ms}`, provider: `≤ ${s.latency_limit_ms}`, detail: [], event_ids: [r.event_id],
      };
    } else if (cut_by === 'run_limit') {
      const b = busy[0];
      finding = {
        kind: 'run_time_limit',
        headline: b ? `handler exceeded ${(b.elapsed_ms / 1000).toFixed(0)} s on event ${b.event_id} (${b.event_type}) when the run's wall-time limit (${s.run_time_limit_ms / 1000} s) was reached` : `the run exceeded its wall-time limit (${s.run_time_limit_ms / 1000} s) with no delivery in flight: the app's probe answers or its feed reads are too slow`,
        entity_type: 'run', entity_id: `run ${run_no}`, field: 'wall_ms', app: `> ${s.run_time_limit_ms}`, provider: `≤ ${s.run_time_limit_ms}`, detail: [], event_ids: b ? [b.event_id] : [],
      };
    }
    finding ??= (() => {
      const f = run.forged.find((x) => x.answered !== 401);
      return f
        ? { kind: 'forged_delivery', headline: `forged delivery accepted: ${f.forgery === 'unsigned' ? 'an unsigned' : `a ${f.forgery.replace('_', ' ')}`} delivery (step ${f.step}) was answered ${f.answered || 'nothing'}; the spec requires 401 and the event must not be applied`, entity_type: 'forged_delivery', entity_id: f.event_id, field: 'http_status', app: f.answered, provider: 401, detail: [], event_ids: [f.event_id] }
        : null;
    })();
    finding ??= (() => {
      const p = run.previous_secret.find((x) => x.record.status < 200 || x.record.status > 299);
      return p
        ? { kind: 'rotation_grace', headline: `a delivery signed with the previous secret just after a rotation (step ${p.step}) was answered ${p.record.status || 'nothing'}: the spec asks receivers to accept old and new secrets for at least 5 minutes after a rotation`, entity_type: 'webhook_delivery', entity_id: p.record.delivery_id, field: 'http_status', app: p.record.status, provider: '2xx', detail: [], event_ids: [p.record.event_id] }
        : null;
    })();
    // Apps that keep the provider waiting answer only when the state converges; sync first so state is final.
    if (finding === null) {
      const deliveries = judgeDeliveries(out.log, api_fault_at, profile.webhook_answer_slot_ms, rel);
      out.more.push(...deliveries.excused);
      finding = deliveries.findings[0] ?? null;
      if (deliveries.findings.length > 1) out.more.push(`${deliveries.findings.length - 1} more deliveries were refused`);
    }
    finding ??= judgeLatency(out.records, s.latency_limit_ms);
    finding ??= midrun;
    if (finding === null) {
      if (s.sync_supported !== false) s.sync_supported = await probe.sync(s.app_url);
      finding = await judgeState(s, sim, run, expect);
    }
    if (finding) {
      finding.event_ids = involvedEvents(finding, events, run);
      out.delivery_log = formatDeliveryLog(finding.event_ids, out.log, out.records, rel, relay.is_cut);
      for (const f of run.forged) if (finding.event_ids.includes(f.event_id)) out.delivery_log = out.delivery_log.map((l) => (l.startsWith(`${f.event_id}:`) ? `${f.event_id}: forged by verify (${f.forgery}, step ${f.step}), posted straight to the app, answered ${f.answered || 'nothing'}` : l));
      out.finding = finding;
      return out;
    }
    out.ok = true;
    return out;
  } catch (err) {
    // An app that stops answering, or a probe call that fails, is a failed run with the reason, never a pass.
    // Unreachable before anything ran: the app is not up (exit 2), not a finding about it.
    if (err instanceof probe.AppUnreachable && !s.configured_once) throw err;
    const message = err instanceof Error ? err.message : String(err);
    out.finding = { kind: 'error', headline: `the run could not complete: ${message}`, entity_type: 'run', entity_id: `run ${run_no}`, field: 'error', app: message, provider: null, detail: [], event_ids: [] };
    return out;
  } finally {
    out.wall_ms = Math.round(WALL.now_ms() - lane.started_ms);
    slot.on_slow = null;
    if (!lane.batched) await closeLane(s, sim, app_key);
  }
}

/** A run whose scenario does something app-wide (it would reach every run sharing the app's provider) runs alone. */
export function runsAlone(s: VerifyScenario): boolean {
  return s.adversarial_profile || s.steps.some((st) => st.kind === 'rotate' || st.kind === 'restart' || st.kind === 'api_fault');
}

/** Consecutive runs grouped up to `concurrency`; a run that must run alone is a batch of its own. */
export function planBatches<T extends { scenario: VerifyScenario }>(plan: readonly T[], concurrency: number): T[][] {
  const batches: T[][] = [];
  let open: T[] = [];
  for (const p of plan) {
    if (concurrency > 1 && !runsAlone(p.scenario)) {
      open.push(p);
      if (open.length >= concurrency) [batches[batches.length], open] = [open, []];
      continue;
    }
    if (open.length > 0) [batches[batches.length], open] = [open, []];
    batches.push([p]);
  }
  if (open.length > 0) batches.push(open);
  return batches;
}

function errorOutcome(run_no: number, message: string): Outcome {
  return {
    ok: false, wall_ms: 0, interrupted: false, run: null, log: [], records: [], fired_background: [], delivery_log: [], more: [],
    finding: { kind: 'error', headline: `the run could not complete: ${message}`, entity_type: 'run', entity_id: `run ${run_no}`, field: 'error', app: message, provider: null, detail: [], event_ids: [] },
  };
}

/**
 * Several runs at once behind the hub: each run keeps its own provider (lane), relay and bounds; the app is
 * configured once with the batch's hub prefix, one API key (every lane's organization holds it) and one secret
 * (each relay re-signs its provider's correctly signed deliveries with it).
 */
async function runBatch(s: Session, batch: ReadonlyArray<{ run: number; scenario: VerifyScenario }>): Promise<Outcome[]> {
  await ensureSlots(s, batch.length);
  s.hub ??= await startHub({ peek_key: s.verifier_key });
  const hub = s.hub;
  const started_ms = WALL.now_ms();
  const app_key = `sk_app_${randomBytes(12).toString('hex')}`;
  const secret = `whsec_${randomBytes(32).toString('hex')}`;
  const lanes: Array<{ sim: Sim; profile: Profile }> = [];
  const webhooks: string[] = [];
  let mount: Mount | null = null;
  let configure: Connection['configure'];
  try {
    for (const b of batch) lanes.push(await openLane(s, b.scenario, b.run, app_key));
    const m = hub.mount(lanes.map((l) => l.sim.base_url));
    mount = m;
    for (const [i, l] of lanes.entries()) {
      const relay = s.slots[i].relay;
      relay.reset();
      const hook = await l.sim.webhook(relay.url);
      relay.setSecret(hook.secret);
      relay.setAppSecret(secret);
      relay.setObserver((body) => m.learn(i, body));
      webhooks.push(hook.webhook_id);
    }
    configure = (next: string) => probe.configure(s.app_url, { base_url: m.base_url, api_key: app_key, webhook_secret: next });
    await configure(secret);
  } catch (err) {
    mount?.unmount();
    await Promise.all(lanes.map((l) => l.sim.close().catch(() => undefined)));
    if (err instanceof probe.AppUnreachable && !s.configured_once) throw err;
    return batch.map((b) => errorOutcome(b.run, err instanceof Error ? err.message : String(err)));
  }
  try {
    return await Promise.all(
      lanes.map((l, i) =>
        driveLane(s, { ...l, slot: s.slots[i], app_key, scenario: batch[i].scenario, run_no: batch[i].run, expect: null, started_ms, batched: true }, async () => ({ webhook_id: webhooks[i], secret, configure })),
      ),
    );
  } finally {
    mount.unmount();
    await Promise.all(lanes.map((l) => closeLane(s, l.sim, app_key)));
  }
}

/** Runs each alone, in order, until one fails: that run and its outcome alone; 'passed' when none failed; 'cut' when the time limit came first. */
async function confirmAlone(s: Session, runs: ReadonlyArray<{ run: number; scenario: VerifyScenario }>): Promise<{ run: number; scenario: VerifyScenario; outcome: Outcome } | 'passed' | 'cut'> {
  for (const { run, scenario } of runs) {
    if (WALL.now_ms() >= s.deadline_ms) return 'cut';
    const outcome = await runOnce(s, scenario, run, null);
    if (outcome.interrupted) return 'cut';
    if (!outcome.ok) return { run, scenario, outcome };
  }
  return 'passed';
}

/** Smaller variants of a scenario, most reducing first. */
function* shrinkCandidates(s: VerifyScenario): Generator<VerifyScenario> {
  if (s.adversarial_profile) yield { ...s, adversarial_profile: false };
  if (Object.values(s.background).some((p) => p > 0)) yield { ...s, background: NO_BACKGROUND };
  if (s.accounts.length > 1) yield { ...s, accounts: s.accounts.slice(0, 1) };
  for (let i = s.steps.length - 1; i >= 0; i--) yield { ...s, steps: s.steps.filter((_, j) => j !== i) };
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
  const pinned: VStep[] = [...counts.values()].map((c) => ({ kind: 'chaos', account: c.account, effect: c.effect, event_type: c.event_type, times: c.times }));
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
    app_url, webhook_path, slots: [await newSlot()], newSlot, hub: null, concurrency, sim_base, verifier_key: `sk_verifier_${randomBytes(12).toString('hex')}`,
    quiescence_ms: options.quiescence_ms ?? 3_000, latency_limit_ms: options.latency_limit_ms ?? 8_000,
    run_time_limit_ms: options.run_time_limit_ms ?? 300_000, deadline_ms: options.time_limit_ms === undefined ? Infinity : started + options.time_limit_ms,
    sync_supported: null, conduct: [], configured_once: false, answer_slot_ms: options.answer_slot_ms ?? ANSWER_SLOT_MS,
  };
  const report: VerifyReport = { kind: 'verify', app_url, seed: String(seed), started_at, runs: 0, passed: 0, failed: 0, wall_ms: 0, cases: [], conduct: [], sim_seed: sim_base, interrupted: false, concurrency };
  try {
    let plan: Array<{ run: number; scenario: VerifyScenario }>;
    if (options.case !== undefined) plan = [{ ...decodeCase(options.case) }].map((c) => ({ run: c.run, scenario: c.scenario }));
    else if (options.run !== undefined) plan = [{ run: options.run, scenario: generateScenario(seed, options.run) }];
    else plan = Array.from({ length: options.runs ?? 100 }, (_, i) => ({ run: i + 1, scenario: generateScenario(seed, i + 1) }));
    const replaying = options.case !== undefined || options.run !== undefined;

    for (const [batch_index, batch] of planBatches(plan, concurrency).entries()) {
      if (WALL.now_ms() >= session.deadline_ms) {
        report.interrupted = true;
        break;
      }
      const outcomes = batch.length === 1 ? [await runOnce(session, batch[0].scenario, batch[0].run, null)] : await runBatch(session, batch);
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
        const first_failure = !outcome.ok && failing === null;
        options.on_run?.({
          done: report.runs, failures: outcome.ok ? 0 : 1, note: !first_failure ? '' : replaying ? 'mismatch found' : 'mismatch found, shrinking',
          run, wall_ms: outcome.wall_ms, records: outcome.records, batch: batch_index + 1, batch_size: batch.length,
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
      let alone: string | null = null;
      if (batch_runs !== null) {
        // A failure is explained alone, so its replay is the run on its own. The batch's runs up to the lowest
        // failing one run again alone, in order, and the first that fails alone is the one reported: the run
        // verify with concurrency 1 would have reported, whenever the batch's failure is real on its own.
        const found = await confirmAlone(session, batch.filter((b) => b.run <= failing!.run));
        if (typeof found === 'object') {
          const vcase = report.cases.find((c) => c.run === found.run)!;
          if (vcase.ok) [vcase.ok, report.passed, report.failed] = [false, report.passed - 1, report.failed + 1];
          const before = vcase === failing.vcase ? failing.outcome.finding : null;
          if (before && found.outcome.finding && before.headline !== found.outcome.finding.headline) found.outcome.more.unshift(`note: in its batch (runs ${batch_runs.runs[0]}–${batch_runs.runs.at(-1)} at once) this run failed with: ${before.headline}`);
          else if (vcase !== failing.vcase) found.outcome.more.unshift(`note: in its batch (runs ${batch_runs.runs[0]}–${batch_runs.runs.at(-1)} at once) this run passed, and run ${failing.run} failed with: ${failing.outcome.finding?.headline}; run alone, this one fails`);
          failing = { ...found, vcase };
        } else {
          const together = `batch ${batch_runs.batch}: runs ${batch_runs.runs[0]}–${batch_runs.runs.at(-1)} at once behind the hub`;
          alone = found === 'passed'
            ? `run ${failing.run} failed only alongside other runs (${together}); run alone, runs ${batch_runs.runs[0]}–${failing.run} pass`
            : `run ${failing.run} failed alongside other runs (${together}) and the time limit passed before it could be run again alone`;
        }
      }
      // The lowest failing run of the first batch with a failure; explained alone, exactly as a run alone is.
      report.runs_to_catch = failing.run;
      const f = await explain(session, options, { seed, run: failing.run, scenario: failing.scenario, outcome: failing.outcome, replaying, app_url, webhook_path, default_base, batch: batch_runs, alone }, report);
      report.failure = f;
      Object.assign(failing.vcase, { shrunk_steps: f.shrunk_steps, divergence: f.divergence, replay_command: f.replay_command, headline: f.headline, sim_seed: f.sim_seed, delivery_log: f.delivery_log });
      break;
    }
    report.conduct = dedupeConduct(session.conduct);
    report.wall_ms = Math.round(WALL.now_ms() - started);
    return report;
  } finally {
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
  c: { seed: number; run: number; scenario: VerifyScenario; outcome: Outcome; replaying: boolean; app_url: string; webhook_path: string; default_base: string; batch: { batch: number; runs: number[] } | null; alone: string | null },
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
        pinned = c.outcome.fired_background.length === 0 ? 'no background effect fired: the background was dropped' : `${c.outcome.fired_background.length} background effects that fired were pinned as targeted rules`;
      } else pinned = 'the background effects that fired could not be pinned as targeted rules (the case still depends on them; the replay uses the same provider seed, so it draws them again)';
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
  let replay_command = replayCommand({ app_url: c.app_url, seed: c.seed, token, webhook_path: c.webhook_path, sim_base: s.sim_base, default_base: c.default_base });
  // A case that passes alone has no replay of its own: the command that runs its batch again is the honest one.
  if (alone !== null && c.batch !== null) replay_command = replay_command.replace(/ --case \S+$/, ` --runs ${c.batch.runs[c.batch.runs.length - 1]} --concurrency ${s.concurrency}`);
  return {
    alone,
    run: c.run, headline: f.headline, kind: f.kind, sim_seed: simSeedFor(s.sim_base, c.run), replay_command,
    rerun_command: replay_command.replace(/ --(case \S+|runs \d+ --concurrency \d+)$/, ` --run ${c.run}`), case_token: token,
    shrunk_steps: describeScenario(best), original_steps: describeScenario(c.scenario).length, notes: best_outcome.run?.notes ?? [],
    divergence: { entity_type: f.entity_type, entity_id: f.entity_id, field: f.field, app: f.app, provider: f.provider },
    detail: f.detail.join('; '), more: best_outcome.more, delivery_log: best_outcome.delivery_log, pinned,
  };
}
