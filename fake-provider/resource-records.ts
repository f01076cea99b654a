// What resources hand to the rest of the fake: invariant violations (/_sim/invariants, the oracle), history
// records (GET /accounts/{account_id}/history) and what a deleted organization's stores share. Plain data types
// that import nothing but World's type, so the route wrapper, the oracle and resource.ts use them without
// importing one another.
import type { World } from './world.ts';

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

/** A module that may contribute history records: what the history route reads of each resource (ctx.resources). */
export interface HistorySource {
  /** Terminal trades, zaps or cancels of one account, for the history endpoint. */
  history?(world: World, account_id: string): HistoryRecord[];
}

/** What a deleted organization's `forgetOrganization` calls share (DELETE /_sim/organizations/{id}). */
export interface ForgetScope {
  /** The organization's account ids, read before any store forgets (a trade names only its account). */
  readonly accounts: ReadonlySet<string>;
  /** Ids of the entities dropped: the engine then drops their transitions. */
  readonly gone: Set<string>;
}
