// GET /_sim/conduct: the client-conduct report, for one API key or for every key that sent a request.
import { z } from 'zod';
import { defineRoute } from '../contract/route.ts';
import { allConduct, conductOf } from './recorder.ts';

const tag = 'Simulation control';

export const conductRoutes = [
  defineRoute({
    auth: 'public',
    method: 'get',
    path: '/conduct',
    tag,
    summary: 'Client-conduct findings per API key',
    query: z.object({ api_key: z.string().min(1).optional() }),
    handler: ({ query }, { world }) => ({
      body: { conduct: query.api_key === undefined ? allConduct(world) : conductOf(world, query.api_key) },
    }),
  }),
];
