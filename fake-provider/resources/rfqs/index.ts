// The RFQs resource: RFQs and their quotes (create, poll, read, accept into a trade), what other resources
// may read of a quote, its /v1 routes and its invariants.
import type { ResourceModule } from '../../resource.ts';
import { rfqInvariants } from './invariants.ts';
import { rfqRoutes } from './routes.ts';
import { forgetOrganizationRfqs } from './model.ts';

export { rfqStatus, rfqStore } from './model.ts';

export const rfqsResource = {
  name: 'rfqs',
  forgetOrganization: forgetOrganizationRfqs,
  routes: rfqRoutes,
  invariants: rfqInvariants,
} satisfies ResourceModule;
