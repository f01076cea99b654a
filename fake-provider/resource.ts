// What a resource folder exports through its index.ts: its /v1 routes, its control-plane routes, a hook
// run when a world is created, and the invariants it can check over a world.
import type { AnyRoute } from './contract/route.ts';
import type { Organization, World } from './world.ts';
import type { ForgetScope, HistorySource, Violation } from './resource-records.ts';

export type { HistoryRecord, Violation } from './resource-records.ts';

export interface ResourceModule extends HistorySource {
  name: string;
  routes?: AnyRoute[];
  /** Mounted under /_sim; declared with `auth: 'public'` (the control gate guards the whole prefix). */
  control?: AnyRoute[];
  install?(world: World): void;
  invariants?(world: World): Violation[];
  /** Drops what the resource keeps for a deleted organization (DELETE /_sim/organizations/{id}). */
  forgetOrganization?(world: World, org: Organization, scope: ForgetScope): void;
}
