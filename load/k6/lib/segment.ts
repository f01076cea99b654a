// Which share of a distributed run this k6 instance plays (`--execution-segment`, k6-operator's
// `parallelism`): k6 splits every phase's rate and VUs itself; the scripts only need to know whether they
// are split, and which instance leads (creates what must exist once: deposits, fault rules, conduct reads).
// `k6/execution`'s test.options is not readable in the init context (k6 v0.48 panics there): setup and VU code only.
import exec from 'k6/execution';

export interface SegmentInfo {
  /** `0:1/2` and the like; null when the run is not split. */
  segment: string | null;
  /** The instance whose segment starts at 0 (or the only one). */
  leader: boolean;
}

export function segmentInfo(): SegmentInfo {
  const o = (exec.test && (exec.test.options as { executionSegment?: unknown })) || {};
  const raw = o.executionSegment;
  const segment = typeof raw === 'string' && raw !== '' && raw !== '0:1' ? raw : null;
  return { segment, leader: segment === null || /^0(\.0*)?:/.test(segment) || /^0%?:/.test(segment) };
}

/**
 * The run id every instance of a split run must share (Idempotency-Keys, the API keys made for it): RUN_ID,
 * or a fresh one when the run is not split. A split run without RUN_ID cannot share keys: an error.
 */
export function sharedRunId(run_id: string, seg: SegmentInfo): string {
  if (run_id !== '') return run_id;
  if (seg.segment !== null)
    throw new Error(
      `a split run (execution segment ${seg.segment}) needs the same -e RUN_ID=... on every instance, so that they share API keys and fixtures`,
    );
  return `k6${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
}
