// The accounts resource: what other resources may use, and its routes.
import type { ResourceModule } from '../../resource.ts';
import { accountRoutes } from './routes.ts';
import { forgetOrganizationAccounts } from './model.ts';

export {
  accountIdsOf,
  accountStatus,
  requireAccount,
  requireOperable,
  walletOf,
  walletReady,
  sendAccount,
  accountStore,
  type Account,
} from './model.ts';
export { accountMachine } from './machine.ts';
export { WALLET_CHAINS, type WalletChain, type WalletKey, deriveWallet, addressFromPrivateKey } from './wallets.ts';

export const accountsResource = {
  name: 'accounts',
  forgetOrganization: forgetOrganizationAccounts,
  routes: accountRoutes,
} satisfies ResourceModule;
