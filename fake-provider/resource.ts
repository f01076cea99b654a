// What a resource folder exports through its index.ts: its /v1 routes, its control-plane routes, a hook
// run when a world is created, and the invariants it can check over a world.
import type { AnyRoute } from './http/api.ts';
import type { Organization, World } from './world.ts';

export interface Violation {
  invariant: string;
  entity_id?: string;
  message: string;
}

/** One enriched record of GET /accounts/{account_id}/history (spec: History records). */
export interface HistoryRecord {
  type: 'trade' | 'zap' | 'cancel';
  status: string;
  created_at_ms: number;
  /** World sequence number of the underlying entity, for cursors (not serialized). */
  seq: number;
  /** Asset keys the record touches (`asset_key` filter matches either side). */
  asset_keys: string[];
  /** The record exactly as the spec shows it. */
  body: Record<string, unknown>;
}

export interface ResourceModule {
  name: string;
  routes?: AnyRoute[];
  /** Mounted under /_sim; declared with `auth: 'public'` (the control gate guards the whole prefix). */
  control?: AnyRoute[];
  install?(world: World): void;
  invariants?(world: World): Violation[];
  /** Drops what the resource keeps for a deleted organization (DELETE /_sim/organizations/{id}). */
  forgetOrganization?(world: World, org: Organization, scope: ForgetScope): void;
  /** Terminal trades, zaps or cancels of one account, for the history endpoint. */
  history?(world: World, account_id: string): HistoryRecord[];
}

/** What a deleted organization's `forgetOrganization` calls share. */
export interface ForgetScope {
  /** The organization's account ids, read before any store forgets (a trade names only its account). */
  readonly accounts: ReadonlySet<string>;
  /** Ids of the entities dropped: the engine then drops their transitions. */
  readonly gone: Set<string>;
}
