// Runs scenarios: a target per scenario (fresh in-process server, or a fresh org on a running swapsim),
// the script, then the server's timeline merged with the script's steps and expectations, and the
// client-conduct findings for the scenario's key, as a `ScenarioRun` (reports/types.ts).
import type { ConductFinding, ScenarioBatch, ScenarioRun, TimelineEntry } from '../../reports/types.ts';
import { ExpectationFailed, ScenarioDsl } from './dsl.ts';
import { openTarget, type OrgOptions, type RemoteTarget, type Target } from './target.ts';
import { WALL, type Wall } from '../../sim/wall.ts';

export interface Scenario {
  /** kebab-case, unique in the registry. */
  name: string;
  summary: string;
  tags: string[];
  /** Settings of the organization the scenario runs in (partner screening, rate limits, …). */
  org?: OrgOptions;
  /**
   * How `swapsim trigger` may run it in the caller's organization (scenarios/dsl/trigger.ts); default: it
   * may, in a new account or the one `--account` names. `unavailable`: why it is not a trigger;
   * `fresh_account`: why it refuses `--account` (it does something irreversible to the account).
   */
  trigger?: { unavailable?: string; fresh_account?: string };
  run(t: ScenarioDsl): Promise<void>;
}

export interface RunOptions {
  /** Seed of the in-process server (ignored against a running swapsim, whose seed is its own). */
  seed?: string;
  remote?: RemoteTarget;
  /** Wall time for wall_ms, started_at and Retry-After waits (tests may pass their own). */
  wall?: Wall;
}

/** Steps go before what they cause at the same sim time; expectations after what they check. */
const RANK: Record<TimelineEntry['kind'], number> = { step: 0, transition: 1, event: 2, fault: 3, delivery: 4, expectation: 5 };

function merge(server: TimelineEntry[], own: TimelineEntry[]): TimelineEntry[] {
  return [...own, ...server].sort((a, b) => a.sim_ms - b.sim_ms || RANK[a.kind] - RANK[b.kind]);
}

async function serverTimeline(target: Target, since_ms: number, unnamed_ids: Set<string>): Promise<TimelineEntry[]> {
  // On a shared server, only this scenario's organization (plus the ids its events never name, as many
  // as fit the query); in process the whole (fresh) world.
  let ids = '';
  for (const id of unnamed_ids) if (ids.length + id.length < 2_000) ids += `${ids ? ',' : ''}${id}`;
  const scope =
    target.mode === 'remote' ? `&organization_id=${target.organization_id}${ids ? `&entity_id=${encodeURIComponent(ids)}` : ''}` : '';
  const r = await target.control.call('GET', `/timeline?since_ms=${since_ms}${scope}`);
  // /_sim/timeline declares no response schema: its rows are reports/types.ts's TimelineEntry.
  return r.status === 200 ? (r.body as { timeline: TimelineEntry[] }).timeline : [];
}

async function conductOf(target: Target): Promise<ConductFinding[]> {
  const r = await target.control.call('GET', `/conduct?api_key=${encodeURIComponent(target.api_key)}`);
  if (r.status !== 200) return [];
  type Finding = { kind: ConductFinding['kind']; api_key_suffix: string; message: string; request_ids?: string[] };
  return ((r.body as { conduct: { findings?: Finding[] } }).conduct.findings ?? []).map((f) => ({
    api_key: f.api_key_suffix,
    kind: f.kind,
    detail: f.message,
    request_ids: f.request_ids ?? [],
  }));
}

export async function runScenario(s: Scenario, opts: RunOptions = {}): Promise<ScenarioRun> {
  const seed = opts.seed ?? '1';
  const wall = opts.wall ?? WALL;
  const wall_start = wall.now_ms();
  const base = {
    kind: 'scenario' as const,
    name: s.name,
    summary: s.summary,
    tags: s.tags,
    seed: opts.remote ? `remote:${opts.remote.base_url}` : seed,
  };
  let target: Target;
  try {
    target = await openTarget({ seed, remote: opts.remote }, s.org);
  } catch (err) {
    const error = `could not start: ${err instanceof Error ? err.message : String(err)}`;
    return {
      ...base,
      ok: false,
      error,
      started_sim_ms: 0,
      ended_sim_ms: 0,
      wall_ms: wall.now_ms() - wall_start,
      steps: [],
      timeline: [],
      expectations: [],
      conduct: [],
    };
  }
  const t = new ScenarioDsl(target, s.name, wall);
  let error: string | undefined;
  try {
    await t.begin();
    await s.run(t);
    if (t.expectations.length === 0) error = 'the scenario checked nothing (no expectation ran)';
  } catch (err) {
    error = err instanceof ExpectationFailed ? err.message : `step failed: ${err instanceof Error ? err.message : String(err)}`;
    if (!(err instanceof ExpectationFailed)) t.note(`✗ ${error}`);
  }
  try {
    // Read before finish(): it removes the scenario's fault rules, whose effects the timeline names.
    const timeline = merge(await serverTimeline(target, t.started_ms, t.unnamed_ids), t.entries);
    const conduct = await conductOf(target);
    await t.finish();
    return {
      ...base,
      ok: error === undefined,
      ...(error ? { error } : {}),
      started_sim_ms: t.started_ms,
      ended_sim_ms: t.now_ms,
      wall_ms: wall.now_ms() - wall_start,
      steps: t.steps,
      timeline,
      expectations: t.expectations,
      conduct,
    };
  } finally {
    await target.close();
  }
}

/** Runs the scenarios one after another (they share nothing; a remote server's clock is shared). */
export async function runBatch(
  list: Scenario[],
  opts: RunOptions & { onRun?: (run: ScenarioRun, index: number) => void } = {},
): Promise<ScenarioBatch> {
  const started_at = new Date((opts.wall ?? WALL).now_ms()).toISOString();
  const runs: ScenarioRun[] = [];
  for (const s of list) {
    const run = await runScenario(s, opts);
    runs.push(run);
    opts.onRun?.(run, runs.length);
  }
  const passed = runs.filter((r) => r.ok).length;
  return {
    kind: 'scenario-batch',
    seed: opts.remote ? `remote:${opts.remote.base_url}` : (opts.seed ?? '1'),
    started_at,
    passed,
    failed: runs.length - passed,
    runs,
  };
}
