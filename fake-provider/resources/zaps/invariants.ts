// The zap invariants: fee arithmetic and what a zap did to its credit at each outcome.
import type { World } from '../../world.ts';
import type { Violation } from '../../resource.ts';
import { creditForSource, creditHolder, creditSnapshot, creditStatus, creditStore } from '../credits/index.ts';
import { zapState, zapStore, type Zap } from './model.ts';

/**
 * Per zap: fee arithmetic; a running zap holds its credit; a failed zap never consumed its credit and no
 * longer holds it; a zap that never executed (mismatch, flag…) never touched the deposit's credit; a
 * settled zap consumed its credit, made a settlement credit of amount_out, and change + amount_in = source.
 */
export function zapInvariants(world: World): Violation[] {
  const out: Violation[] = [];
  const { byId: credits } = creditStore(world);
  const madeBy = (type: string, id: string) => creditForSource(world, type, id);
  const bad = (invariant: string, z: Zap, message: string) => out.push({ invariant: `zaps.${invariant}`, entity_id: z.zap_id, message });
  for (const z of zapStore(world).list) {
    const f = z.fees;
    if (f && f.total_atoms !== f.platform_atoms + f.integrator_atoms) bad('fees_total', z, 'total_atoms != platform + integrator');
    const state = zapState(z);
    const source = z.credit_id === null ? undefined : credits.get(z.credit_id);
    const holder = source ? creditHolder(source) : null;
    const consumedByZap = (source && creditSnapshot(source).context.consumed_by) === z.zap_id;
    if (state === 'awaiting_deposit' && (z.swap || !z.deposit_address))
      bad('awaiting_deposit', z, 'awaiting a deposit without a deposit address, or already executing');
    if (!z.swap) {
      if (holder === z.zap_id || consumedByZap)
        bad('unexecuted_leaves_credit', z, `zap never executed but holds or consumed ${z.credit_id}`);
      continue;
    }
    if (!source || source.credit_id !== z.swap.credit_id) {
      bad('source_credit', z, 'executing zap without its source credit');
      continue;
    }
    if (state === 'executing' || state === 'filled' || state === 'pending_settle') {
      if (holder !== z.zap_id || creditStatus(source) !== 'open')
        bad('running_holds_credit', z, `${state} zap does not hold its open credit`);
    } else if (state === 'failed') {
      if (consumedByZap) bad('failed_leaves_credit_open', z, 'failed zap consumed its credit');
      if (holder === z.zap_id) bad('failed_releases_credit', z, 'failed zap still holds its credit');
    } else if (state === 'settled' || state === 'settled_orphaned') {
      if (!consumedByZap) bad('settled_consumes_credit', z, 'settled zap did not consume its source credit');
      const settlement = madeBy('trade_settlement', z.zap_id);
      const change = madeBy('change', z.zap_id);
      if (!settlement || settlement.atoms !== z.swap.amount_out_atoms || settlement.asset_key !== z.to.asset_key)
        bad('settlement_credit', z, 'settlement credit missing or != amount_out');
      if ((change?.atoms ?? 0n) + z.swap.amount_in_atoms !== source.atoms) bad('change_plus_in', z, 'change + amount_in != source atoms');
    }
  }
  return out;
}
