// Destination operations over the world: register (address format + screening), list, delete, the
// delta-screening suspend/reactivate, and the guard trades, zaps and cancels call before paying out.
import { entityStore, lifecycle, publish, statusOf, type MachineSnapshot } from '../../engine/index.ts';
import { defineStore, type World } from '../../world.ts';
import { ApiError } from '../../contract/errors.ts';
import { paginate, type Page } from '../../contract/pagination.ts';
import type { Violation } from '../../resource.ts';
import { requireAccount, requireOperable } from '../accounts/index.ts';
import { addressProblem, resolveAssetRef } from '../assets/index.ts';
import { screen } from '../screening/index.ts';
import { destinationMachine, type DestinationEffect, type DestinationEvent, type DestinationStatus } from './machine.ts';
import type { Organization } from '../../world.ts';
import type { ForgetScope } from '../../resource-records.ts';

const destinationLifecycle = lifecycle(destinationMachine);

export interface Destination {
  destination_id: string;
  org_id: string;
  account_id: string;
  asset_key: string;
  address: string;
  memo: string | null;
  tag: string | null;
  label: string | null;
  created_at_ms: number;
  seq: number;
  snapshot: MachineSnapshot<typeof destinationMachine>;
}

const destinationIdOf = (x: Destination): string => x.destination_id;

/** Deleted destinations stay here: in-flight trades that named them still resolve them. */
export const destinationStore = defineStore('destinations', () => entityStore<Destination>('dest', destinationIdOf));

export function destinationStatus(d: Destination): DestinationStatus {
  return statusOf(d.snapshot) as DestinationStatus;
}

function applyEffects(world: World, d: Destination, effects: DestinationEffect[]): void {
  for (const effect of effects) {
    const data: Record<string, unknown> = { destination_id: d.destination_id };
    if (effect.event_type === 'destination.suspended') {
      data.suspended_at_ms = d.snapshot.context.suspended_at_ms;
      data.suspension_reason = d.snapshot.context.suspension_reason;
    }
    publish(world, d.org_id, d.account_id, effect.event_type, data);
  }
}

function sendDestination(world: World, d: Destination, event: DestinationEvent): boolean {
  return destinationLifecycle.advance(world, d, d.destination_id, event, applyEffects);
}

export interface RegisterInput {
  asset_key?: string;
  symbol?: string;
  address: string;
  memo?: string;
  tag?: string;
  label?: string;
}

/** Every check runs before anything is stored: a refused registration leaves no destination behind. */
export function registerDestination(world: World, org_id: string, account_id: string, input: RegisterInput): Destination {
  const account = requireAccount(world, org_id, account_id);
  requireOperable(account, 'destination_registration');
  const asset = resolveAssetRef(world, org_id, { asset_key: input.asset_key, symbol: input.symbol }, { required: true });
  const problem = addressProblem(asset.chain, input.address);
  if (problem) throw new ApiError('invalid_parameter', `address is not valid for ${asset.asset_key}: ${problem}`, { param: 'address' });
  const flag_reason = screen(world, input.address);
  if (flag_reason) {
    throw new ApiError('destination_screening_failed', 'the destination address failed screening; no destination was created', {
      param: 'address',
      details: { flag_reason },
    });
  }
  const destination_id = world.newId('dest');
  const initial = destinationLifecycle.start<DestinationEffect>(world, destination_id, undefined);
  const d: Destination = {
    destination_id,
    org_id,
    account_id,
    asset_key: asset.asset_key,
    address: input.address,
    memo: input.memo ?? null,
    tag: input.tag ?? null,
    label: input.label ?? null,
    created_at_ms: world.sim.now_ms(),
    seq: world.nextSeq(),
    snapshot: initial.snapshot,
  };
  const store = destinationStore(world);
  store.byId.insert(d);
  applyEffects(world, d, initial.effects);
  return d;
}

/** Any destination ever registered, deleted ones included (for in-flight trades that named it). */
export function getDestinationRecord(world: World, destination_id: string): Destination | undefined {
  return destinationStore(world).byId.get(destination_id);
}

const notFound = (destination_id: string): ApiError =>
  new ApiError('destination_not_found', `no destination ${destination_id}`, { param: 'destination_id' });

/** A live (not deleted) destination of this account; 404 for unknown, deleted, or another account's. */
function requireLive(world: World, org_id: string, account_id: string, destination_id: string): Destination {
  const d = getDestinationRecord(world, destination_id);
  if (!d || d.org_id !== org_id || d.account_id !== account_id || destinationStatus(d) === 'deleted') throw notFound(destination_id);
  return d;
}

export function listDestinations(
  world: World,
  org_id: string,
  account_id: string,
  q: { asset_key?: string; limit?: number; cursor?: string },
): Page<Destination> {
  requireAccount(world, org_id, account_id);
  const items = destinationStore(world).list.filter(
    (d) => d.account_id === account_id && destinationStatus(d) !== 'deleted' && (q.asset_key === undefined || d.asset_key === q.asset_key),
  );
  return paginate(items, (d) => d.seq, { limit: q.limit, cursor: q.cursor });
}

export function deleteDestination(world: World, org_id: string, account_id: string, destination_id: string): Destination {
  requireAccount(world, org_id, account_id);
  const d = requireLive(world, org_id, account_id, destination_id);
  sendDestination(world, d, { type: 'DELETE' });
  return d;
}

/** Control plane: any organization's live destination by id. */
function requireLiveById(world: World, destination_id: string): Destination {
  const d = getDestinationRecord(world, destination_id);
  if (!d || destinationStatus(d) === 'deleted') throw notFound(destination_id);
  return d;
}

/**
 * Delta screening flagged the address. Idempotent: suspending a suspended destination keeps its first
 * suspended_at_ms and reason and fires no second event (the screening result has not changed).
 */
export function suspendDestination(world: World, destination_id: string, reason: string): Destination {
  const d = requireLiveById(world, destination_id);
  if (destinationStatus(d) === 'usable') sendDestination(world, d, { type: 'SUSPEND', reason, at_ms: world.sim.now_ms() });
  return d;
}

/** Delta screening cleared the address. Idempotent: reactivating a usable destination fires nothing. */
export function reactivateDestination(world: World, destination_id: string): Destination {
  const d = requireLiveById(world, destination_id);
  if (destinationStatus(d) === 'suspended') sendDestination(world, d, { type: 'REACTIVATE' });
  return d;
}

/**
 * The destination a trade, zap or cancel may pay out to: 404 destination_not_found (unknown, deleted,
 * another account's), 400 invalid_parameter when its asset is not `asset_key`, 403 destination_suspended.
 * The asset check comes first: that request is wrong whatever screening later decides.
 */
export function requireUsableDestination(
  world: World,
  org_id: string,
  account_id: string,
  destination_id: string,
  asset_key?: string,
): Destination {
  const d = requireLive(world, org_id, account_id, destination_id);
  if (asset_key !== undefined && d.asset_key !== asset_key) {
    throw new ApiError('invalid_parameter', `destination ${destination_id} is for ${d.asset_key}, not ${asset_key}`, {
      param: 'destination_id',
    });
  }
  if (destinationStatus(d) === 'suspended') {
    const { suspended_at_ms, suspension_reason } = d.snapshot.context;
    throw new ApiError(
      'destination_suspended',
      `destination ${destination_id} is suspended by delta screening; use another destination or wait for destination.reactivated`,
      {
        param: 'destination_id',
        details: { destination_id, suspended_at_ms, suspension_reason },
      },
    );
  }
  return d;
}

export function serializeDestination(d: Destination): Record<string, unknown> {
  return {
    destination_id: d.destination_id,
    asset_key: d.asset_key,
    address: d.address,
    memo: d.memo,
    tag: d.tag,
    label: d.label,
    suspended_at_ms: d.snapshot.context.suspended_at_ms,
    suspension_reason: d.snapshot.context.suspension_reason,
  };
}

/**
 * Suspension fields agree with each other and with the machine state, and the published
 * suspended/reactivated events alternate, starting with suspended, ending where the state is.
 */
export function destinationInvariants(world: World): Violation[] {
  const out: Violation[] = [];
  const eventsOf = new Map<string, Array<{ type: string; data: Record<string, unknown> }>>();
  for (const e of world.events.all) {
    const { type, data } = e.envelope;
    if (type !== 'destination.suspended' && type !== 'destination.reactivated') continue;
    const id = String(data.destination_id);
    if (!eventsOf.has(id)) eventsOf.set(id, []);
    eventsOf.get(id)!.push({ type, data });
  }
  for (const d of destinationStore(world).list) {
    const id = d.destination_id;
    const status = destinationStatus(d);
    const { suspended_at_ms, suspension_reason } = d.snapshot.context;
    const set = suspended_at_ms !== null;
    if (set !== (suspension_reason !== null)) {
      out.push({
        invariant: 'destinations.suspension_fields_paired',
        entity_id: id,
        message: 'suspended_at_ms and suspension_reason must be both null or both set',
      });
    }
    if ((status === 'usable' && set) || (status === 'suspended' && !set)) {
      out.push({
        invariant: 'destinations.suspension_matches_state',
        entity_id: id,
        message: `state ${status} but suspended_at_ms is ${suspended_at_ms}`,
      });
    }
    const events = eventsOf.get(id) ?? [];
    events.forEach((e, i) => {
      const expected = i % 2 === 0 ? 'destination.suspended' : 'destination.reactivated';
      if (e.type !== expected)
        out.push({ invariant: 'destinations.events_alternate', entity_id: id, message: `event ${i} is ${e.type}, expected ${expected}` });
    });
    const last = events[events.length - 1];
    if (status !== 'deleted' && (last?.type === 'destination.suspended') !== (status === 'suspended')) {
      out.push({
        invariant: 'destinations.events_match_state',
        entity_id: id,
        message: `state ${status} but the last event is ${last?.type ?? 'none'}`,
      });
    }
    if (
      status === 'suspended' &&
      last &&
      (last.data.suspended_at_ms !== suspended_at_ms || last.data.suspension_reason !== suspension_reason)
    ) {
      out.push({
        invariant: 'destinations.events_match_state',
        entity_id: id,
        message: 'the last destination.suspended event disagrees with the stored suspension',
      });
    }
  }
  return out;
}

/** A deleted organization: its destinations go. */
export function forgetOrganizationDestinations(world: World, org: Organization, scope: ForgetScope): void {
  const store = destinationStore(world);
  const mine = (d: Destination): boolean => d.org_id === org.organization_id;
  for (const d of store.list) if (mine(d)) scope.gone.add(d.destination_id);
  store.byId.retain((d) => !mine(d));
}
