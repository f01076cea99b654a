// TEST FIXTURE, not a load tool. The worker side of the k6 double: the one VU this worker plays, its
// synchronous HTTP transport (Atomics.wait until the main thread has the reply, then
// receiveMessageOnPort), its sleep, and the samples it records. k6's module API is global (http.get
// takes no context), so this state is module-level by necessity; each worker has its own copy.
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { CheckTally, HttpReplyMsg, HttpRequestMsg, MetricType, Sample } from './protocol.ts';

export interface VuState {
  env: { [k: string]: string };
  vu_id: number;
  iteration: number;
  scenario: {
    name: string;
    executor: string;
    start_ms: number;
    iteration_in_test: number;
    progress: number;
    tags: { [k: string]: string };
  } | null;
  /** Tags every sample carries (the scenario's, and `scenario` itself). */
  tags: { [k: string]: string };
  samples: Sample[];
  checks: Map<string, CheckTally>;
  errors: string[];
  metric_types: Map<string, { type: MetricType; time: boolean }>;
  /** null: k6's default (200..399 expected); false: tagging disabled (setResponseCallback(null)). */
  expected: ((status: number) => boolean) | null | false;
  test_start_ms: number;
  transport: { port: MessagePort; flag: Int32Array } | null;
}

const state: { vu: VuState | null } = { vu: null };

export function installVu(vu: VuState): void {
  state.vu = vu;
}

export function vu(): VuState {
  if (!state.vu) throw new Error('k6 double: no VU installed (the double runs scripts only through its runner)');
  return state.vu;
}

export function registerMetric(name: string, type: MetricType, time: boolean): void {
  const known = vu().metric_types.get(name);
  if (known && known.type !== type) throw new Error(`metric ${name} already registered as a ${known.type}`);
  vu().metric_types.set(name, { type, time });
}

export function addSample(metric: string, type: MetricType, time: boolean, value: number, tags: { [k: string]: string } = {}): void {
  const v = vu();
  v.samples.push({ metric, type, time, value, tags: { ...v.tags, ...tags } });
}

/** Blocks this worker until the main thread answered the request: k6's http is synchronous. */
export function syncHttp(req: HttpRequestMsg): HttpReplyMsg {
  const t = vu().transport;
  if (!t) throw new Error('k6 double: no HTTP transport in this worker');
  Atomics.store(t.flag, 0, 0);
  t.port.postMessage(req);
  Atomics.wait(t.flag, 0, 0);
  // The flag only wakes this worker; the port's queue holds the reply. The main thread posts before it
  // sets the flag, yet one CI run (of many) woke to an empty queue (root cause not established): wait for
  // the reply itself, up to the request's own timeout, before calling it missing.
  let msg = receiveMessageOnPort(t.port);
  const give_up_ms = Date.now() + req.timeout_ms + REPLY_GRACE_MS;
  while (!msg && Date.now() < give_up_ms) {
    sleepMs(1);
    msg = receiveMessageOnPort(t.port);
  }
  if (!msg) throw new Error('k6 double: woke without a reply');
  return msg.message as HttpReplyMsg;
}

/** How long past the request's timeout a reply may still be on its way before the double gives up. */
const REPLY_GRACE_MS = 1_000;

const sleeper = new Int32Array(new SharedArrayBuffer(4));

export function sleepMs(ms: number): void {
  if (ms > 0) Atomics.wait(sleeper, 0, 0, ms);
}
