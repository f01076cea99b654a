// Screening: control-plane routes to make an address fail (or pass again), and `screen()` for resources.
import { z } from 'zod';
import type { ResourceModule } from '../../resource.ts';
import { defineRoute } from '../../contract/route.ts';
import { flagAddress, SCREENING_FLAG_REASONS, screen, unflagAddress } from './model.ts';

export { screen } from './model.ts';

const tag = 'Control';
const addressBody = z.object({ address: z.string().min(1).max(256), flag_reason: z.enum(SCREENING_FLAG_REASONS) });

export const screeningResource = {
  name: 'screening',
  control: [
    defineRoute({
      auth: 'public',
      method: 'post',
      path: '/screening/addresses',
      tag,
      summary: 'Make an address fail screening',
      body: addressBody,
      handler: ({ body }, { world }) => {
        flagAddress(world, body.address, body.flag_reason);
        return { body: { screening: { address: body.address, flag_reason: screen(world, body.address) } } };
      },
    }),
    defineRoute({
      auth: 'public',
      method: 'delete',
      path: '/screening/addresses/:address',
      tag,
      summary: 'Let an address pass screening again',
      params: z.object({ address: z.string().min(1).max(256) }),
      handler: ({ params }, { world }) => ({
        body: { screening: { address: params.address, removed: unflagAddress(world, params.address) } },
      }),
    }),
  ],
} satisfies ResourceModule;
