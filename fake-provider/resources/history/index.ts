// The history resource: GET /accounts/{account_id}/history, assembled from every resource module's
// `history(world, account_id)` records (trades, zaps, cancels); it owns no state of its own.
import type { ResourceModule } from '../../resource.ts';
import { historyRoutes } from './routes.ts';

export { historyOf } from './model.ts';

export const historyResource = {
  name: 'history',
  routes: historyRoutes,
} satisfies ResourceModule;
