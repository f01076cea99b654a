// The fixed-rate cases' load generator: open loop at a constant arrival rate (as k6's
// constant-arrival-rate and wrk2 do). Request i is due at start + i / rate whatever happened to earlier
// ones, and its latency runs from that due time, so a stalled server or generator shows in the figures
// instead of hiding behind fewer sends (coordinated omission). autocannon's `overallRate` is not this: each
// connection sends its whole per-second share back to back at the top of every second, then pauses, and
// its correction then adds synthetic samples at a 1 ms interval to every answer slower than 1 ms.
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { runClient, type ClientLaunch, type MeasuringLine } from './client.ts';

export interface OpenLoopOptions {
  url: string;
  headers?: Record<string, string>;
  rate_per_s: number;
  duration_s: number;
  /** Keep-alive sockets; a request due while all are busy waits for one (and that wait counts). */
  connections: number;
}

export interface OpenLoopResult {
  /** Requests due in the run (rate × duration); all are sent. */
  sent: number;
  answered: number;
  non_2xx: number;
  /** Socket errors (no answer). */
  errors: number;
  status_codes: Record<string, number>;
  requests_per_s: number;
  latency_ms: { p50: number; p90: number; p99: number; p999: number; max: number };
  /** The generator's own worst lateness at sending (event-loop lag): a large value means the figures measure it. */
  max_send_lag_ms: number;
}

/** The q-quantile of sorted values (nearest rank). */
function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

const round = (x: number): number => Number(x.toFixed(2));

export async function openLoop(o: OpenLoopOptions): Promise<OpenLoopResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: o.connections });
  const total = Math.round(o.rate_per_s * o.duration_s);
  const interval_ms = 1000 / o.rate_per_s;
  const latencies = new Float64Array(total);
  const status_codes: Record<string, number> = {};
  let answered = 0;
  let non_2xx = 0;
  let errors = 0;
  let sent = 0;
  let done = 0;
  let max_send_lag_ms = 0;
  const target = new URL(o.url);
  const t0 = performance.now();

  return new Promise<OpenLoopResult>((resolve) => {
    const finish = (): void => {
      if (done < total) return;
      agent.destroy();
      const wall_s = (performance.now() - t0) / 1000;
      const got = latencies.subarray(0, answered).sort();
      resolve({
        sent,
        answered,
        non_2xx,
        errors,
        status_codes,
        requests_per_s: Math.round(answered / wall_s),
        latency_ms: {
          p50: round(quantile(got, 0.5)),
          p90: round(quantile(got, 0.9)),
          p99: round(quantile(got, 0.99)),
          p999: round(quantile(got, 0.999)),
          max: round(got.length ? got[got.length - 1] : 0),
        },
        max_send_lag_ms: round(max_send_lag_ms),
      });
    };
    const fire = (due_ms: number): void => {
      const req = request(
        { host: target.hostname, port: target.port, path: target.pathname + target.search, method: 'GET', headers: o.headers, agent },
        (res) => {
          const code = String(res.statusCode);
          status_codes[code] = (status_codes[code] ?? 0) + 1;
          if (res.statusCode! < 200 || res.statusCode! >= 300) non_2xx++;
          res.resume();
          res.on('end', () => {
            latencies[answered++] = performance.now() - due_ms;
            done++;
            finish();
          });
        },
      );
      req.on('error', () => {
        errors++;
        done++;
        finish();
      });
      req.end();
    };
    // A 1 ms timer sends every request that has come due since the last tick, each stamped with its own due time.
    const timer = setInterval(() => {
      const now = performance.now();
      const due = Math.min(total, Math.floor((now - t0) / interval_ms) + 1);
      if (sent < due) max_send_lag_ms = Math.max(max_send_lag_ms, now - (t0 + sent * interval_ms));
      while (sent < due) fire(t0 + sent++ * interval_ms);
      if (sent === total) clearInterval(timer);
    }, 1);
  });
}

const CHILD = fileURLToPath(new URL('./open-loop-child.ts', import.meta.url));

/**
 * `openLoop` run in a child process (open-loop-child.ts) after `warmup_s` of the same load there, started as
 * `how` says (client.ts); `onMeasuring` is called when the measured part starts (the bench samples the server's CPU time then).
 */
export function openLoopInChild(
  o: OpenLoopOptions & { warmup_s: number },
  onMeasuring?: (line: MeasuringLine) => void,
  how: ClientLaunch = { sched: 'normal' },
): Promise<OpenLoopResult> {
  return runClient<OpenLoopResult>(CHILD, { OPEN_LOOP_OPTIONS: JSON.stringify(o) }, how, onMeasuring);
}
