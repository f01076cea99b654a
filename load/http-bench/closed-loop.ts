// The closed-loop cases' load generator: autocannon (a fixed number of connections, each sending its next
// request when the last is answered) in a process of its own (closed-loop-child.ts), started like every
// generator (client.ts) so that each case, baseline or swapsim, is measured by the same client the same way.
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import { type ClientLaunch, type MeasuringLine, type ownSched, runClient } from './client.ts';
import type { FundedAccount } from './setup.ts';

/** One run's figures, whichever generator measured it. */
export interface RunFigures {
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  answered: number;
  non_2xx: number;
  /** Socket errors + timeouts + body mismatches. */
  transport_errors: number;
  status_codes: Record<string, number>;
}

export function fromAutocannon(r: autocannon.Result): RunFigures {
  const status_codes: Record<string, number> = {};
  for (const [code, s] of Object.entries(r.statusCodeStats ?? {})) status_codes[code] = s?.count ?? 0;
  return {
    requests_per_s: r.requests.average,
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    answered: r.requests.total,
    non_2xx: r.non2xx,
    transport_errors: r.errors + r.timeouts + r.mismatches,
    status_codes,
  };
}

export interface ClosedLoopOptions {
  url: string;
  connections: number;
  duration_s: number;
  /** Untimed load first, in the same process (its answers still count in `warm`). */
  warmup_s: number;
  /** One request, repeated (method, headers, body; `expectBody` turns any other answer into a mismatch). */
  request?: Pick<autocannon.Options, 'method' | 'headers' | 'body' | 'expectBody'>;
  /** The mixed lifecycle (mixed.ts) over these accounts and their open credits, sent with this key. */
  mixed?: { accounts: FundedAccount[]; api_key: string };
  /** The server's pid: the generator reads its CPU time and preemptions from /proc around the measured run. */
  server_pid?: number;
}

export interface ClosedLoopResult {
  warm?: RunFigures;
  run: RunFigures;
  /** The generator's own CPU time per answer of the measured run. */
  client_cpu_us_per_request: number;
  /** The scheduling the generator ran under, as its kernel reported it (client.ts ownSched). */
  sched: ReturnType<typeof ownSched>;
  /** The server's CPU time and preemptions over the measured run (from /proc; absent without it). */
  server_cpu_ms?: number;
  server_preemptions?: number;
  /** The mixed case's pool after both runs (credits still open) and its counts. */
  mixed?: { accounts: FundedAccount[]; exhausted: number; cycles: number };
}

const CHILD = fileURLToPath(new URL('./closed-loop-child.ts', import.meta.url));

/**
 * Several cases of a round measured by one generator process: all warm-ups first, then the measured runs back to
 * back in the order given (the two sides of a pair a few milliseconds apart); one result per case, in order.
 */
export function closedLoopInChild(
  runs: ClosedLoopOptions[],
  how: ClientLaunch,
  onMeasuring?: (line: MeasuringLine) => void,
): Promise<ClosedLoopResult[]> {
  return runClient<ClosedLoopResult[]>(CHILD, { CLOSED_LOOP_OPTIONS: JSON.stringify(runs) }, how, onMeasuring);
}
