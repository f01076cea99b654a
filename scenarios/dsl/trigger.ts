// Triggers: one edge case of the scenario library run inside the caller's own organization (their API key,
// so their webhook and their event feed see it) on a swapsim already running, virtual or realtime clock. The
// case is the scenario's own `run(t)`: a scenario is "a new organization + the case", a trigger "yours + the case".
import type { ExpectationResult } from '../../reports/types.ts';
import { ExpectationFailed, ScenarioDsl, type EventEnvelope } from './dsl.ts';
import { formatOffset } from './duration.ts';
import { controlClient, errorCode, request } from '../../lib/http-client.ts';
import type { ControlBody, V1Body } from '../../lib/api-types.ts';
import type { Scenario } from './runner.ts';
import type { Target } from './target.ts';
import { WALL, type Wall } from '../../sim/wall.ts';

export interface TriggerOptions {
  /** The /v1 base URL, e.g. http://127.0.0.1:4010/v1. */
  base_url: string;
  /** The caller's API key: the case runs in the organization it belongs to. */
  api_key: string;
  /** The control plane (default `<origin of base_url>/_sim`). */
  control_url?: string;
  control_token?: string;
  /** An existing account to run in (default: a new one). */
  account_id?: string;
  /** Tags this run's Idempotency-Keys and generated addresses (default: from wall time, so every run is new). */
  seed?: string;
  wall?: Wall;
  /** Told each step line as the run records it (the dashboard streams them). */
  onStep?: (line: string) => void;
  /** Handed the run's cleanup (its fault rules removed) once it starts: a CLI calls it if interrupted. */
  onCleanup?: (cleanup: () => Promise<void>) => void;
}

/** An event of the run as the app sees it in GET /v1/events and on its webhook. */
export interface TriggerEvent {
  event_id: string;
  type: string;
  created_at_ms: number;
  account_id: string;
  /** The id the event is about (trade_id for trade.*, …), else the account. */
  subject_id: string;
  /** failure_code, flag_reason, status …: what tells the events of one entity apart. */
  detail?: string;
}

export interface TriggerRun {
  kind: 'trigger';
  name: string;
  summary: string;
  ok: boolean;
  error?: string;
  organization_id: string;
  clock_mode: 'virtual' | 'realtime';
  run_tag: string;
  started_sim_ms: number;
  ended_sim_ms: number;
  wall_ms: number;
  /** What it did, one line a step, with ✓/✗ for each check. */
  steps: string[];
  expectations: ExpectationResult[];
  /** The ids to look for, by kind: account, deposit, destination, trade, zap, cancel, recovery, webhook, … */
  ids: Record<string, string[]>;
  /** The events of the run's accounts since it began, oldest first. */
  events: TriggerEvent[];
}

/** A trigger that cannot run as asked (unknown server, key, missing setting): a usage error, exit 2. */
export class TriggerRefused extends Error {}

/** Why a scenario cannot be a trigger (as asked), or null. */
export function triggerRefusal(s: Scenario, opts: { account_id?: string } = {}): string | null {
  if (s.trigger?.unavailable) return `'${s.name}' is a scenario only: ${s.trigger.unavailable}`;
  if (opts.account_id && s.trigger?.fresh_account)
    return `'${s.name}' runs in a new account only (no --account): ${s.trigger.fresh_account}`;
  return null;
}

export const isTrigger = (s: Scenario): boolean => !s.trigger?.unavailable;

const detailOf = (data: Record<string, any>): string | undefined => {
  const parts = ['status', 'failure_code', 'flag_reason', 'flagged_by', 'leg', 'suspension_reason']
    .filter((k) => typeof data[k] === 'string')
    .map((k) => `${k}=${data[k]}`);
  return parts.length > 0 ? parts.join(' ') : undefined;
};

export function triggerEvent(e: EventEnvelope): TriggerEvent {
  const family = e.type.split('.')[0];
  const own = (e.data as Record<string, unknown>)[`${family}_id`];
  const detail = detailOf(e.data);
  return {
    event_id: e.event_id,
    type: e.type,
    created_at_ms: e.created_at_ms,
    account_id: e.account_id,
    subject_id: typeof own === 'string' ? own : e.account_id,
    ...(detail ? { detail } : {}),
  };
}

/** The caller's organization on a running swapsim: its id and settings (found by the key), the clock's mode. */
async function callerTarget(
  s: Scenario,
  o: TriggerOptions,
  run_tag: string,
): Promise<{ target: Target; org: ControlBody<'GET', '/organizations'>['organizations'][number] }> {
  let base: URL;
  try {
    base = new URL(o.base_url);
  } catch {
    throw new TriggerRefused(`not a URL: ${o.base_url}`);
  }
  const control_url = (o.control_url ?? `${base.origin}/_sim`).replace(/\/$/, '');
  const control = controlClient(control_url, o.control_token);
  const clock = await control.call('GET', '/clock');
  if (clock.status !== 200) {
    const why = clock.status === 0 ? clock.network_error : `${clock.status} ${errorCode(clock.body) ?? ''}`;
    throw new TriggerRefused(
      `the control plane at ${control_url} did not answer (${why}); a trigger lands deposits and adds fault rules through it (--control-url, --control-token)`,
    );
  }
  const v1 = await request(`${o.base_url.replace(/\/$/, '')}/assets?limit=1`, 'GET', undefined, { authorization: `Bearer ${o.api_key}` });
  if (v1.status !== 200)
    throw new TriggerRefused(
      `GET ${o.base_url}/assets with that API key answered ${v1.status} ${v1.network_error ?? errorCode(v1.body) ?? ''}`,
    );
  const orgs = await control.call('GET', '/organizations');
  const org = (orgs.body?.organizations ?? []).find((x) => (x.api_keys ?? [x.api_key]).includes(o.api_key));
  if (!org) throw new TriggerRefused('no organization of that server holds this API key');
  // Settings the case needs that only the organization's creator can give (the spec: "configured out of band").
  for (const [k, want] of Object.entries(s.org ?? {})) {
    const have = (org as Record<string, unknown>)[k];
    if (k === 'rate_limits' || want === undefined || have === want) continue;
    throw new TriggerRefused(
      `'${s.name}' needs an organization with ${k} ${JSON.stringify(want)}; ${org.organization_id} has ${JSON.stringify(have)} (a key of one that has it: POST /_sim/organizations {"${k}": ${JSON.stringify(want)}}${k === 'partner_screening' ? ', or swapsim serve --partner-screening' : ''})`,
    );
  }
  // A webhook case drives the app's own webhook: without one there is nothing to try it on.
  if (s.tags.includes('webhook')) {
    const hooks = await request<V1Body<'GET', '/webhooks'>>(`${o.base_url.replace(/\/$/, '')}/webhooks?limit=100`, 'GET', undefined, {
      authorization: `Bearer ${o.api_key}`,
    });
    if (!(hooks.body?.webhooks ?? []).some((w) => w.active)) {
      throw new TriggerRefused(
        `'${s.name}' drives your organization's webhook, and none is active: register one (POST /v1/webhooks), or run \`swapsim listen --forward-to URL\` beside it`,
      );
    }
  }
  // An organization with a clock of its own: every control call is scoped to its world, so the trigger's clock
  // steps (and jumps on a realtime clock) move only its time, and its faults and deposits land in its world.
  const own = (org as { clock?: { mode: string } }).clock;
  const target: Target = {
    mode: 'caller',
    base_url: o.base_url.replace(/\/$/, ''),
    control: own ? controlClient(control_url, o.control_token, org.organization_id) : control,
    organization_id: org.organization_id,
    api_key: o.api_key,
    clock_mode: (own ?? clock.body.clock).mode === 'realtime' ? 'realtime' : 'virtual',
    caller: { run_tag, ...(o.account_id ? { account_id: o.account_id } : {}) },
    close: async () => undefined,
  };
  return { target, org };
}

/**
 * Runs one edge case in the caller's organization. Throws TriggerRefused when it cannot start (bad URL or
 * key, a scenario-only case, a setting the organization lacks); a case that starts always gives a run.
 */
export async function runTrigger(s: Scenario, o: TriggerOptions): Promise<TriggerRun> {
  const refusal = triggerRefusal(s, o);
  if (refusal) throw new TriggerRefused(refusal);
  const wall = o.wall ?? WALL;
  const wall_start = wall.now_ms();
  // Wall time in base 36: a new tag every run, from the harness's one contact with wall time (wall.ts).
  const run_tag = o.seed ?? wall.now_ms().toString(36);
  const { target } = await callerTarget(s, o, run_tag);
  const t = new ScenarioDsl(target, s.name, wall);
  t.onStep = o.onStep;
  o.onCleanup?.(() => t.finish());
  let error: string | undefined;
  try {
    await t.begin();
    await s.run(t);
  } catch (err) {
    error = err instanceof ExpectationFailed ? err.message : `step failed: ${err instanceof Error ? err.message : String(err)}`;
    if (!(err instanceof ExpectationFailed)) t.note(`✗ ${error}`);
  }
  await t.finish();
  const events: TriggerEvent[] = [];
  for (const account_id of t.ids.get('account') ?? []) {
    try {
      events.push(...(await t.events({ account_id })).map(triggerEvent));
    } catch {
      /* the run's own error says what went wrong */
    }
  }
  events.sort((a, b) => a.created_at_ms - b.created_at_ms);
  const ended = await t.clockNow().catch(() => t.now_ms);
  return {
    kind: 'trigger',
    name: s.name,
    summary: s.summary,
    ok: error === undefined,
    ...(error ? { error } : {}),
    organization_id: target.organization_id,
    clock_mode: target.clock_mode ?? 'virtual',
    run_tag,
    started_sim_ms: t.started_ms,
    ended_sim_ms: ended,
    wall_ms: wall.now_ms() - wall_start,
    steps: t.steps,
    expectations: t.expectations,
    ids: Object.fromEntries([...t.ids].map(([k, v]) => [k, [...v]])),
    events,
  };
}

/** The run as a person reads it: what it did, the ids, the events the app should have seen, the verdict. */
export function formatTrigger(run: TriggerRun): string {
  const lines = [`trigger ${run.name} in ${run.organization_id} (${run.clock_mode} clock, run ${run.run_tag})`, `  ${run.summary}`, ''];
  for (const s of run.steps) lines.push(`  ${s.startsWith('✓') || s.startsWith('✗') ? '' : '» '}${s}`);
  lines.push('', 'ids:');
  const kw = Math.max(0, ...Object.keys(run.ids).map((k) => k.length));
  for (const [kind, ids] of Object.entries(run.ids)) lines.push(`  ${kind.padEnd(kw)}  ${ids.join(' ')}`);
  lines.push('', `events of these accounts since the start (${run.events.length}; your webhook and GET /v1/events get the same):`);
  const tw = Math.max(0, ...run.events.map((e) => e.type.length));
  for (const e of run.events)
    lines.push(
      `  ${formatOffset(e.created_at_ms - run.started_sim_ms).padEnd(14)} ${e.type.padEnd(tw)}  ${e.subject_id}  ${e.event_id}${e.detail ? `  ${e.detail}` : ''}`,
    );
  const passed = run.expectations.filter((x) => x.ok).length;
  lines.push(
    '',
    run.ok
      ? `ok: ${run.name} (${passed} checks passed, ${run.wall_ms} ms)`
      : `FAILED: ${run.name}: ${run.error} (${passed}/${run.expectations.length} checks passed)`,
  );
  return lines.join('\n');
}
