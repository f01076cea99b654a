// /v1 destination routes and their /_sim delta-screening controls: parse → call the model → serialize.
import { defineRoute, listBody, listSchema } from '../../contract/route.ts';
import {
  deleteDestination,
  listDestinations,
  reactivateDestination,
  registerDestination,
  serializeDestination,
  suspendDestination,
} from './model.ts';
import {
  accountParams,
  controlParams,
  destination,
  destinationParams,
  destinationReply,
  listQuery,
  registerBody,
  suspendBody,
} from './schemas.ts';

const tag = 'Destinations';

export const destinationRoutes = [
  defineRoute({
    method: 'post',
    path: '/accounts/:account_id/destinations',
    tag,
    summary: 'Register a destination (screened at registration)',
    params: accountParams,
    body: registerBody,
    response: destinationReply,
    handler: ({ params, body }, { world, org }) => ({
      body: { destination: serializeDestination(registerDestination(world, org.organization_id, params.account_id, body)) },
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/accounts/:account_id/destinations',
    tag,
    summary: 'List an account’s destinations',
    params: accountParams,
    query: listQuery,
    response: listSchema('destinations', destination),
    handler: ({ params, query }, { world, org }) => ({
      body: listBody('destinations', listDestinations(world, org.organization_id, params.account_id, query), serializeDestination),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/accounts/:account_id/destinations/:destination_id',
    tag,
    summary: 'Delete a destination (204 empty, or 200 {destination, deleted} per profile delete_destination_status)',
    // Documented as 204 (the default profile); the 200 variant's body is the destination plus deleted: true.
    params: destinationParams,
    status: 204,
    handler: ({ params }, { world, org }) => {
      const d = deleteDestination(world, org.organization_id, params.account_id, params.destination_id);
      const status = world.profile.delete_destination_status;
      return status === 204 ? { status } : { status, body: { destination: serializeDestination(d), deleted: true } };
    },
  }),
];

const controlTag = 'Control';

export const destinationControlRoutes = [
  defineRoute({
    auth: 'public',
    method: 'post',
    path: '/destinations/:destination_id/suspend',
    tag: controlTag,
    summary: 'Delta screening suspends a destination (idempotent; event destination.suspended)',
    params: controlParams,
    body: suspendBody,
    response: destinationReply,
    handler: ({ params, body }, { world }) => ({
      body: { destination: serializeDestination(suspendDestination(world, params.destination_id, body.reason)) },
    }),
  }),
  defineRoute({
    auth: 'public',
    method: 'post',
    path: '/destinations/:destination_id/reactivate',
    tag: controlTag,
    summary: 'Delta screening clears a destination (idempotent; event destination.reactivated)',
    params: controlParams,
    response: destinationReply,
    handler: ({ params }, { world }) => ({
      body: { destination: serializeDestination(reactivateDestination(world, params.destination_id)) },
    }),
  }),
];
