// POST /_sim/init: seed data (schema.ts) applied to the world in one control call (`serve --init FILE` and
// `--demo` send it once the server listens, so a journal and a `--state` folder keep it like any request).
import { defineRoute } from '../contract/route.ts';
import type { Runtime } from '../runtime.ts';
import { applySeed } from './apply.ts';
import { seedBody, seedReply } from './schema.ts';

export function seedRoutes(runtime: Runtime) {
  return [
    defineRoute({
      auth: 'public',
      method: 'post',
      path: '/init',
      tag: 'Control',
      summary: 'Create organizations, webhooks, accounts, balances and open deposits from seed data',
      body: seedBody,
      response: seedReply,
      handler: async ({ body }, { request_id }) => ({ body: { ...(await applySeed(runtime, body, request_id)) } }),
    }),
  ];
}
