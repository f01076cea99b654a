// The cancels resource: whole-credit transfers to a registered destination; what other resources may use
// (a cancel-style transfer for recoveries), its /v1 routes, its history records and its invariants.
import type { ResourceModule } from '../../resource.ts';
import { cancelInvariants } from './invariants.ts';
import { cancelHistory } from './model.ts';
import { cancelRoutes } from './routes.ts';
import { forgetOrganizationCancels } from './model.ts';

export {
  cancelStatus,
  cancelStore,
  launchCancel,
  serializeCancel,
  type Cancel,
} from './model.ts';

export const cancelsResource = {
  name: 'cancels',
  forgetOrganization: forgetOrganizationCancels,
  routes: cancelRoutes,
  invariants: cancelInvariants,
  history: cancelHistory,
} satisfies ResourceModule;
