// /v1 credit and balance routes: parse → call the model → serialize. Nothing else.
import { defineRoute, listBody, listSchema } from '../../contract/route.ts';
import { requireAccount } from '../accounts/index.ts';
import { resolveAssetRef } from '../assets/index.ts';
import { listBalances, listCredits, serializeBalance, serializeCredit } from './model.ts';
import { accountParams, balance, credit, listBalancesQuery, listCreditsQuery } from './schemas.ts';

const tag = 'Credits and balances';

export const creditRoutes = [
  defineRoute({
    method: 'get',
    path: '/accounts/:account_id/credits',
    tag,
    summary: 'List an account’s credits (open by default)',
    params: accountParams,
    query: listCreditsQuery,
    response: listSchema('credits', credit),
    handler: ({ params, query }, { world, org }) => {
      const account = requireAccount(world, org.organization_id, params.account_id);
      const asset = resolveAssetRef(world, org.organization_id, query, { required: false });
      const page = listCredits(world, account.account_id, { ...query, asset_key: asset?.asset_key });
      return { body: listBody('credits', page, serializeCredit) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/accounts/:account_id/balances',
    tag,
    summary: 'List an account’s balances per asset',
    params: accountParams,
    query: listBalancesQuery,
    response: listSchema('balances', balance),
    handler: ({ params, query }, { world, org }) => {
      const account = requireAccount(world, org.organization_id, params.account_id);
      const asset = resolveAssetRef(world, org.organization_id, query, { required: false });
      const page = listBalances(world, account.account_id, { ...query, asset_key: asset?.asset_key });
      return { body: listBody('balances', page, serializeBalance) };
    },
  }),
];
