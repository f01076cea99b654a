// /v1 RFQ and quote routes: parse → call the model → serialize. Nothing else.
import { defineRoute } from '../../contract/route.ts';
import { serializeTrade } from '../trades/index.ts';
import { acceptQuote } from './accept.ts';
import { createRfq, readQuote, readRfq, serializeCreated, serializeQuote, serializeRfq } from './model.ts';
import { acceptBody, acceptReply, createRfqBody, quoteParams, quoteReply, rfqParams, rfqReply } from './schemas.ts';

const tag = 'RFQs and quotes';

export const rfqRoutes = [
  defineRoute({
    method: 'post',
    path: '/rfqs',
    tag,
    summary: 'Request quotes (200 ready within wait_ms, else 202 pending)',
    idempotent: true,
    body: createRfqBody,
    response: rfqReply,
    handler: ({ body }, { world, org }) => {
      const { status, rfq } = serializeCreated(world, createRfq(world, org, body));
      return { status, body: { rfq } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/rfqs/:rfq_id',
    tag,
    summary: 'Poll an RFQ',
    params: rfqParams,
    response: rfqReply,
    handler: ({ params }, { world, org }) => ({ body: { rfq: serializeRfq(world, readRfq(world, org.organization_id, params.rfq_id)) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/quotes/:quote_id',
    tag,
    summary: 'Get a quote',
    params: quoteParams,
    response: quoteReply,
    handler: ({ params }, { world, org }) => ({ body: { quote: serializeQuote(readQuote(world, org.organization_id, params.quote_id)) } }),
  }),
  defineRoute({
    method: 'post',
    path: '/quotes/:quote_id/accept',
    tag,
    summary: 'Accept a firm quote into a trade',
    idempotent: true,
    params: quoteParams,
    body: acceptBody,
    response: acceptReply,
    handler: ({ params, body }, { world, org }) => ({
      body: { trade: serializeTrade(world, acceptQuote(world, org, params.quote_id, body)) },
    }),
  }),
];
