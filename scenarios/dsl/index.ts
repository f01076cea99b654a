// The scenario DSL: what scenario scripts and the CLI import.
export {
  ScenarioDsl,
  ExpectationFailed,
  StepFailed,
  REALTIME_WAIT_MAX_MS,
  ofType,
  type DepositResult,
  type Entities,
  type EventEnvelope,
  type Pollable,
  type QuoteRequest,
} from './dsl.ts';
export { runScenario, runBatch, type Scenario, type RunOptions } from './runner.ts';
export { openTarget, type CallerContext, type OrgOptions, type RemoteTarget, type Target } from './target.ts';
export { parseDuration, formatOffset } from './duration.ts';
export { formatRun, formatEntry } from './format.ts';
export {
  apiClient,
  controlClient,
  errorCode,
  errorOf,
  request,
  type ApiClient,
  type CallOptions,
  type ControlClient,
  type Reply,
} from '../../lib/http-client.ts';
export { WALL, type Wall } from '../../sim/wall.ts';
export * from './assets.ts';
export {
  runTrigger,
  formatTrigger,
  triggerRefusal,
  isTrigger,
  triggerEvent,
  TriggerRefused,
  type TriggerOptions,
  type TriggerRun,
  type TriggerEvent,
} from './trigger.ts';
