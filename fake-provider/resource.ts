// What a resource folder exports through its index.ts: its /v1 routes, its control-plane routes, a hook
// run when a world is created, and the invariants it can check over a world.
import type { AnyRoute } from './http/api.ts';
import type { World } from './world.ts';

export interface Violation {
  invariant: string;
  entity_id?: string;
  message: string;
}

export interface ResourceModule {
  name: string;
  routes?: AnyRoute[];
  /** Mounted under /_sim; declared with `auth: 'public'` (the control gate guards the whole prefix). */
  control?: AnyRoute[];
  install?(world: World): void;
  invariants?(world: World): Violation[];
}
