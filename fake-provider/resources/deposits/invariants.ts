// Deposit invariants: a verified deposit has exactly one matching deposit credit and nothing else does;
// pending deposits (and only they) hold a pending amount; each deposit's events fired exactly once.
import type { World } from '../../world.ts';
import type { Violation } from '../../resource.ts';
import { creditStore } from '../credits/index.ts';
import { depositStatus, depositStore, partnerScreened, pendingKey } from './model.ts';

const bump = (m: Map<string, number>, k: string): void => {
  m.set(k, (m.get(k) ?? 0) + 1);
};

export function depositInvariants(world: World): Violation[] {
  const out: Violation[] = [];
  const credits = creditStore(world);
  const deposits = depositStore(world);

  for (const d of deposits.list) {
    const status = depositStatus(d);
    const credit = d.credit_id === null ? undefined : credits.byId.get(d.credit_id);
    if (status === 'verified') {
      if (!credit) out.push({ invariant: 'deposits.verified_has_credit', entity_id: d.deposit_id, message: 'verified without a credit' });
      else if (
        credit.source_type !== 'deposit' ||
        credit.source_id !== d.tx_hash ||
        credit.atoms !== d.atoms ||
        credit.asset_key !== d.asset_key ||
        credit.account_id !== d.address.account_id
      ) {
        out.push({
          invariant: 'deposits.verified_has_credit',
          entity_id: d.deposit_id,
          message: `credit ${credit.credit_id} does not match the deposit`,
        });
      }
    } else if (d.credit_id !== null) {
      out.push({
        invariant: 'deposits.no_credit_unless_verified',
        entity_id: d.deposit_id,
        message: `${status} deposit has credit ${d.credit_id}`,
      });
    }
    const pending = credits.pending.get(pendingKey(d));
    if (status === 'pending' && pending?.atoms !== d.atoms)
      out.push({
        invariant: 'deposits.pending_balance',
        entity_id: d.deposit_id,
        message: 'pending deposit is missing from pending_atoms',
      });
    if (status !== 'pending' && pending)
      out.push({ invariant: 'deposits.pending_balance', entity_id: d.deposit_id, message: `${status} deposit still counts as pending` });
    if ((status === 'pending') !== (d.resolved_at_ms === null))
      out.push({ invariant: 'deposits.resolution', entity_id: d.deposit_id, message: `${status} with resolved_at_ms ${d.resolved_at_ms}` });
  }

  for (const c of credits.list) {
    if (c.source_type !== 'deposit') continue;
    const d = deposits.byTxHash.get(c.source_id);
    if (!d || d.credit_id !== c.credit_id)
      out.push({
        invariant: 'deposits.no_credit_unless_verified',
        entity_id: c.credit_id,
        message: `deposit credit without a verified deposit ${c.source_id}`,
      });
  }

  // Events: deposit.pending and deposit.verified carry no tx_hash, so they are counted per address.
  const pendingEvents = new Map<string, number>();
  const verifiedEvents = new Map<string, number>();
  const byTx = new Map<string, number>();
  for (const e of world.events.all) {
    const t = e.envelope.type;
    const data = e.envelope.data;
    if (t === 'deposit.pending') bump(pendingEvents, String(data.deposit_address_id));
    else if (t === 'deposit.verified') bump(verifiedEvents, String(data.deposit_address_id));
    else if (t === 'deposit.flagged' || t === 'deposit.partner_screening') bump(byTx, `${t}|${String(data.tx_hash)}`);
  }
  const landed = new Map<string, number>();
  const verified = new Map<string, number>();
  for (const d of deposits.list) {
    bump(landed, d.address.deposit_address_id);
    const status = depositStatus(d);
    if (status === 'verified') bump(verified, d.address.deposit_address_id);
    const flaggedEvents = byTx.get(`deposit.flagged|${d.tx_hash}`) ?? 0;
    if (flaggedEvents !== (status === 'flagged' ? 1 : 0))
      out.push({
        invariant: 'deposits.events_once',
        entity_id: d.deposit_id,
        message: `${flaggedEvents} deposit.flagged for a ${status} deposit`,
      });
    const screeningEvents = byTx.get(`deposit.partner_screening|${d.tx_hash}`) ?? 0;
    if (screeningEvents !== (partnerScreened(d) ? 1 : 0))
      out.push({
        invariant: 'deposits.events_once',
        entity_id: d.deposit_id,
        message: `${screeningEvents} deposit.partner_screening events`,
      });
  }
  for (const id of new Set([...landed.keys(), ...pendingEvents.keys(), ...verifiedEvents.keys()])) {
    if ((landed.get(id) ?? 0) !== (pendingEvents.get(id) ?? 0))
      out.push({ invariant: 'deposits.events_once', entity_id: id, message: 'deposit.pending count differs from deposits landed' });
    if ((verified.get(id) ?? 0) !== (verifiedEvents.get(id) ?? 0))
      out.push({ invariant: 'deposits.events_once', entity_id: id, message: 'deposit.verified count differs from deposits verified' });
  }
  return out;
}
