// /v1 account routes: parse → call the model → serialize. Nothing else.
import { defineRoute, listBody, listSchema } from '../../contract/route.ts';
import { createAccount, deactivate, listAccounts, requireAccount, serializeAccount, setEmail } from './model.ts';
import {
  account,
  accountParams,
  accountReply,
  createAccountBody,
  deactivateReply,
  listAccountsQuery,
  patchAccountBody,
} from './schemas.ts';

const tag = 'Accounts';

export const accountRoutes = [
  defineRoute({
    method: 'post',
    path: '/accounts',
    tag,
    summary: 'Create an account',
    idempotent: true,
    body: createAccountBody,
    response: accountReply,
    handler: ({ body }, { world, org }) => ({ body: { account: serializeAccount(createAccount(world, org, body)) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/accounts',
    tag,
    summary: 'List accounts',
    query: listAccountsQuery,
    response: listSchema('accounts', account),
    handler: ({ query }, { world, org }) => ({
      body: listBody('accounts', listAccounts(world, org.organization_id, query), serializeAccount),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/accounts/:account_id',
    tag,
    summary: 'Get an account',
    params: accountParams,
    response: accountReply,
    handler: ({ params }, { world, org }) => ({
      body: { account: serializeAccount(requireAccount(world, org.organization_id, params.account_id)) },
    }),
  }),
  defineRoute({
    method: 'patch',
    path: '/accounts/:account_id',
    tag,
    summary: 'Attach an email to an account',
    params: accountParams,
    body: patchAccountBody,
    response: accountReply,
    handler: ({ params, body }, { world, org }) => {
      const a = requireAccount(world, org.organization_id, params.account_id);
      return { body: { account: serializeAccount(setEmail(world, a, body.email)) } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/accounts/:account_id/deactivate',
    tag,
    summary: 'Deactivate an account (idempotent)',
    params: accountParams,
    response: deactivateReply,
    handler: ({ params }, { world, org }) => {
      const a = deactivate(world, requireAccount(world, org.organization_id, params.account_id));
      return { body: { account: { account_id: a.account_id, status: serializeAccount(a).status } } };
    },
  }),
];
