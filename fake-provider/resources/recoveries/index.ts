// The recoveries resource: failed-zap recovery (created by the service, activated by the integrator,
// claimed by the user with an emailed OTP); what other resources may use, its /v1 routes, its invariants.
import type { ResourceModule } from '../../resource.ts';
import { installRecoveries, recoveryInvariants } from './model.ts';
import { recoveryRoutes } from './routes.ts';
import { forgetOrganizationRecoveries } from './model.ts';

export { recoveryForFailedZap, recoveryStatus, recoveryStore } from './model.ts';

export const recoveriesResource = {
  name: 'recoveries',
  forgetOrganization: forgetOrganizationRecoveries,
  routes: recoveryRoutes,
  install: installRecoveries,
  invariants: recoveryInvariants,
} satisfies ResourceModule;
