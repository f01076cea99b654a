// Accepting a firm quote into a trade: every check (quote, account, destination, credit) before any
// change, then the trade starts (it locks the credit) and the quote is consumed by it.
import type { Organization, World } from '../../world.ts';
import { ApiError } from '../../contract/errors.ts';
import { requireAccount, requireOperable } from '../accounts/index.ts';
import { requireUsableDestination } from '../destinations/index.ts';
import { startTrade } from '../trades/index.ts';
import { isExpired, quoteExpired, quoteSnapshot, quoteStatus, requireQuote, sendQuote } from './model.ts';
import { requireSpendableCredit } from './requests.ts';
import type { AcceptBody } from './schemas.ts';

/**
 * Accepts a firm quote into a trade. Checks, in order and before any change: the quote (404, firm,
 * not consumed, not expired), the account (operable), the destination (still usable), the credit (open
 * and free). The handler is synchronous from the first check to ACCEPT, so of two concurrent accepts
 * exactly one finds the quote open.
 */
export function acceptQuote(world: World, org: Organization, quote_id: string, body: AcceptBody): string {
  const quote = requireQuote(world, org.organization_id, quote_id);
  const { rfq } = quote;
  if (rfq.mode !== 'firm') {
    throw new ApiError('quote_not_firm', `quote ${quote_id} is indicative and cannot be traded; request a firm RFQ`, { param: 'quote_id' });
  }
  if (quoteStatus(quote) === 'consumed') {
    throw new ApiError('quote_consumed', `quote ${quote_id} was already accepted`, {
      param: 'quote_id',
      details: { quote_id, trade_id: quoteSnapshot(quote).context.trade_id },
    });
  }
  if (isExpired(world, quote)) throw quoteExpired(quote);
  // A firm RFQ named all three (requests.ts firmParties).
  const account_id = rfq.account_id!;
  const account = requireAccount(world, org.organization_id, account_id);
  requireOperable(account, 'rfq');
  requireUsableDestination(world, org.organization_id, account_id, rfq.destination_id!, rfq.to.asset_key);
  requireSpendableCredit(world, org.organization_id, account_id, rfq.credit_id!, rfq.from.asset_key);

  const { trade_id } = startTrade(world, { org, quote, slippage_bps: body.slippage_bps, client_order_id: body.client_order_id ?? null });
  // startTrade has locked the credit; the quote cannot refuse ACCEPT here (open and before expiry, checked above).
  if (!sendQuote(world, quote, { type: 'ACCEPT', trade_id, at_ms: world.sim.now_ms() }))
    throw new Error(`quote ${quote_id} refused ACCEPT after its checks`);
  return trade_id;
}
