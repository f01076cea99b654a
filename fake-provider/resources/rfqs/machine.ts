// The RFQ and quote lifecycles (spec: States → RFQ and quote). RFQ: pending → ready (solvers answered)
// → expired (TTL), or pending → expired. Quote: open → consumed (accepted) | expired. Only pending and
// ready are shown on the wire; expired and consumed surface as rfq_expired, quote_expired, quote_consumed.
import { assign, setup } from 'xstate';

export interface RfqContext {
  created_at_ms: number;
  expires_at_ms: number;
  best_quote_id: string | null;
}

export type RfqEvent = { type: 'SOLVED'; quote_id: string; at_ms: number } | { type: 'EXPIRE'; at_ms: number };

export const rfqMachine = setup({
  types: {
    context: {} as RfqContext,
    events: {} as RfqEvent,
    input: {} as { created_at_ms: number; expires_at_ms: number },
  },
  guards: {
    // Quotes that arrive at or after the TTL are too late: the RFQ has expired by then.
    beforeTtl: ({ context, event }) => event.at_ms < context.expires_at_ms,
    ttlElapsed: ({ context, event }) => event.at_ms >= context.expires_at_ms,
  },
  actions: {
    recordQuote: assign({ best_quote_id: ({ event }) => (event.type === 'SOLVED' ? event.quote_id : null) }),
  },
}).createMachine({
  id: 'rfq',
  initial: 'pending',
  context: ({ input }) => ({ created_at_ms: input.created_at_ms, expires_at_ms: input.expires_at_ms, best_quote_id: null }),
  states: {
    pending: {
      on: {
        SOLVED: { guard: 'beforeTtl', target: 'ready', actions: 'recordQuote' },
        EXPIRE: { guard: 'ttlElapsed', target: 'expired' },
      },
    },
    ready: {
      on: { EXPIRE: { guard: 'ttlElapsed', target: 'expired' } },
    },
    expired: { type: 'final' },
  },
});

export type RfqStatus = 'pending' | 'ready' | 'expired';

export interface QuoteContext {
  expires_at_ms: number;
  trade_id: string | null;
}

export type QuoteEvent = { type: 'ACCEPT'; trade_id: string; at_ms: number } | { type: 'EXPIRE'; at_ms: number };

export const quoteMachine = setup({
  types: {
    context: {} as QuoteContext,
    events: {} as QuoteEvent,
    input: {} as { expires_at_ms: number },
  },
  guards: {
    beforeExpiry: ({ context, event }) => event.at_ms < context.expires_at_ms,
    expiryReached: ({ context, event }) => event.at_ms >= context.expires_at_ms,
  },
  actions: {
    recordTrade: assign({ trade_id: ({ event }) => (event.type === 'ACCEPT' ? event.trade_id : null) }),
  },
}).createMachine({
  id: 'quote',
  initial: 'open',
  context: ({ input }) => ({ expires_at_ms: input.expires_at_ms, trade_id: null }),
  states: {
    open: {
      on: {
        ACCEPT: { guard: 'beforeExpiry', target: 'consumed', actions: 'recordTrade' },
        EXPIRE: { guard: 'expiryReached', target: 'expired' },
      },
    },
    consumed: { type: 'final' },
    expired: { type: 'final' },
  },
});

export type QuoteStatus = 'open' | 'consumed' | 'expired';
