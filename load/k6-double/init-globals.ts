// TEST FIXTURE, not a load tool. Imported first by every bundle the double runs, so k6's globals
// (__ENV, __VU, __ITER) and the VU state exist before the script's init context evaluates.
import { workerData, type MessagePort } from 'node:worker_threads';
import { installVu } from './vu-runtime.ts';

interface WorkerInit {
  env: { [k: string]: string };
  vu_id: number;
  test_start_ms: number;
  port: MessagePort;
  flag: SharedArrayBuffer;
}

const init = workerData as WorkerInit;
installVu({
  env: init.env,
  vu_id: init.vu_id,
  iteration: 0,
  scenario: null,
  tags: {},
  samples: [],
  checks: new Map(),
  errors: [],
  metric_types: new Map(),
  expected: null,
  test_start_ms: init.test_start_ms,
  transport: { port: init.port, flag: new Int32Array(init.flag) },
});
const g = globalThis as unknown as { __ENV: unknown; __VU: number; __ITER: number };
g.__ENV = init.env;
g.__VU = init.vu_id;
g.__ITER = 0;
