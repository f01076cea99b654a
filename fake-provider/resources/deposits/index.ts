// The deposits resource: deposit addresses (incl. single-use zap addresses), the deposit lifecycle and
// partner screening; what other resources may use, its routes, control routes and invariants.
import type { ResourceModule } from '../../resource.ts';
import { depositInvariants } from './invariants.ts';
import { depositControlRoutes, depositRoutes } from './routes.ts';
import { forgetOrganizationDeposits } from './forget.ts';

export {
  createDepositAddress,
  createZapDepositAddress,
  depositAddressStore,
  isMonitored,
  serializeDepositAddress,
  type DepositAddress,
} from './addresses.ts';
export {
  depositStatus,
  depositStore,
  listDeposits,
  onDepositResolved,
  serializeDeposit,
  type Deposit,
} from './model.ts';
export { landDeposit } from './landing.ts';
export { generateTxHash } from './chain-formats.ts';

export const depositsResource = {
  name: 'deposits',
  forgetOrganization: forgetOrganizationDeposits,
  routes: depositRoutes,
  control: depositControlRoutes,
  invariants: depositInvariants,
} satisfies ResourceModule;
