// Client conduct, a plane of its own beside the /v1 pipeline (not a resource of the spec): it observes every
// authenticated answer (observer.ts, registered in observers.ts), keeps each key's record (recorder.ts) and
// serves it at GET /_sim/conduct; app.ts mounts the route and the control plane's delete forgets the records.
import type { Organization, World } from '../world.ts';
import { replyContract } from '../contract/route.ts';
import { conductRoutes } from './routes.ts';
import { forgetConduct } from './recorder.ts';

export { conductOf } from './recorder.ts';
export { conductRoutes };

/** GET /_sim/conduct's reply contract, for the typed control clients (lib/api-types.ts). */
export const CONDUCT_CONTRACTS = conductRoutes.map(replyContract);

/** What a deleted organization leaves of conduct: nothing (its keys' records go). */
export const forgetOrganizationConduct = (world: World, org: Organization): void => forgetConduct(world, org.api_keys);
