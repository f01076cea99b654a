// The spec oracle: invariants written from api-v1.md and design.md over what an integrator can see
// (observe.ts), checked by /_sim/invariants and so by every property test, createSim and swapsim verify.
import type { World } from '../world.ts';
import type { Violation } from '../resource.ts';
import { observe } from './observe.ts';
import { specViolations } from './checks.ts';
import { idempotencyViolations } from './idempotency-ledger.ts';

export { observe, type Observed } from './observe.ts';
export { specViolations, SPEC_CHECKS } from './checks.ts';
export { edgeSet, StatusWalk } from './spec-lifecycles.ts';

export function checkSpec(world: World): Violation[] {
  return [...specViolations(observe(world)), ...idempotencyViolations(world)];
}
