// The RFQ and quote invariants: a ready RFQ has its own quote; a quote has its RFQ, expires inside the
// RFQ's TTL after it was produced, adds its fees up, meets the request; a consumed quote is firm and names its trade.
import type { World } from '../../world.ts';
import type { Violation } from '../../resource.ts';
import { expiresAt, producedAt, quoteSnapshot, quoteStatus, rfqSnapshot, rfqStatus, rfqStore } from './model.ts';

export function rfqInvariants(world: World): Violation[] {
  const out: Violation[] = [];
  const { rfqs, quotes } = rfqStore(world);
  for (const rfq of rfqs.values()) {
    const best = rfqSnapshot(rfq).context.best_quote_id;
    if (rfqStatus(rfq) === 'ready' && (best === null || quotes.get(best)?.rfq.rfq_id !== rfq.rfq_id)) {
      out.push({ invariant: 'rfq_ready_has_quote', entity_id: rfq.rfq_id, message: `ready rfq has no quote of its own (${best})` });
    }
  }
  for (const q of quotes.values()) {
    const rfq = rfqs.get(q.rfq.rfq_id);
    if (!rfq) {
      out.push({ invariant: 'quote_has_rfq', entity_id: q.quote_id, message: `quote names unknown rfq ${q.rfq.rfq_id}` });
      continue;
    }
    if (q.expires_at_ms > expiresAt(rfq) || q.expires_at_ms <= producedAt(q)) {
      out.push({
        invariant: 'quote_expiry_within_rfq_ttl',
        entity_id: q.quote_id,
        message: `expires ${q.expires_at_ms}, produced ${producedAt(q)}, rfq expires ${expiresAt(rfq)}`,
      });
    }
    const f = q.priced.fees;
    if (
      f.platform_atoms + f.integrator_atoms !== f.total_atoms ||
      q.priced.gross_out_atoms - f.total_atoms !== q.priced.expected_out_atoms
    ) {
      out.push({
        invariant: 'quote_fees_add_up',
        entity_id: q.quote_id,
        message: 'platform + integrator ≠ total, or gross − total ≠ expected_out',
      });
    }
    const requested = q.rfq.amount_atoms;
    if (q.rfq.side === 'exact_out' ? q.priced.expected_out_atoms < requested : q.priced.amount_in_atoms !== requested) {
      out.push({
        invariant: 'quote_meets_request',
        entity_id: q.quote_id,
        message: `${q.rfq.side} quote does not meet the requested ${requested}`,
      });
    }
    if (quoteStatus(q) === 'consumed' && (q.rfq.mode !== 'firm' || quoteSnapshot(q).context.trade_id === null)) {
      out.push({
        invariant: 'consumed_quote_is_firm_trade',
        entity_id: q.quote_id,
        message: 'a consumed quote must be firm and name its trade',
      });
    }
  }
  return out;
}
