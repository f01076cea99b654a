// Reading zaps as the wire shows them: one zap (404 across organizations), the list newest first, the
// created and full bodies with poll_after_ms, list items, and the account history's zap records.
import type { World } from '../../world.ts';
import { ApiError } from '../../contract/errors.ts';
import { paginate, type Page } from '../../contract/pagination.ts';
import type { HistoryRecord } from '../../resource.ts';
import { serializeDepositAddress } from '../deposits/index.ts';
import { pollAfterMs, serializeSettlement, settlementSummary } from '../execution/index.ts';
import { serializeFees } from '../pricing/index.ts';
import type { ZapStatus } from './machine.ts';
import { isTerminal, zapStatus, zapStore, type Zap } from './model.ts';

/** The zap if it belongs to the org; otherwise 404 zap_not_found (ids are globally unique). */
export function requireZap(world: World, org_id: string, zap_id: string): Zap {
  const z = zapStore(world).byId.get(zap_id);
  if (!z || z.org_id !== org_id) throw new ApiError('zap_not_found', `no zap ${zap_id}`, { param: 'zap_id' });
  return z;
}

export function listZaps(
  world: World,
  org_id: string,
  q: { account_id?: string; status?: ZapStatus; limit?: number; cursor?: string },
): Page<Zap> {
  const items: Zap[] = [];
  const all = zapStore(world).list;
  for (let i = all.length - 1; i >= 0; i--) {
    const z = all[i];
    if (z.org_id !== org_id || (q.account_id !== undefined && z.account_id !== q.account_id)) continue;
    if (q.status !== undefined && zapStatus(world, z) !== q.status) continue;
    items.push(z);
  }
  return paginate(items, (z) => z.seq, { limit: q.limit, cursor: q.cursor, order: 'desc' });
}

/** Until the next scheduled step; while awaiting a deposit, the source chain's finality time (bounded by the profile). */
function pollAfter(world: World, z: Zap): number {
  if (z.swap) return pollAfterMs(world, z.swap);
  const { min, max } = world.profile.poll_after_ms;
  const t = world.profile.chains[z.from.chain];
  return Math.max(min, Math.min(max, t.block_ms * t.finality_confirmations));
}

/** POST /zaps answers the fields the spec lists for each starting status (plus client_zap_id, nullable). */
export function serializeCreated(world: World, z: Zap): Record<string, unknown> {
  const out: Record<string, unknown> = {
    zap_id: z.zap_id,
    status: zapStatus(world, z),
    client_zap_id: z.client_zap_id,
    requested_amount_in_atoms: z.requested_amount_in_atoms.toString(),
  };
  if (z.deposit_address) out.deposit_address = serializeDepositAddress(z.deposit_address);
  out.poll_after_ms = pollAfter(world, z);
  return out;
}

/** GET /zaps/{zap_id}: every Zap field that applies now. */
export function serializeZap(world: World, z: Zap): Record<string, unknown> {
  const status = zapStatus(world, z);
  const out: Record<string, unknown> = { zap_id: z.zap_id, account_id: z.account_id, status, client_zap_id: z.client_zap_id };
  if (z.expires_at_ms !== null) out.expires_at_ms = z.expires_at_ms;
  out.requested_amount_in_atoms = z.requested_amount_in_atoms.toString();
  if (z.observed_amount_in_atoms !== null) out.observed_amount_in_atoms = z.observed_amount_in_atoms.toString();
  out.from_asset_key = z.from.asset_key;
  out.to_asset_key = z.to.asset_key;
  out.created_at_ms = z.created_at_ms;
  if (status === 'awaiting_deposit' && z.deposit_address) out.deposit_address = serializeDepositAddress(z.deposit_address);
  if (z.snapshot.context.failure_code !== null) out.failure_code = z.snapshot.context.failure_code;
  if (z.recovery) out.recovery = { ...z.recovery };
  if (z.swap?.settlement) out.settlement = serializeSettlement(world, z.swap.settlement);
  if (z.fees) out.fees = serializeFees(z.fees);
  if (!isTerminal(world, z)) out.poll_after_ms = pollAfter(world, z);
  return out;
}

export function serializeZapItem(world: World, z: Zap): Record<string, unknown> {
  return {
    zap_id: z.zap_id,
    account_id: z.account_id,
    status: zapStatus(world, z),
    client_zap_id: z.client_zap_id,
    requested_amount_in_atoms: z.requested_amount_in_atoms.toString(),
    from_asset_key: z.from.asset_key,
    to_asset_key: z.to.asset_key,
    created_at_ms: z.created_at_ms,
  };
}

/** Fees of a zap that never got an amount to price: the rates it was created with, no atoms. */
function unpricedFees(z: Zap): Record<string, string> {
  return { ...z.fee_rates, platform_atoms: '0', integrator_atoms: '0', total_atoms: '0' };
}

/** Terminal zaps of one account as history records (spec: History records → zap). */
export function zapHistory(world: World, account_id: string): HistoryRecord[] {
  const out: HistoryRecord[] = [];
  for (const z of zapStore(world).list) {
    if (z.account_id !== account_id || !isTerminal(world, z)) continue;
    const status = zapStatus(world, z);
    const body: Record<string, unknown> = {
      type: 'zap',
      status,
      created_at_ms: z.created_at_ms,
      zap_id: z.zap_id,
      client_zap_id: z.client_zap_id,
      from_asset_key: z.from.asset_key,
      to_asset_key: z.to.asset_key,
      // What was (or would have been) executed: the swap's input, else the observed, else the requested amount.
      amount_in_atoms: (z.swap?.amount_in_atoms ?? z.observed_amount_in_atoms ?? z.requested_amount_in_atoms).toString(),
      amount_out_atoms: (z.swap?.amount_out_atoms ?? 0n).toString(),
      requested_amount_in_atoms: z.requested_amount_in_atoms.toString(),
    };
    if (z.observed_amount_in_atoms !== null) body.observed_amount_in_atoms = z.observed_amount_in_atoms.toString();
    body.fees = z.fees ? serializeFees(z.fees) : unpricedFees(z);
    if (z.swap?.settlement) body.settlement = settlementSummary(world, z.swap.settlement);
    if (z.swap?.settled_at_ms != null) body.settled_at_ms = z.swap.settled_at_ms;
    if (z.snapshot.context.failure_code !== null) body.failure_code = z.snapshot.context.failure_code;
    out.push({ type: 'zap', status, created_at_ms: z.created_at_ms, seq: z.seq, asset_keys: [z.from.asset_key, z.to.asset_key], body });
  }
  return out;
}
