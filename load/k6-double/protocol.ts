// TEST FIXTURE, not a load tool. The messages between the double's runner (main thread, which owns
// the sockets) and its workers (one per k6 VU-like task, running the bundled script synchronously).

export type MetricType = 'counter' | 'gauge' | 'rate' | 'trend';

export interface Sample {
  metric: string;
  type: MetricType;
  /** Trends made with isTime: values are milliseconds. */
  time: boolean;
  value: number;
  tags: { [tag: string]: string };
}

export interface HttpRequestMsg {
  method: string;
  url: string;
  body: string | null;
  headers: { [h: string]: string };
  timeout_ms: number;
}

export interface HttpReplyMsg {
  status: number;
  body: string;
  headers: { [h: string]: string };
  duration_ms: number;
  error: string;
  error_code: number;
  url: string;
}

export interface CheckTally {
  name: string;
  passes: number;
  fails: number;
}

export type WorkerTask =
  | { kind: 'options' }
  | { kind: 'setup' }
  | { kind: 'scenario'; name: string; config: { [k: string]: unknown }; setup_data: unknown; vu_id: number }
  | { kind: 'teardown'; setup_data: unknown }
  | { kind: 'summary'; data: unknown };

export interface WorkerResult {
  value: unknown;
  samples: Sample[];
  checks: CheckTally[];
  errors: string[];
  /** exec.test.abort() was called: the message. */
  aborted: string | null;
}
