// A run's identity on the server it loads, through swapsim's control plane: RUN_ID is claimed once (an
// organization keyed `sk_k6_<RUN_ID>_run`; a second run with the same id is refused, since its
// Idempotency-Keys, external ids and split keys would replay the first run's), and a split run's leader
// announces when the phases start (`sk_k6_<RUN_ID>_start_<epoch ms>`); followers take only an announcement
// made after they began, never an earlier run's. Without a control plane nothing is recorded: an unset
// RUN_ID is fresh per run, a given one is trusted.
import { sleep } from 'k6';
import { createOrg, mustControl, type ControlInfo } from './control.ts';
import type { SegmentInfo } from './segment.ts';

const claimKey = (run_id: string): string => `sk_k6_${run_id}_run`;
const startPrefix = (run_id: string): string => `sk_k6_${run_id}_start_`;

/** Creates the run's claim; throws when the id was used on this server before. */
function claimRun(ctl: ControlInfo, run_id: string): void {
  const res = mustControlRaw(ctl, claimKey(run_id));
  if (res === 'taken') {
    throw new Error(
      `RUN_ID ${run_id} was already used on this server (the control plane at ${ctl.url} holds ${claimKey(run_id)}): give a new RUN_ID, or leave it unset on a single run`,
    );
  }
}

function mustControlRaw(ctl: ControlInfo, api_key: string): 'created' | 'taken' {
  try {
    createOrg(ctl, undefined, api_key, { must_be_new: true });
    return 'created';
  } catch (e) {
    if (e instanceof Error && /is taken/.test(e.message)) return 'taken';
    throw e;
  }
}

/** How long after its own setup the leader of a split run starts the phases: the followers' setup must end by then. */
const SPLIT_START_MARGIN_MS = 4000;

/** The leader: announces the phases' start, SPLIT_START_MARGIN_MS from now. */
function announceStart(ctl: ControlInfo, run_id: string): number {
  const start_ms = Date.now() + SPLIT_START_MARGIN_MS;
  createOrg(ctl, undefined, `${startPrefix(run_id)}${start_ms}`);
  return start_ms;
}

/**
 * A follower: the start its leader announced after `began_ms` (this follower's setup began), waiting up to
 * `wait_ms` (SPLIT_WAIT, 60 s) for it. An announcement from before is an earlier run's with the same RUN_ID (its leader was refused
 * this time): ignored, and the error says so.
 */
function awaitStart(ctl: ControlInfo, run_id: string, began_ms: number, wait_ms = 60_000): number {
  const prefix = startPrefix(run_id);
  let stale = 0;
  for (let i = 0; i === 0 || Date.now() - began_ms < wait_ms; i++) {
    const starts = (mustControl(ctl, 'GET', '/organizations').organizations as any[])
      .map((o) => String(o.api_key))
      .filter((k) => k.indexOf(prefix) === 0)
      .map((k) => Number(k.slice(prefix.length)));
    const fresh = starts.filter((t) => t > began_ms);
    stale = starts.length - fresh.length;
    if (fresh.length > 0) return Math.max(...fresh);
    sleep(0.5);
  }
  throw new Error(
    `split run: no start time from the leader after ${Math.round(wait_ms / 1000)} s (${prefix}…)${stale > 0 ? `; ${stale} from an earlier run with RUN_ID ${run_id} ignored: give every instance a new RUN_ID` : ''}`,
  );
}

/** Sleeps until `start_ms` (wall time). */
function sleepUntil(start_ms: number): void {
  const wait_ms = start_ms - Date.now();
  if (wait_ms > 0) sleep(wait_ms / 1000);
}

/** Where a run stands with the server: claimed (single runs and a split run's leader) or joined (followers). */
export interface RunJoin {
  /** When the follower's setup began (its leader's announcement must be later). */
  began_ms: number;
  /** The announced start, known to followers at once (they wait for it before making anything). */
  start_ms: number | null;
}

/**
 * First thing in setup: a single run or a leader claims RUN_ID; a follower waits for its leader's fresh
 * announcement (so everything the leader makes exists, and nothing of an earlier run is taken for it).
 */
export function joinRun(ctl: ControlInfo | null, run_id: string, seg: SegmentInfo, wait_ms = 60_000): RunJoin {
  const began_ms = Date.now();
  if (ctl === null) return { began_ms, start_ms: null };
  if (seg.leader) {
    claimRun(ctl, run_id);
    return { began_ms, start_ms: null };
  }
  return { began_ms, start_ms: awaitStart(ctl, run_id, began_ms, wait_ms) };
}

/** Last thing in setup: the leader announces the start, everyone sleeps until it. Null when not split or no control plane. */
export function startTogether(ctl: ControlInfo | null, run_id: string, seg: SegmentInfo, join: RunJoin): number | null {
  if (ctl === null || seg.segment === null) return null;
  const start_ms = seg.leader ? announceStart(ctl, run_id) : join.start_ms!;
  sleepUntil(start_ms);
  return start_ms;
}
