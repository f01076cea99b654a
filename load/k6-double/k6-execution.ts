// TEST FIXTURE, not a load tool: the double of `k6/execution` (scenario, vu, instance, test), read
// live from the worker's VU state through getters, as k6's values change per iteration.
import { vu } from './vu-runtime.ts';

export class AbortTest extends Error {}

const scenario = {
  get name() {
    return vu().scenario?.name ?? '';
  },
  get executor() {
    return vu().scenario?.executor ?? '';
  },
  get startTime() {
    return vu().scenario?.start_ms ?? 0;
  },
  get progress() {
    return vu().scenario?.progress ?? 0;
  },
  get iterationInInstance() {
    return vu().scenario?.iteration_in_test ?? 0;
  },
  get iterationInTest() {
    return vu().scenario?.iteration_in_test ?? 0;
  },
};

const vuInfo = {
  get idInInstance() {
    return vu().vu_id;
  },
  get idInTest() {
    return vu().vu_id;
  },
  get iterationInInstance() {
    return vu().iteration;
  },
  get iterationInScenario() {
    return vu().iteration;
  },
  get tags() {
    return vu().tags;
  },
};

const instance = {
  get currentTestRunDuration() {
    return Date.now() - vu().test_start_ms;
  },
  iterationsInterrupted: 0,
  iterationsCompleted: 0,
  vusActive: 1,
  vusInitialized: 1,
};

const test = {
  abort(message?: string): never {
    throw new AbortTest(message ?? 'test aborted');
  },
  fail(message?: string): void {
    vu().errors.push(`test.fail: ${message ?? ''}`);
  },
  get options() {
    return {};
  },
};

export default { scenario, vu: vuInfo, instance, test };
export { scenario, vuInfo as vu, instance, test };
