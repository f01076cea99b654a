// The history resource: GET /accounts/{account_id}/history, assembled from every resource module's
// `history(world, account_id)` records (trades, zaps, cancels); it owns no state of its own.
import type { ResourceModule } from '../../resource.ts';
import { historyRoutes } from './routes.ts';

export { historyOf, listHistory, type HistoryQuery } from './model.ts';
export { HISTORY_TYPES, HISTORY_STATUSES, type HistoryType, type HistoryStatus } from './schemas.ts';

export const historyResource = {
  name: 'history',
  routes: historyRoutes,
} satisfies ResourceModule;
