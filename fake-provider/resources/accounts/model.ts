// Account operations over the world: create (with wallet derivation per chain on the sim clock), read,
// list, attach an email, deactivate, and the guards other resources call before acting on an account.
import { defineTask, entityStore, lifecycle, publish, statusOf, type MachineSnapshot } from '../../engine/index.ts';
import { defineStore, type Organization, type World } from '../../world.ts';
import { ApiError } from '../../contract/errors.ts';
import { paginate, type Page } from '../../contract/pagination.ts';
import { nativeAssetOf } from '../assets/index.ts';
import { accountMachine, type AccountEffect, type AccountEvent, type AccountStatus } from './machine.ts';
import { deriveWallet, WALLET_CHAINS, type WalletChain, type WalletKey } from './wallets.ts';
import type { ForgetScope } from '../../resource-records.ts';

const accountLifecycle = lifecycle(accountMachine);

export interface Account {
  account_id: string;
  org_id: string;
  label: string | null;
  external_id: string | null;
  email: string | null;
  created_at_ms: number;
  seq: number;
  snapshot: MachineSnapshot<typeof accountMachine>;
  /** Real keys, kept for the key-export flow; never serialized into /v1 responses. */
  wallets: Map<WalletChain, WalletKey>;
  /**
   * The HPKE-sealed keys `account.key_exported` carries. Sealing is async, so the export flow seals them
   * and sets this just before it sends SETTLEMENTS_RESOLVED; unset until then.
   */
  exported_keys?: Array<{ chain: WalletChain; address: string; export_bundle: string }>;
}

const accountIdOf = (x: Account): string => x.account_id;

export const accountStore = defineStore('accounts', (world) => ({
  ...entityStore<Account>('acct', accountIdOf),
  /** Wallet seeds come from their own stream so that adding a chain never shifts other draws. */
  walletRng: world.sim.rng.fork('wallets'),
}));

export function accountStatus(account: Account): AccountStatus {
  return statusOf(account.snapshot) as AccountStatus;
}

function applyEffects(world: World, account: Account, effects: AccountEffect[]): void {
  for (const effect of effects) {
    if (effect.type === 'publish_wallet') {
      const wallet = account.wallets.get(effect.chain)!;
      publish(world, account.org_id, account.account_id, 'account.wallet_created', {
        chain: effect.chain,
        address: wallet.address,
        asset_key: nativeAssetOf(effect.chain).asset_key,
      });
    } else if (effect.event_type === 'account.created') {
      publish(world, account.org_id, account.account_id, 'account.created', { label: account.label, external_id: account.external_id });
    } else if (effect.event_type === 'account.export_initiated') {
      publish(world, account.org_id, account.account_id, effect.event_type, { export_source: account.snapshot.context.export_source });
    } else if (effect.event_type === 'account.deactivated') {
      publish(world, account.org_id, account.account_id, effect.event_type, {});
    } else {
      // Only the export flow (resources/exports) sends SETTLEMENTS_RESOLVED, after sealing the bundles.
      if (!account.exported_keys) throw new Error(`account ${account.account_id} reached exported without sealed keys`);
      publish(world, account.org_id, account.account_id, effect.event_type, {
        keys: account.exported_keys,
        export_source: account.snapshot.context.export_source,
      });
    }
  }
}

/** Sends one event to an account's machine; returns false when the machine refuses it. */
export function sendAccount(world: World, account: Account, event: AccountEvent): boolean {
  return accountLifecycle.advance(world, account, account.account_id, event, applyEffects);
}

export function createAccount(world: World, org: Organization, input: { label?: string; external_id?: string }): Account {
  if (org.accounts_created >= world.profile.org_max_accounts) {
    throw new ApiError(
      'quota_exceeded',
      `this organization created its maximum of ${world.profile.org_max_accounts} accounts (profile org_max_accounts)`,
    );
  }
  org.accounts_created++;
  const store = accountStore(world);
  const account_id = world.newId('acct');
  const initial = accountLifecycle.start<AccountEffect>(world, account_id, {
    deactivated_allows_export: world.profile.deactivated_allows_export,
  });
  const account: Account = {
    account_id,
    org_id: org.organization_id,
    label: input.label ?? null,
    external_id: input.external_id ?? null,
    email: null,
    created_at_ms: world.sim.now_ms(),
    seq: world.nextSeq(),
    snapshot: initial.snapshot,
    wallets: new Map(WALLET_CHAINS.map((chain) => [chain, deriveWallet(chain, store.walletRng.bytes(32))])),
  };
  store.byId.insert(account);
  applyEffects(world, account, initial.effects);
  // Chains become ready one after another, a few sim-seconds after creation.
  WALLET_CHAINS.forEach((chain, i) => {
    world.sim.scheduler.after(world.profile.wallet_derivation_ms + i * 250, 'account.wallet_created', {
      account_id: account.account_id,
      chain,
    });
  });
  return account;
}

defineTask('account.wallet_created', (world, { account_id, chain }: { account_id: string; chain: WalletChain }) => {
  const account = accountStore(world).byId.get(account_id);
  if (account) sendAccount(world, account, { type: 'WALLET_CREATED', chain });
});

/** The account, if it exists and belongs to the org; otherwise 404 account_not_found (never a 403). */
export function requireAccount(world: World, org_id: string, account_id: string, param = 'account_id'): Account {
  const account = accountStore(world).byId.get(account_id);
  if (!account || account.org_id !== org_id) throw new ApiError('account_not_found', `no account ${account_id}`, { param });
  return account;
}

export function listAccounts(
  world: World,
  org_id: string,
  q: { status?: AccountStatus; external_id?: string; limit?: number; cursor?: string },
): Page<Account> {
  const items = accountStore(world).list.filter(
    (a) =>
      a.org_id === org_id &&
      (q.status === undefined || accountStatus(a) === q.status) &&
      (q.external_id === undefined || a.external_id === q.external_id),
  );
  return paginate(items, (a) => a.seq, { limit: q.limit, cursor: q.cursor });
}

export function setEmail(_world: World, account: Account, email: string | undefined): Account {
  if (accountStatus(account) === 'exported') {
    throw new ApiError('account_already_exported', 'the account has been exported; the service can no longer operate on it');
  }
  if (email !== undefined) account.email = email;
  return account;
}

/** Idempotent: deactivating a deactivated account answers the same account and fires nothing. */
export function deactivate(world: World, account: Account): Account {
  const status = accountStatus(account);
  if (status === 'deactivated') return account;
  if (!sendAccount(world, account, { type: 'DEACTIVATE' })) {
    throw new ApiError('account_not_operable', `an account in status ${status} cannot be deactivated`);
  }
  return account;
}

export type AccountAction = 'rfq' | 'zap' | 'deposit_registration' | 'destination_registration' | 'cancel';

/** Refuses new work on accounts that are deactivated (RFQs, zaps, deposits) or exporting/exported (everything). */
export function requireOperable(account: Account, action: AccountAction): void {
  const status = accountStatus(account);
  if (status === 'active') return;
  // Spec (States → Account): a deactivated account's open credits remain available for cancels.
  if (status === 'deactivated' && (action === 'destination_registration' || action === 'cancel')) return;
  throw new ApiError('account_not_operable', `account ${account.account_id} is ${status}; it accepts no new ${action.replace('_', ' ')}`, {
    param: 'account_id',
    details: { account_id: account.account_id, status },
  });
}

/** True once `account.wallet_created` has fired for the chain. */
export function walletReady(account: Account, chain: WalletChain): boolean {
  return account.snapshot.context.wallets_ready.includes(chain);
}

export function walletOf(account: Account, chain: WalletChain): WalletKey {
  return account.wallets.get(chain)!;
}

export function serializeAccount(a: Account): Record<string, unknown> {
  const out: Record<string, unknown> = {
    account_id: a.account_id,
    label: a.label,
    external_id: a.external_id,
    status: accountStatus(a),
    created_at_ms: a.created_at_ms,
  };
  if (a.email !== null) out.email = a.email;
  return out;
}

/** The organization's account ids (what a deleted organization's stores forget by). */
export function accountIdsOf(world: World, org_id: string): string[] {
  return accountStore(world)
    .list.filter((a) => a.org_id === org_id)
    .map((a) => a.account_id);
}

/** A deleted organization: its accounts go (wallet keys included). */
export function forgetOrganizationAccounts(world: World, org: Organization, scope: ForgetScope): void {
  const store = accountStore(world);
  store.byId.retain((a) => {
    if (a.org_id !== org.organization_id) return true;
    scope.gone.add(a.account_id);
    return false;
  });
}
