// Ledger invariants (design.md, Invariants → credits): available = sum of open credits; one credit per
// source; consumed at most once and never reopened; atoms credited = atoms open + atoms consumed per asset.
import type { World } from '../../world.ts';
import type { Violation } from '../../resource.ts';
import { creditStatus, creditStore, rowKey, sourceKey } from './model.ts';

const add = (m: Map<string, bigint>, k: string, v: bigint): void => {
  m.set(k, (m.get(k) ?? 0n) + v);
};

export function creditInvariants(world: World): Violation[] {
  const store = creditStore(world);
  const out: Violation[] = [];
  const openSum = new Map<string, bigint>();
  const heldByAsset = new Map<string, bigint>();
  const spentByAsset = new Map<string, bigint>();
  const sources = new Map<string, string>();

  for (const c of store.list) {
    const status = creditStatus(c);
    if (c.atoms <= 0n) out.push({ invariant: 'credits.positive', entity_id: c.credit_id, message: `credit has ${c.atoms} atoms` });
    const skey = sourceKey(c.source_type, c.source_id, c.role);
    const twin = sources.get(skey);
    if (twin !== undefined)
      out.push({ invariant: 'credits.once_per_source', entity_id: c.credit_id, message: `${skey} also produced ${twin}` });
    sources.set(skey, c.credit_id);
    if (status === 'open') {
      add(openSum, rowKey(c.account_id, c.asset_key), c.atoms);
      add(heldByAsset, c.asset_key, c.atoms);
      if (c.consumed_at_ms !== null)
        out.push({ invariant: 'credits.consumed_never_reopens', entity_id: c.credit_id, message: 'open credit carries a consumed_at_ms' });
    } else {
      add(spentByAsset, c.asset_key, c.atoms);
      if (c.consumed_at_ms === null)
        out.push({ invariant: 'credits.consumed_once', entity_id: c.credit_id, message: 'consumed credit has no consumed_at_ms' });
    }
  }

  const available = new Map<string, bigint>();
  const credited = new Map<string, bigint>();
  for (const [account_id, { rows }] of store.accounts) {
    for (const [asset_key, row] of rows) {
      available.set(rowKey(account_id, asset_key), row.available_atoms);
      add(credited, asset_key, row.credited_atoms);
    }
  }
  for (const key of new Set([...openSum.keys(), ...available.keys()])) {
    const want = openSum.get(key) ?? 0n;
    const have = available.get(key) ?? 0n;
    if (want !== have)
      out.push({
        invariant: 'credits.available_is_sum_of_open',
        entity_id: key,
        message: `available ${have} but open credits sum to ${want}`,
      });
  }

  for (const [asset_key, created] of credited) {
    const accounted = (heldByAsset.get(asset_key) ?? 0n) + (spentByAsset.get(asset_key) ?? 0n);
    if (created !== accounted)
      out.push({
        invariant: 'credits.conservation',
        entity_id: asset_key,
        message: `credited ${created} atoms but open + consumed = ${accounted}`,
      });
  }

  for (const p of store.pending.values()) {
    if (p.atoms < 0n) out.push({ invariant: 'credits.pending_non_negative', entity_id: p.key, message: `pending ${p.atoms}` });
  }

  const consumes = new Map<string, number>();
  for (const r of world.transitions.records) {
    if (r.kind !== 'credit') continue;
    if (r.from === 'consumed')
      out.push({ invariant: 'credits.consumed_never_reopens', entity_id: r.entity_id, message: `left consumed on ${r.event}` });
    if (r.to === 'consumed') consumes.set(r.entity_id, (consumes.get(r.entity_id) ?? 0) + 1);
  }
  for (const [id, n] of consumes)
    if (n > 1) out.push({ invariant: 'credits.consumed_once', entity_id: id, message: `consumed ${n} times` });

  const announced = new Map<string, number>();
  for (const e of world.events.all) {
    if (e.envelope.type !== 'credit.created') continue;
    const id = String(e.envelope.data.credit_id);
    announced.set(id, (announced.get(id) ?? 0) + 1);
    const c = store.byId.get(id);
    if (!c) out.push({ invariant: 'credits.event_matches', entity_id: id, message: 'credit.created for an unknown credit' });
    else if (
      e.envelope.data.atoms !== c.atoms.toString() ||
      e.envelope.data.asset_key !== c.asset_key ||
      e.envelope.account_id !== c.account_id
    ) {
      out.push({ invariant: 'credits.event_matches', entity_id: id, message: 'credit.created data differs from the credit' });
    }
  }
  for (const c of store.list) {
    const n = announced.get(c.credit_id) ?? 0;
    if (n !== 1) out.push({ invariant: 'credits.event_matches', entity_id: c.credit_id, message: `credit.created published ${n} times` });
  }
  return out;
}
