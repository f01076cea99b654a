// /v1 deposit-address and partner-flag routes, and the /_sim/deposits control routes: parse → call the
// model → serialize. Nothing else.
import { defineRoute, listBody, listSchema } from '../../contract/route.ts';
import { requireAccount } from '../accounts/index.ts';
import { requireAsset, resolveAssetRef } from '../assets/index.ts';
import { createDepositAddress, depositAddressStore, listDepositAddresses, serializeDepositAddress } from './addresses.ts';
import { landDeposit } from './landing.ts';
import { listDeposits, partnerFlag, serializeDeposit } from './model.ts';
import {
  accountParams,
  createDepositAddressBody,
  depositAddress,
  depositAddressParams,
  depositAddressReply,
  landDepositBody,
  listDepositAddressesQuery,
  listDepositsQuery,
  partnerFlagBody,
  partnerFlagReply,
  simDepositList,
  simDepositReply,
} from './schemas.ts';

export const depositRoutes = [
  defineRoute({
    method: 'post',
    path: '/accounts/:account_id/deposit-addresses',
    tag: 'Deposit addresses',
    summary: 'Provision a deposit address',
    idempotent: true,
    params: accountParams,
    body: createDepositAddressBody,
    response: depositAddressReply,
    handler: ({ params, body }, { world, org }) => {
      const account = requireAccount(world, org.organization_id, params.account_id);
      const asset = resolveAssetRef(world, org.organization_id, body, { required: true });
      return { body: { deposit_address: serializeDepositAddress(createDepositAddress(world, account, asset)) } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/accounts/:account_id/deposit-addresses',
    tag: 'Deposit addresses',
    summary: 'List deposit addresses',
    params: accountParams,
    query: listDepositAddressesQuery,
    response: listSchema('deposit_addresses', depositAddress),
    handler: ({ params, query }, { world, org }) => {
      const account = requireAccount(world, org.organization_id, params.account_id);
      const asset_key = query.asset_key === undefined ? undefined : requireAsset(query.asset_key).asset_key;
      const page = listDepositAddresses(world, account.account_id, { ...query, asset_key });
      return { body: listBody('deposit_addresses', page, serializeDepositAddress) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/deposits/:deposit_address_id/flag',
    tag: 'Partner screening',
    summary: 'Flag a deposit inside its partner screening window',
    params: depositAddressParams,
    body: partnerFlagBody,
    response: partnerFlagReply,
    handler: ({ params, body }, { world, org }) => {
      const d = partnerFlag(world, org.organization_id, params.deposit_address_id, body);
      return {
        body: {
          flag: { deposit_address_id: d.address.deposit_address_id, tx_hash: d.tx_hash, flag_reason: 'partner_flagged', accepted: true },
        },
      };
    },
  }),
];

export const depositControlRoutes = [
  defineRoute({
    auth: 'public',
    method: 'post',
    path: '/deposits',
    tag: 'Control',
    summary: 'An on-chain transfer lands on a deposit address',
    body: landDepositBody,
    response: simDepositReply,
    // The deposit's lifecycle is its organization's work: deleting the organization cancels what is left of it.
    handler: ({ body }, { world }) => {
      const owner = depositAddressStore(world).byId.get(body.deposit_address_id)?.org_id ?? null;
      const deposit = world.sim.scheduler.runAs(owner, () => landDeposit(world, { ...body, atoms: BigInt(body.atoms) }));
      return { body: { deposit: serializeDeposit(world, deposit) } };
    },
  }),
  defineRoute({
    auth: 'public',
    method: 'get',
    path: '/deposits',
    tag: 'Control',
    summary: 'Deposits and their status',
    query: listDepositsQuery,
    response: simDepositList,
    handler: ({ query }, { world }) => ({ body: { deposits: listDeposits(world, query).map((d) => serializeDeposit(world, d)) } }),
  }),
];
