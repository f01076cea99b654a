// The zaps resource: auction-based market/limit orders from a credit or a deposit to a registered
// destination; what other resources may use, its /v1 routes, its deposit hook, history and invariants.
import type { ResourceModule } from '../../resource.ts';
import { onDepositResolved } from '../deposits/index.ts';
import { onZapDeposit } from './model.ts';
import { zapHistory } from './read.ts';
import { zapInvariants } from './invariants.ts';
import { zapRoutes } from './routes.ts';
import { forgetOrganizationZaps } from './model.ts';

export { serializeZap } from './read.ts';
export {
  zapState,
  zapStatus,
  zapStore,
} from './model.ts';

export const zapsResource = {
  name: 'zaps',
  forgetOrganization: forgetOrganizationZaps,
  routes: zapRoutes,
  install: (world) => onDepositResolved(world, onZapDeposit),
  invariants: zapInvariants,
  history: zapHistory,
} satisfies ResourceModule;
