// The snapshot control routes (snapshots.ts): take, list, restore, delete. Unscoped they act on the server's
// default world (every organization without a clock of its own); `?organization_id=` of an organization with a
// world of its own acts on that world alone.
import { z } from 'zod';
import type { Runtime } from '../runtime.ts';
import { clockState } from '../../sim/clock.ts';
import { defineRoute } from '../contract/route.ts';
import { ApiError } from '../contract/errors.ts';
import { deleteSnapshot, listSnapshots, requireSnapshot, restoreSnapshot, takeSnapshot } from './snapshots.ts';

const tag = 'Control';
const snapshot = z.object({ snapshot_id: z.string(), request_id: z.string(), created_at_ms: z.number().int() });
const params = z.object({ snapshot_id: z.string().min(1).max(256) });
/** No fields yet: a body, if sent, must be empty (control-plane bodies are exact). */
const noFields = z.object({}).optional();

export function snapshotRoutes(runtime: Runtime) {
  return [
    defineRoute({
      auth: 'public',
      method: 'post',
      path: '/snapshots',
      tag,
      summary: 'Take a snapshot of the whole server (a copy of its world)',
      body: noFields,
      response: z.object({ request_id: z.string(), snapshot_id: z.string(), snapshot }),
      handler: async (_i, { world, request_id }) => {
        const s = await takeSnapshot(world, request_id);
        return { body: { snapshot_id: s.snapshot_id, snapshot: s } };
      },
    }),
    defineRoute({
      auth: 'public',
      method: 'get',
      path: '/snapshots',
      tag,
      summary: 'Snapshots of the current world, oldest first',
      response: z.object({ request_id: z.string(), snapshots: z.array(snapshot) }),
      handler: (_i, { world }) => ({ body: { snapshots: listSnapshots(world) } }),
    }),
    defineRoute({
      auth: 'public',
      method: 'post',
      path: '/snapshots/:snapshot_id/restore',
      tag,
      summary: "Put the world as it was at the snapshot in the server's place",
      params,
      body: noFields,
      response: z.object({
        request_id: z.string(),
        restored: z.literal(true),
        snapshot_id: z.string(),
        clock: z.object({ now_ms: z.number().int(), mode: z.enum(['virtual', 'realtime']) }),
      }),
      handler: async ({ params: p }, { world: scoped }) => {
        const world = await restoreSnapshot(runtime, scoped, p.snapshot_id);
        return { body: { restored: true, snapshot_id: p.snapshot_id, clock: clockState(world.sim.clock) } };
      },
    }),
    defineRoute({
      auth: 'public',
      method: 'delete',
      path: '/snapshots/:snapshot_id',
      tag,
      summary: 'Forget a snapshot',
      params,
      handler: ({ params: p }, { world }) => {
        requireSnapshot(world, p.snapshot_id);
        if (!deleteSnapshot(world, p.snapshot_id))
          throw new ApiError('not_found', `no snapshot ${p.snapshot_id}`, { param: 'snapshot_id' });
        return { body: { deleted: true, snapshot_id: p.snapshot_id } };
      },
    }),
  ];
}
