// Cancel invariants (design.md, Invariants): a confirmed cancel consumed its credit, a failed one left it
// open, an in-flight one holds it alone; cancel.created once, and exactly one terminal event once terminal.
import type { World } from '../../world.ts';
import type { Violation } from '../../resource.ts';
import { creditHolder, creditSnapshot, creditStatus, creditStore } from '../credits/index.ts';
import { cancelStatus, cancelStore, isTerminal } from './model.ts';

type Counts = Record<string, number>;

function eventCounts(world: World): Map<string, Counts> {
  const out = new Map<string, Counts>();
  for (const e of world.events.all) {
    const type = e.envelope.type;
    if (!type.startsWith('cancel.')) continue;
    const id = String(e.envelope.data.cancel_id);
    const counts = out.get(id) ?? {};
    counts[type] = (counts[type] ?? 0) + 1;
    out.set(id, counts);
  }
  return out;
}

export function cancelInvariants(world: World): Violation[] {
  const out: Violation[] = [];
  const credits = creditStore(world).byId;
  const events = eventCounts(world);
  const inFlightByCredit = new Map<string, string>();

  for (const c of cancelStore(world).list) {
    const status = cancelStatus(c);
    const credit = credits.get(c.credit_id);
    const v = (invariant: string, message: string): void => {
      out.push({ invariant, entity_id: c.cancel_id, message });
    };
    if (!credit) {
      v('cancels.credit_exists', `credit ${c.credit_id} is unknown`);
      continue;
    }
    if (credit.atoms !== c.amount_atoms || credit.asset_key !== c.asset_key)
      v('cancels.whole_credit', 'amount or asset differs from the credit');
    const consumedByMe = creditStatus(credit) === 'consumed' && creditSnapshot(credit).context.consumed_by === c.cancel_id;
    if (status === 'confirmed' && !consumedByMe)
      v('cancels.confirmed_consumes_credit', `credit ${c.credit_id} is ${creditStatus(credit)}, not consumed by this cancel`);
    if (status === 'failed' && consumedByMe)
      v('cancels.failed_leaves_credit_open', `credit ${c.credit_id} was consumed by a failed cancel`);
    if (!isTerminal(status)) {
      if (creditStatus(credit) !== 'open' || creditHolder(credit) !== c.cancel_id) {
        v('cancels.in_flight_holds_credit', `credit ${c.credit_id} is ${creditStatus(credit)}, held by ${creditHolder(credit)}`);
      }
      const other = inFlightByCredit.get(c.credit_id);
      if (other !== undefined) v('cancels.one_holder_per_credit', `credit ${c.credit_id} is also in flight under ${other}`);
      inFlightByCredit.set(c.credit_id, c.cancel_id);
    } else if (creditHolder(credit) === c.cancel_id) {
      v('cancels.terminal_releases_credit', `credit ${c.credit_id} is still held by this ${status} cancel`);
    }

    const counts = events.get(c.cancel_id) ?? {};
    const n = (type: string): number => counts[type] ?? 0;
    if (n('cancel.created') !== 1) v('cancels.events', `cancel.created published ${n('cancel.created')} times`);
    const broadcast = c.snapshot.context.tx_hash !== null;
    if (n('cancel.sent') !== (broadcast ? 1 : 0))
      v('cancels.events', `cancel.sent published ${n('cancel.sent')} times (broadcast: ${broadcast})`);
    const want = { 'cancel.confirmed': status === 'confirmed' ? 1 : 0, 'cancel.failed': status === 'failed' ? 1 : 0 };
    for (const [type, expected] of Object.entries(want)) {
      if (n(type) !== expected) v('cancels.events', `${type} published ${n(type)} times while ${status}`);
    }
  }
  for (const id of events.keys()) {
    if (!cancelStore(world).byId.has(id))
      out.push({ invariant: 'cancels.events', entity_id: id, message: 'cancel events for an unknown cancel' });
  }
  return out;
}
