// The credits resource: the ledger other resources use (create, lock, release, consume, pending amounts,
// balances), its /v1 list routes and its invariants.
import type { ResourceModule } from '../../resource.ts';
import { creditInvariants } from './invariants.ts';
import { creditRoutes } from './routes.ts';
import { forgetOrganizationCredits } from './model.ts';

export {
  addPending,
  balancesOf,
  clearPending,
  consumeCredit,
  createCredit,
  creditForSource,
  creditHolder,
  creditSnapshot,
  creditStatus,
  creditStore,
  creditsOf,
  lockCredit,
  newCreditId,
  releaseCredit,
  requireCredit,
  serializeCredit,
  type Credit,
} from './model.ts';
export { creditSourceTypeEnum } from './schemas.ts';

export const creditsResource = {
  name: 'credits',
  forgetOrganization: forgetOrganizationCredits,
  routes: creditRoutes,
  invariants: creditInvariants,
} satisfies ResourceModule;
