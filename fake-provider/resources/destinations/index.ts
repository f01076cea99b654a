// The destinations resource: what other resources may use (the payout guard, deleted-inclusive lookup),
// its /v1 routes, its /_sim delta-screening controls and its invariants.
import type { ResourceModule } from '../../resource.ts';
import { destinationInvariants } from './model.ts';
import { destinationControlRoutes, destinationRoutes } from './routes.ts';
import { forgetOrganizationDestinations } from './model.ts';

export {
  destinationStatus,
  destinationStore,
  getDestinationRecord,
  requireUsableDestination,
  suspendDestination,
  reactivateDestination,
} from './model.ts';

export const destinationsResource = {
  name: 'destinations',
  forgetOrganization: forgetOrganizationDestinations,
  routes: destinationRoutes,
  control: destinationControlRoutes,
  invariants: destinationInvariants,
} satisfies ResourceModule;
