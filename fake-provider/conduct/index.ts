// The client-conduct module: its control route; the recorder is called by the /v1 route wrapper.
import type { ResourceModule } from '../resource.ts';
import { conductRoutes } from './routes.ts';
import { forgetConduct } from './recorder.ts';

export { recordRequest, conductOf, allConduct, type Finding, type FindingKind, type ConductRequest, type ConductReport, type RequestFacts } from './recorder.ts';

export const conductResource = { name: 'conduct', control: conductRoutes, forgetOrganization: (world, org) => forgetConduct(world, org.api_keys) } satisfies ResourceModule;
