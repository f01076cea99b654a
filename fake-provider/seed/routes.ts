// POST /_sim/init: seed data (schema.ts) applied to the world in one control call (`serve --init FILE` and
// `--demo` send it once the server listens, so a journal and a `--state` folder keep it like any request).
import { defineRoute } from '../contract/route.ts';
import { applySeed } from './apply.ts';
import { seedBody, seedReply } from './schema.ts';

export function seedRoutes() {
  return [
    defineRoute({
      auth: 'public',
      method: 'post',
      path: '/init',
      tag: 'Control',
      summary: 'Create organizations, webhooks, accounts, balances and open deposits from seed data',
      body: seedBody,
      response: seedReply,
      handler: async ({ body }, { world, request_id }) => ({ body: { ...(await applySeed(world, body, request_id)) } }),
    }),
  ];
}
