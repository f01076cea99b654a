// /v1 key-export routes: the integrator's export-keys and the three public (no bearer) endpoints.
// Parse → call the model → serialize, nothing else.
import { defineRoute } from '../../contract/route.ts';
import { completeExport, exportKeys, exportStatus, initiateExport } from './model.ts';
import {
  completeExportBody,
  exportAccountReply,
  exportKeysBody,
  exportKeysParams,
  exportStatusQuery,
  exportStatusReply,
  initiateExportBody,
  initiateExportReply,
} from './schemas.ts';

const tag = 'Key export';
const exporting = (account_id: string) => ({ account: { account_id, status: 'export_initiated' } });

export const exportRoutes = [
  defineRoute({
    method: 'post',
    path: '/accounts/:account_id/export-keys',
    tag,
    summary: 'Export an account’s private keys (irreversible)',
    idempotent: true,
    params: exportKeysParams,
    body: exportKeysBody,
    response: exportAccountReply,
    handler: ({ params, body }, { world, org }) => ({
      body: exporting(exportKeys(world, org, params.account_id, body.target_public_key).account_id),
    }),
  }),
  defineRoute({
    auth: 'public',
    method: 'post',
    path: '/public/initiate-export',
    tag,
    summary: 'Email the account’s user an export OTP',
    body: initiateExportBody,
    response: initiateExportReply,
    handler: ({ body }, { world, ip }) => {
      initiateExport(world, ip, body.account_id);
      return { body: { initiated: true } };
    },
  }),
  defineRoute({
    auth: 'public',
    method: 'post',
    path: '/public/complete-export',
    tag,
    summary: 'Start the export with the emailed OTP',
    body: completeExportBody,
    response: exportAccountReply,
    handler: ({ body }, { world, ip }) => ({ body: exporting(completeExport(world, ip, body).account_id) }),
  }),
  defineRoute({
    auth: 'public',
    method: 'get',
    path: '/public/export-status',
    tag,
    summary: 'Export progress, then the sealed keys',
    query: exportStatusQuery,
    response: exportStatusReply,
    handler: ({ query }, { world, ip }) => ({ body: { ...exportStatus(world, ip, query) } }),
  }),
];
