// The key-export resource: integrator-assisted and user-initiated (email OTP) export, with HPKE bundles
// delivered by account.key_exported once the account's in-flight work has ended.
import type { ResourceModule } from '../../resource.ts';
import { exportInvariants, installExportSweeps } from './model.ts';
import { exportRoutes } from './routes.ts';
import { forgetOrganizationExports } from './model.ts';
export { exportSuite, HPKE_INFO, HPKE_AAD, HPKE_ENC_BYTES, type BundlePlaintext } from './hpke.ts';

export const exportsResource = {
  name: 'exports',
  forgetOrganization: forgetOrganizationExports,
  routes: exportRoutes,
  install: installExportSweeps,
  invariants: exportInvariants,
} satisfies ResourceModule;
