// One verify run on its lane: its own in-process provider (seeded `<base>/run-<n>`, virtual clock), the relay
// that forwards its deliveries to the app, the scenario driven within wall-time bounds (latency limit, run
// limit, the global time limit), and the judgement: the app's answers (provider log + relay), then its state
// against the provider's truth. A run alone configures the app with its provider; a batch (batch.ts) does so
// once for all its lanes behind the hub.
import { randomBytes } from 'node:crypto';
import { createSim, listAll, type Sim } from '../../lib/sim.ts';
import { adversarialProfile } from '../../fake-provider/profiles/index.ts';
import { DEFAULT_PROFILE, type Profile } from '../../fake-provider/profile.ts';
import type { ConductFinding } from '../../reports/types.ts';
import type { WebhookEffect } from '../arbitraries/steps.ts';
import { WALL } from '../../sim/wall.ts';
import { firstDivergence } from './compare.ts';
import { deliveryLog, formatDeliveryLog, judgeDeliveries, judgeLatency, type Attempt, type Finding } from './judge.ts';
import * as probe from './probe.ts';
import { observeReach } from './reach.ts';
import { startHub, type Hub, type Mount } from './hub.ts';
import type { Relay, RelayRecord } from './relay.ts';
import { apiEffect, runVerifyScenario, type RunHooks, type VerifyRun } from './run.ts';
import type { VerifyScenario } from './scenario.ts';

export interface Outcome {
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
  /** Coverage items the run reached (reach.ts), as observed. */
  reached: string[];
}

/** One relay and who to tell when its handler limit passes; a batch of n runs uses n of them. */
export interface RelaySlot {
  relay: Relay;
  on_slow: ((r: RelayRecord) => void) | null;
}

export interface Session {
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
  /** `fail` (default): the app's client-conduct findings in a run fail it; `warn`: reported only. */
  conduct_mode: 'fail' | 'warn';
  configured_once: boolean;
  answer_slot_ms: number;
}

const BACKGROUND_EFFECT: Record<string, WebhookEffect> = {
  duplicate: 'duplicate',
  reorder: 'reorder',
  drop: 'drop',
  bad_signature: 'bad_signature',
  delay: 'delay_60s',
};

/**
 * Sim time between a delivery attempt and the moment its answer lands (profile `webhook_answer_slot_ms`): the
 * deliveries sent within it overlap in wall time, so a handler answering in 5 s costs about 5 s per burst.
 * Measured with a 5 s handler: 10 s → 25 s a run, 60 s → 12 s, 300 s → 7.8 s, 600 s → 7.9 s (docs/verify.md).
 */
export const ANSWER_SLOT_MS = 300_000;

/** What each client-conduct finding means, for the first line of a failure (design.md, Client conduct). */
const CONDUCT_TEXT: Record<string, string> = {
  retry_after_ignored: "a request sent before a 429's Retry-After elapsed",
  poll_too_fast: 'a poll sooner than poll_after_ms',
  idempotency_key_reuse: 'an Idempotency-Key reused with another payload',
  retry_without_idempotency_key: 'a write retried without an Idempotency-Key',
  ignored_has_more: 'a list read from the top again while has_more said there was more',
};

/**
 * One account's deliveries leave the provider in dispatch order, each once the previous one was answered or this long
 * after it was handed to the socket, whichever comes first (profile `webhook_answer_slot_stagger_ms`): whatever the
 * app does, it receives them in the order a replay will, unless its server stalls longer than this. Overlap is then what a step asks for (concurrent copies,
 * a duplicate's two copies), recorded in the case. The gap is paid per POST a slow app has not answered within it, retries included (an app refusing
 * everything costs ~500 POSTs a run: 100 ms made such a run 2 min), so it is short; an in-process receiver on a
 * busy machine kept the order at 100 ms, not always at 60 (fake-provider/resources/webhooks/answer-slot-order.test.ts).
 */
const ANSWER_SLOT_STAGGER_MS = 40;

/** Wire statuses after which a trade, zap or cancel changes no more (a quiet point needs all of them there). */
const TERMINAL = new Set(['settled', 'failed', 'confirmed']);

export const simSeedFor = (base: string, run: number): string => `${base}/run-${run}`;

/** Resolves after `ms` of wall time, or never if `ms` is infinite; `cancel` stops the wait. */
function wallTimer(ms: number): { done: Promise<'timer'>; cancel: () => void } {
  const ctl = new AbortController();
  const done = Number.isFinite(ms)
    ? WALL.wait(Math.max(0, ms), ctl.signal).then(
        () => 'timer' as const,
        () => new Promise<'timer'>(() => undefined),
      )
    : new Promise<'timer'>(() => undefined);
  return { done, cancel: () => ctl.abort() };
}

async function eventsOf(
  sim: Sim,
  account_ids: string[],
): Promise<Map<string, { type: string; account: number; data: Record<string, unknown> }>> {
  const out = new Map<string, { type: string; account: number; data: Record<string, unknown> }>();
  for (const [account, account_id] of account_ids.entries()) {
    for (const e of await listAll<{ event_id: string; type: string; data: Record<string, unknown> }>(
      sim,
      `/events?account_id=${account_id}`,
      'events',
    ))
      out.set(e.event_id, { type: e.type, account, data: e.data });
  }
  return out;
}

export const sameFailure = (a: Finding, b: Finding): boolean =>
  a.kind === b.kind && (a.kind !== 'state' || (a.entity_type === b.entity_type && a.field === b.field));

/** The app's state against the truth, for every account; an app without /probe/sync is re-read until it converges, time is up, or (shrinking) the expected mismatch shows. */
async function judgeState(s: Session, sim: Sim, run: VerifyRun, expect: Finding | null): Promise<Finding | null> {
  const deadline = WALL.now_ms() + (s.sync_supported ? 0 : s.quiescence_ms);
  for (;;) {
    let found: Finding | null = null;
    for (const account_id of run.account_ids) {
      const reply = await probe.state(s.app_url, account_id);
      if (!reply.ok) {
        found = {
          kind: 'probe',
          headline: `GET /probe/state broke the probe contract: ${reply.problem}`,
          entity_type: 'probe',
          entity_id: account_id,
          field: 'shape',
          app: reply.problem,
          provider: 'the probe contract',
          detail: [],
          event_ids: [],
        };
        break;
      }
      const d = firstDivergence(account_id, reply.state, await sim.truth(account_id));
      if (d) {
        const direction =
          d.entity_type === 'balance'
            ? BigInt(String(d.app)) > BigInt(String(d.provider))
              ? ' (the app counts more than the provider holds)'
              : ' (the app counts less than the provider holds)'
            : '';
        found = {
          kind: 'state',
          headline: `state mismatch: ${d.entity_type} ${d.entity_id} ${d.field}: app ${JSON.stringify(d.app)}, provider ${JSON.stringify(d.provider)}${direction}`,
          ...d,
          detail: [`account ${account_id}`],
          event_ids: [],
        };
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
function involvedEvents(
  f: Finding,
  events: Map<string, { type: string; account: number; data: Record<string, unknown> }>,
  run: VerifyRun,
): string[] {
  if (f.event_ids.length > 0) return f.event_ids;
  const out: string[] = [];
  if (f.entity_type === 'balance') {
    const [account_id, asset_key] = f.entity_id.split(' ');
    const account = run.account_ids.indexOf(account_id);
    for (const [id, e] of events) {
      if (e.account !== account) continue;
      // Credits and deposits in that asset (a flagged or pending deposit creates none), and what spends or recovers them.
      const in_asset = e.data.asset_key === asset_key && (e.type === 'credit.created' || e.type.startsWith('deposit.'));
      if (in_asset || /\.(settled|confirmed)$/.test(e.type) || e.type.startsWith('recovery.')) out.push(id);
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
  const profile = {
    ...base_profile,
    webhook_answer_slot_ms: s.answer_slot_ms,
    webhook_answer_slot_stagger_ms: ANSWER_SLOT_STAGGER_MS,
    ...(scenario.body_style ? { webhook_body_style: scenario.body_style } : {}),
  };
  const sim = await createSim({
    seed: sim_seed,
    api_keys: [s.verifier_key, app_key],
    profile,
    organization: { partner_screening: scenario.partner_screening === true },
  });
  return { sim, profile };
}

/** How a run reaches the app: the webhook it registered, the secret the app holds, and how to configure the app again. */
export interface Connection {
  webhook_id: string;
  secret: string;
  configure(secret: string): Promise<void>;
}

/**
 * A sync (and the state reads after it) with no delivery of any run at the app (relay.ts quietly, over every
 * relay): in a batch the app's catch-up reads every run's feed, so another run's delivery of an event it reads
 * would race it as surely as the run's own.
 */
function quietly<T>(s: Pick<Session, 'slots'>, call: () => Promise<T>): Promise<T> {
  return s.slots.reduce<() => Promise<T>>((inner, slot) => () => slot.relay.quietly(inner), call)();
}

/** A batch's one catch-up: every run that reaches its final state check joins it; every other run leaves. */
export interface CatchUp {
  /** Resolves with `judge`'s finding, run after the batch's one sync, in its quiet window. */
  join(judge: () => Promise<Finding | null>): Promise<Finding | null>;
  /** This run ends without a final state check (a finding came first, or an error). */
  leave(): void;
}

/**
 * The final check of a batch's `runs` runs: once each has joined or left, one `POST /probe/sync`, then every joined
 * run's state read, with no delivery of any run at the app. A sync per run held every other run's deliveries each
 * time and met them in flight; the app's catch-up reads every run's feed anyway, so one is the same check.
 */
export function batchCatchUp(s: Pick<Session, 'app_url' | 'slots' | 'sync_supported'>, runs: number): CatchUp {
  let undecided = runs;
  const joined: Array<{ judge: () => Promise<Finding | null>; resolve(f: Finding | null): void; reject(e: unknown): void }> = [];
  const decided = (): void => {
    if (--undecided > 0 || joined.length === 0) return;
    const all = joined.splice(0);
    quietly(s, async () => {
      if (s.sync_supported !== false) s.sync_supported = await probe.sync(s.app_url);
      return Promise.allSettled(all.map((j) => j.judge()));
    }).then(
      (settled) => settled.forEach((r, i) => (r.status === 'fulfilled' ? all[i].resolve(r.value) : all[i].reject(r.reason))),
      (err: unknown) => {
        for (const j of all) j.reject(err);
      },
    );
  };
  return {
    join: (judge) =>
      new Promise((resolve, reject) => {
        joined.push({ judge, resolve, reject });
        decided();
      }),
    leave: decided,
  };
}

export async function ensureSlots(s: Session, n: number): Promise<void> {
  while (s.slots.length < n) s.slots.push(await s.newSlot());
}

/** A unit's providers (one run alone, or a batch's), opened with the app's key for them before the unit runs. */
export interface OpenedLanes {
  app_key: string;
  lanes: Array<{ sim: Sim; profile: Profile }>;
}

/**
 * Opens the providers of a unit's runs, in order. verify opens the next unit's while the current one runs (a run
 * alone spends most of its wall time waiting on the app): a provider is a virtual-clock sim, idle until driven.
 */
export async function openLanes(s: Session, units: ReadonlyArray<{ run: number; scenario: VerifyScenario }>): Promise<OpenedLanes> {
  const app_key = `sk_app_${randomBytes(12).toString('hex')}`;
  const lanes: OpenedLanes['lanes'] = [];
  try {
    for (const u of units) lanes.push(await openLane(s, u.scenario, u.run, app_key));
  } catch (err) {
    await closeOpened({ app_key, lanes });
    throw err;
  }
  return { app_key, lanes };
}

/** Closes opened providers that will not run (verify stopped first). */
export async function closeOpened(o: OpenedLanes): Promise<void> {
  await Promise.all(o.lanes.map((l) => l.sim.close().catch(() => undefined)));
}

/**
 * One run alone: its own provider, shown to the app through the hub as a batch's are (a mount of one lane), so
 * the relay's gate orders concurrent copies' provider calls in a replay as in the batch that found it.
 */
export async function runOnce(
  s: Session,
  scenario: VerifyScenario,
  run_no: number,
  expect: Finding | null,
  opened?: Promise<OpenedLanes>,
): Promise<Outcome> {
  const {
    app_key,
    lanes: [{ sim, profile }],
  } = await (opened ?? openLanes(s, [{ run: run_no, scenario }]));
  const slot = s.slots[0];
  slot.relay.reset();
  s.hub ??= await startHub({ peek_key: s.verifier_key });
  const mount = s.hub.mount([sim.base_url]);
  // Where 429s are part of the run too: a read held at the gate while another request met a 429 reached the hub
  // before that answer left it, so judgedConduct does not count it as ignoring the Retry-After.
  mount.setGate(0, () => slot.relay.gate());
  try {
    const lane = { sim, profile, slot, app_key, scenario, run_no, expect, started_ms: WALL.now_ms(), sentBefore: mount.sentBefore };
    return await driveLane(s, lane, async () => {
      const hook = await sim.webhook(slot.relay.url);
      slot.relay.setSecret(hook.secret);
      const configure = (secret: string) =>
        slot.relay.quietly(() => probe.configure(s.app_url, { base_url: mount.base_url, api_key: app_key, webhook_secret: secret }));
      await configure(hook.secret);
      return { webhook_id: hook.webhook_id, secret: hook.secret, configure };
    });
  } finally {
    mount.unmount();
  }
}

export interface LaneRun {
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
  /** The hub's view of the app's requests (Mount.sentBefore): a request already on its way ignored no answer. */
  sentBefore: Mount['sentBefore'];
  /** In a batch, the batch's one final sync (batchCatchUp); alone, the run syncs by itself. */
  catch_up?: CatchUp;
}

type ConductFindings = Awaited<ReturnType<Sim['conduct']>>['findings'];

/**
 * The app key's conduct findings, less those the app's own timing excuses: a request "sent before a 429's
 * Retry-After elapsed" that the app had sent before that 429 reached it (two of its requests in flight at
 * once; the provider saw the second one after answering the first, but the app could not have waited for an
 * answer it did not have). Which of two concurrent requests the provider answered first is the machine's
 * timing, so counting it would also make the finding come and go between replays.
 */
export function judgedConduct(findings: ConductFindings, sentBefore: Mount['sentBefore']): ConductFindings {
  return findings.filter(
    (f) => f.kind !== 'retry_after_ignored' || f.request_ids.length < 2 || !sentBefore(f.request_ids[1], f.request_ids[0]),
  );
}

/** Reads the app key's client-conduct findings on a lane and closes its sim (bounded: a stuck close cannot hold verify). */
export async function closeLane(s: Session, sim: Sim, app_key: string, sentBefore: Mount['sentBefore']): Promise<void> {
  for (const f of judgedConduct((await sim.conduct(app_key).catch(() => null))?.findings ?? [], sentBefore))
    s.conduct.push({ api_key: `…${f.api_key_suffix}`, kind: f.kind, detail: f.message, request_ids: f.request_ids });
  const closing = wallTimer(5_000);
  await Promise.race([sim.close(), closing.done]);
  closing.cancel();
}

/** Drives one run's scenario on its lane and judges it; closes the lane's sim unless its batch does. */
export async function driveLane(s: Session, lane: LaneRun, connect: () => Promise<Connection>): Promise<Outcome> {
  const { sim, profile, slot, app_key, scenario, run_no, expect } = lane;
  const relay = slot.relay;
  const out = blankOutcome();
  let slow: RelayRecord | null = null;
  // A cut ends what verify itself has in flight to the app too: the relay's deliveries and its forged ones.
  const cutting = new AbortController();
  let joined = false;
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
      if (run.api_rule_ids.length > 0) return "API faults on the app's key are on: no check";
      const pending = await listAll(sim, `/webhooks/${hook.webhook_id}/deliveries?status=pending`, 'deliveries');
      if (pending.length > 0) return `not a quiet point (${pending.length} deliveries pending): no check`;
      for (const account_id of run.account_ids) {
        const t = await sim.truth(account_id);
        const busy = [...t.trades, ...t.zaps, ...t.cancels].filter((e) => !TERMINAL.has(e.status));
        if (busy.length > 0) return `not a quiet point (${busy.length} operations in flight): no check`;
      }
      const f = await quietly(s, async () => {
        if (s.sync_supported !== false) s.sync_supported = await probe.sync(s.app_url);
        return judgeState(s, sim, run, expect);
      });
      if (f === null) return "quiet point: the app's state matched";
      midrun ??= {
        ...f,
        headline: f.headline.replace(/^state mismatch:/, `state mismatch at a quiet point (step ${step}, nothing in flight):`),
      };
      return `quiet point: ${f.headline}`;
    };
    const hooks: RunHooks = {
      relay,
      configure,
      webhook_id: hook.webhook_id,
      secret: hook.secret,
      app_webhook_url: s.app_url + s.webhook_path,
      header_prefix: profile.webhook_header_prefix,
      probe: quietCheck,
      answer_slot_ms: s.answer_slot_ms,
      cut_signal: cutting.signal,
    };
    const work = runVerifyScenario(sim, scenario, hooks).then(
      (run) => ({ run }),
      (error: unknown) => ({ error }),
    );
    const limit_ms = Math.min(s.run_time_limit_ms, s.deadline_ms - WALL.now_ms());
    // Which limit the timer stands for is decided now: a timer may fire a millisecond before the deadline it was
    // set for, and a run cut by verify's time limit is interrupted, never failed for its own run limit.
    const by_deadline = limit_ms < s.run_time_limit_ms;
    const timer = wallTimer(limit_ms);
    const first = await Promise.race([work, timer.done]);
    timer.cancel();
    let cut_by: 'run_limit' | 'time_limit' | null = null;
    let busy: Array<{ event_id: string; event_type: string; elapsed_ms: number }> = [];
    if (first === 'timer') {
      cut_by = by_deadline || WALL.now_ms() >= s.deadline_ms ? 'time_limit' : 'run_limit';
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
    const kinds = Object.entries(scenario.background)
      .filter(([, p]) => p > 0)
      .map(([k]) => k);
    run.background_rule_ids.forEach((id, i) => background_effect.set(id, BACKGROUND_EFFECT[kinds[Math.floor(i / run.account_ids.length)]]));
    for (const f of fired) {
      if (!background.has(f.fault_id)) continue;
      const e = events.get(f.subject.split(',')[0]);
      if (e) out.fired_background.push({ account: e.account, event_type: e.type, effect: background_effect.get(f.fault_id)! });
    }
    const api_rules = new Set(run.api_rule_ids);
    const api_fault_at = fired.filter((f) => api_rules.has(f.fault_id)).map((f) => f.at_ms);
    for (const r of run.op_rules)
      if (!fired.some((f) => f.fault_id === r.fault_id)) out.more.push(`note: step ${r.step}'s fault (${r.what}) never fired`);
    out.reached = observeReach({
      scenario,
      run,
      events: [...events].map(([event_id, e]) => ({ event_id, ...e })),
      fired: new Set(fired.map((f) => f.fault_id)),
      log: out.log,
      records: out.records,
    });

    // The judgement, most telling first.
    let finding: Finding | null = null;
    if (slow !== null) {
      const r = slow as RelayRecord;
      finding = {
        kind: 'slow_handler',
        headline: `handler exceeded ${r.latency_ms / 1000} s on event ${r.event_id} (${r.event_type}) without answering (latency limit ${s.latency_limit_ms / 1000} s; the provider gives up at ${DEFAULT_PROFILE.webhook_timeout_ms / 1000} s and retries); the run was ended there`,
        entity_type: 'webhook_delivery',
        entity_id: r.delivery_id,
        field: 'latency_ms',
        app: `> ${r.latency_ms}`,
        provider: `≤ ${s.latency_limit_ms}`,
        detail: [],
        event_ids: [r.event_id],
      };
    } else if (cut_by === 'run_limit') {
      const b = busy[0];
      finding = {
        kind: 'run_time_limit',
        headline: b
          ? `handler exceeded ${(b.elapsed_ms / 1000).toFixed(0)} s on event ${b.event_id} (${b.event_type}) when the run's wall-time limit (${s.run_time_limit_ms / 1000} s) was reached`
          : `the run exceeded its wall-time limit (${s.run_time_limit_ms / 1000} s) with no delivery in flight: the app's probe answers or its feed reads are too slow`,
        entity_type: 'run',
        entity_id: `run ${run_no}`,
        field: 'wall_ms',
        app: `> ${s.run_time_limit_ms}`,
        provider: `≤ ${s.run_time_limit_ms}`,
        detail: [],
        event_ids: b ? [b.event_id] : [],
      };
    }
    finding ??= (() => {
      const f = run.forged.find((x) => x.answered !== 401);
      return f
        ? {
            kind: 'forged_delivery',
            headline: `forged delivery accepted: ${f.forgery === 'unsigned' ? 'an unsigned' : `a ${f.forgery.replace('_', ' ')}`} delivery (step ${f.step}) was answered ${f.answered || 'nothing'}; the spec requires 401 and the event must not be applied`,
            entity_type: 'forged_delivery',
            entity_id: f.event_id,
            field: 'http_status',
            app: f.answered,
            provider: 401,
            detail: [],
            event_ids: [f.event_id],
          }
        : null;
    })();
    finding ??= (() => {
      const p = run.previous_secret.find((x) => x.record.status < 200 || x.record.status > 299);
      return p
        ? {
            kind: 'rotation_grace',
            headline: `a delivery signed with the previous secret just after a rotation (step ${p.step}) was answered ${p.record.status || 'nothing'}: the spec asks receivers to accept old and new secrets for at least 5 minutes after a rotation`,
            entity_type: 'webhook_delivery',
            entity_id: p.record.delivery_id,
            field: 'http_status',
            app: p.record.status,
            provider: '2xx',
            detail: [],
            event_ids: [p.record.event_id],
          }
        : null;
    })();
    finding ??= (() => {
      const p = run.stale.find((x) => x.record.status >= 200 && x.record.status <= 299);
      return p
        ? {
            kind: 'stale_timestamp',
            headline: `a correctly signed delivery with a ${p.when === 'stale' ? 'Svc-Timestamp 10 min old (a captured delivery replayed)' : 'Svc-Timestamp 10 min in the future'} (step ${p.step}) was answered ${p.record.status}: the spec recommends rejecting timestamps more than 5 minutes old or in the future`,
            entity_type: 'webhook_delivery',
            entity_id: p.record.delivery_id,
            field: 'Svc-Timestamp',
            app: p.record.status,
            provider: '4xx',
            detail: [],
            event_ids: [p.record.event_id],
          }
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
    if (finding === null && lane.catch_up !== undefined) {
      // In a batch, the batch's one sync (its runs never have API faults: those go alone).
      joined = true;
      finding = await lane.catch_up.join(() => judgeState(s, sim, run, expect));
    } else if (finding === null) {
      // A run with API faults keeps one on while the app catches up: its next feed read (the sync) meets a 429, so
      // retrying at once or giving up shows here; removed before verify reads the truth.
      // A 429 with Retry-After: the one answer whose right handling (wait as told, then retry) conduct can judge.
      const catch_up: string[] = [];
      if (run.api_rule_ids.length > 0)
        catch_up.push(
          (await sim.faults.add({ target: 'http', effect: apiEffect('429'), match: { method: 'GET', path: '/v1/events*' }, times: 1 }))
            .fault_id,
        );
      finding = await quietly(s, async () => {
        try {
          if (s.sync_supported !== false) s.sync_supported = await probe.sync(s.app_url);
        } finally {
          for (const id of catch_up) await sim.faults.remove(id);
        }
        return judgeState(s, sim, run, expect);
      });
    }
    if (finding === null && s.conduct_mode === 'fail') {
      const conduct = judgedConduct((await sim.conduct(app_key)).findings, lane.sentBefore);
      if (conduct.length > 0) {
        const c = conduct[0];
        finding = {
          // The message's wall-clock part (how many ms early) varies between replays: it goes in the detail, not the first line.
          kind: 'conduct',
          headline: `client conduct: ${c.kind}: ${CONDUCT_TEXT[c.kind] ?? c.kind} (requests ${c.request_ids.slice(0, 3).join(', ')}${c.request_ids.length > 3 ? ', …' : ''})`,
          entity_type: 'api_key',
          entity_id: `…${c.api_key_suffix}`,
          field: c.kind,
          app: c.message,
          provider: 'no finding',
          detail: conduct.map((x) => `${x.kind}: ${x.message}`),
          event_ids: [],
        };
      }
    }
    if (finding) {
      finding.event_ids = involvedEvents(finding, events, run);
      out.delivery_log = formatDeliveryLog(finding.event_ids, out.log, out.records, rel, relay.is_cut);
      for (const f of run.forged)
        if (finding.event_ids.includes(f.event_id))
          out.delivery_log = out.delivery_log.map((l) =>
            l.startsWith(`${f.event_id}:`)
              ? `${f.event_id}: forged by verify (${f.forgery}, step ${f.step}), posted straight to the app, answered ${f.answered || 'nothing'}`
              : l,
          );
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
    out.finding = {
      kind: 'error',
      headline: `the run could not complete: ${message}`,
      entity_type: 'run',
      entity_id: `run ${run_no}`,
      field: 'error',
      app: message,
      provider: null,
      detail: [],
      event_ids: [],
    };
    return out;
  } finally {
    if (!joined) lane.catch_up?.leave();
    out.wall_ms = Math.round(WALL.now_ms() - lane.started_ms);
    slot.on_slow = null;
    if (!lane.batched) await closeLane(s, sim, app_key, lane.sentBefore);
  }
}

/** An outcome before anything happened: not passed, nothing recorded. */
const blankOutcome = (): Outcome => ({
  ok: false,
  wall_ms: 0,
  interrupted: false,
  run: null,
  log: [],
  records: [],
  fired_background: [],
  delivery_log: [],
  more: [],
  reached: [],
});

export function errorOutcome(run_no: number, message: string): Outcome {
  return {
    ...blankOutcome(),
    finding: {
      kind: 'error',
      headline: `the run could not complete: ${message}`,
      entity_type: 'run',
      entity_id: `run ${run_no}`,
      field: 'error',
      app: message,
      provider: null,
      detail: [],
      event_ids: [],
    },
  };
}
