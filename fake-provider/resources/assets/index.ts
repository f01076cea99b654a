// The assets resource: the catalog, chain-native resolution and organization symbols. Other resources
// name assets through `requireAsset` / `resolveAssetRef` and read the catalog through these exports.
import type { ResourceModule } from '../../resource.ts';
import { symbolInvariants } from './model.ts';
import { assetRoutes } from './routes.ts';
import { forgetOrganizationSymbols } from './model.ts';

export { addressProblem, keccak256, toChecksumAddress } from './addresses.ts';

export {
  ASSETS,
  ASSET_SEQ,
  assetByKey,
  nativeAssetOf,
  isCanonicalAssetKey,
  type Asset,
} from './catalog.ts';
export { requireAsset, resolveAssetRef } from './model.ts';

export const assetsResource = {
  name: 'assets',
  forgetOrganization: forgetOrganizationSymbols,
  routes: assetRoutes,
  invariants: symbolInvariants,
} satisfies ResourceModule;
