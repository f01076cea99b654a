// The trades resource: started by accepting a firm quote; what other resources may use, and its routes.
import type { ResourceModule } from '../../resource.ts';
import { tradeHistory, tradeInvariants } from './model.ts';
import { tradeRoutes } from './routes.ts';
import { forgetOrganizationTrades } from './model.ts';

export { startTrade, serializeTrade, tradeStatus, tradeState, tradeStore } from './model.ts';

export const tradesResource = {
  name: 'trades',
  forgetOrganization: forgetOrganizationTrades,
  routes: tradeRoutes,
  invariants: tradeInvariants,
  history: tradeHistory,
} satisfies ResourceModule;
