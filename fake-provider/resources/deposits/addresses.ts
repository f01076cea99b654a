// Deposit addresses: ephemeral on-chain addresses (one per account and chain while monitored, shared by
// every asset of that chain), single-use zap addresses, their monitoring window, lookup and listing.
import { defineStore, type World } from '../../world.ts';
import { ApiError } from '../../contract/errors.ts';
import { paginate, type Page } from '../../contract/pagination.ts';
import type { Asset } from '../assets/index.ts';
import { deriveWallet, requireOperable, walletReady, type Account, type WalletChain, type WalletKey } from '../accounts/index.ts';
import type { Organization } from '../../world.ts';
import type { ForgetScope } from '../../resource-records.ts';
import { dropWhere } from '../../engine/index.ts';

export interface DepositAddress {
  deposit_address_id: string;
  org_id: string;
  account_id: string;
  asset_key: string;
  chain: WalletChain;
  address: string;
  /** The address's real key pair: kept for a later key export, never serialized. */
  wallet: WalletKey;
  /** Zap deposit addresses: a fresh address, meant for exactly one deposit. */
  single_use: boolean;
  created_at_ms: number;
  /** Monitoring ends here; a deposit landing at or after it is refused (`deposit_window_closed`). */
  expires_at_ms: number;
  seq: number;
}

export const depositAddressStore = defineStore('deposit-addresses', (world) => ({
  byId: new Map<string, DepositAddress>(),
  byAccount: new Map<string, DepositAddress[]>(),
  /** Ephemeral keys come from their own stream so that other consumers never shift these draws. */
  rng: world.sim.rng.fork('deposit-addresses'),
}));

export function isMonitored(world: World, da: DepositAddress): boolean {
  return world.sim.now_ms() < da.expires_at_ms;
}

/** Account operable for deposits, and the chain's wallet announced (account.wallet_created), or the request is refused. */
function requireReady(account: Account, asset: Asset): void {
  requireOperable(account, 'deposit_registration');
  if (!walletReady(account, asset.chain)) {
    throw new ApiError(
      'not_available',
      `the ${asset.chain} wallet of account ${account.account_id} is not derived yet; wait for account.wallet_created for ${asset.chain}`,
      {
        param: 'account_id',
        details: { chain: asset.chain },
      },
    );
  }
}

function issue(world: World, account: Account, asset: Asset, wallet: WalletKey, single_use: boolean): DepositAddress {
  const store = depositAddressStore(world);
  const now = world.sim.now_ms();
  const da: DepositAddress = {
    deposit_address_id: world.newId('dpa'),
    org_id: account.org_id,
    account_id: account.account_id,
    asset_key: asset.asset_key,
    chain: asset.chain,
    address: wallet.address,
    wallet,
    single_use,
    created_at_ms: now,
    expires_at_ms: now + world.profile.deposit_address_ttl_ms,
    seq: world.nextSeq(),
  };
  store.byId.set(da.deposit_address_id, da);
  const mine = store.byAccount.get(account.account_id);
  if (mine) mine.push(da);
  else store.byAccount.set(account.account_id, [da]);
  return da;
}

/**
 * A new deposit address for the asset. While any reusable address of the account on that chain is still
 * monitored, the new one shares its on-chain address (spec: same address for all assets of one chain).
 */
export function createDepositAddress(world: World, account: Account, asset: Asset): DepositAddress {
  requireReady(account, asset);
  const store = depositAddressStore(world);
  const live = (store.byAccount.get(account.account_id) ?? []).findLast(
    (d) => !d.single_use && d.chain === asset.chain && isMonitored(world, d),
  );
  const wallet = live?.wallet ?? deriveWallet(asset.chain, store.rng.bytes(32));
  return issue(world, account, asset, wallet, false);
}

/** A single-use deposit address for a deposit-funded zap: always a fresh on-chain address. */
export function createZapDepositAddress(world: World, account: Account, asset: Asset): DepositAddress {
  requireReady(account, asset);
  return issue(world, account, asset, deriveWallet(asset.chain, depositAddressStore(world).rng.bytes(32)), true);
}

/** Any organization's deposit address (control plane). */
export function findDepositAddress(world: World, deposit_address_id: string): DepositAddress | undefined {
  return depositAddressStore(world).byId.get(deposit_address_id);
}

export function listDepositAddresses(
  world: World,
  account_id: string,
  q: { asset_key?: string; limit?: number; cursor?: string },
): Page<DepositAddress> {
  const items = (depositAddressStore(world).byAccount.get(account_id) ?? []).filter(
    (d) => q.asset_key === undefined || d.asset_key === q.asset_key,
  );
  return paginate(items, (d) => d.seq, { limit: q.limit, cursor: q.cursor });
}

export function serializeDepositAddress(d: DepositAddress): Record<string, unknown> {
  return { deposit_address_id: d.deposit_address_id, asset_key: d.asset_key, address: d.address, memo: null, tag: null };
}

/** A deleted organization: its deposit addresses go. */
export function forgetOrganizationAddresses(world: World, org: Organization, scope: ForgetScope): void {
  const store = depositAddressStore(world);
  dropWhere(store.byId, (da) => da.org_id === org.organization_id);
  for (const id of scope.accounts) store.byAccount.delete(id);
}
