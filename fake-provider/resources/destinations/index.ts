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
  serializeDestination,
  suspendDestination,
  reactivateDestination,
  type Destination,
} from './model.ts';
export { destinationMachine, type DestinationStatus } from './machine.ts';
export { addressProblem } from '../assets/index.ts';

export const destinationsResource = {
  name: 'destinations',
  forgetOrganization: forgetOrganizationDestinations,
  routes: destinationRoutes,
  control: destinationControlRoutes,
  invariants: destinationInvariants,
} satisfies ResourceModule;
