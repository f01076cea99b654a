// /v1 event feed and account activity routes: parse → call the model → serialize. Nothing else.
import { defineRoute, listBody, listSchema } from '../../contract/route.ts';
import { requireAccount } from '../accounts/index.ts';
import { listActivity, listEvents, serializeEvent } from './model.ts';
import { activityParams, activityQuery, eventEnvelope, eventsQuery } from './schemas.ts';

export const eventRoutes = [
  defineRoute({
    method: 'get',
    path: '/events',
    tag: 'Events',
    summary: 'The organization event feed, oldest first',
    query: eventsQuery,
    response: listSchema('events', eventEnvelope),
    handler: ({ query }, { world, org }) => ({ body: listBody('events', listEvents(world, org.organization_id, query), serializeEvent) }),
  }),
  defineRoute({
    method: 'get',
    path: '/accounts/:account_id/activity',
    tag: 'Accounts',
    summary: "An account's event stream",
    params: activityParams,
    query: activityQuery,
    response: listSchema('events', eventEnvelope),
    handler: ({ params, query }, { world, org }) => {
      const account = requireAccount(world, org.organization_id, params.account_id);
      return { body: listBody('events', listActivity(world, org.organization_id, account.account_id, query), serializeEvent) };
    },
  }),
];
