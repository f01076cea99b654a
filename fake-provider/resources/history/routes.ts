// /v1 history route: parse → call the model → serialize. Nothing else.
import { defineRoute, listBody, listSchema } from '../../contract/route.ts';
import { requireAccount } from '../accounts/index.ts';
import { listHistory, serializeRecord } from './model.ts';
import { historyParams, historyQuery, historyRecord } from './schemas.ts';

const tag = 'Credits and balances';

export const historyRoutes = [
  defineRoute({
    method: 'get',
    path: '/accounts/:account_id/history',
    tag,
    summary: 'List an account’s terminal trades, zaps and cancels, newest first',
    params: historyParams,
    query: historyQuery,
    response: listSchema('records', historyRecord),
    handler: ({ params, query }, { world, org, resources }) => {
      const account = requireAccount(world, org.organization_id, params.account_id);
      return { body: listBody('records', listHistory(resources, world, account.account_id, query), serializeRecord) };
    },
  }),
];
