// What a script needs before its load starts, built through /v1 (and the control plane for money): an
// account whose wallets exist, a registered destination, and an open credit funded by a real deposit.
import { call, json, type Res } from './api.ts';
import { landDeposit, waitFor, type ControlInfo } from './control.ts';
import { envString, type Env } from './config.ts';

export interface Assets {
  from_asset_key: string;
  to_asset_key: string;
  /** Deposited per funded account (atoms of from_asset). */
  deposit_atoms: string;
  /** Traded per RFQ (atoms of from_asset); small enough to stay inside the spec's 1..100000 USD. */
  amount_in_atoms: string;
}

export function assetsConfig(env: Env): Assets {
  return {
    from_asset_key: envString(env, 'FROM_ASSET', 'native.evm:42161'),
    to_asset_key: envString(env, 'TO_ASSET', 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831'),
    deposit_atoms: envString(env, 'DEPOSIT_ATOMS', '1000000000000000000'),
    amount_in_atoms: envString(env, 'AMOUNT_IN_ATOMS', '10000000000000000'),
  };
}

export interface Api {
  base_url: string;
  key: string;
}

function must(res: Res, what: string): any {
  if (res.status < 200 || res.status >= 300) throw new Error(`${what}: ${res.status} ${String(res.body).slice(0, 300)}`);
  return json(res);
}

/** A lowercase EVM address (no EIP-55 checksum claimed) that is new for this run. */
function freshEvmAddress(): string {
  let hex = '';
  for (let i = 0; i < 40; i++) hex += Math.floor(Math.random() * 16).toString(16);
  return `0x${hex}`;
}

export function createAccount(api: Api, idem: string, body: { label?: string; external_id?: string } = {}): string {
  return must(call(api.base_url, 'POST', '/accounts', { key: api.key, idem, body, name: '/accounts' }), 'create account').account
    .account_id;
}

function registerDestination(api: Api, account_id: string, asset_key: string, idem: string): string {
  const res = call(api.base_url, 'POST', `/accounts/${account_id}/destinations`, {
    key: api.key,
    idem,
    body: { asset_key, address: freshEvmAddress(), label: 'k6' },
    name: '/accounts/{id}/destinations',
  });
  return must(res, 'register destination').destination.destination_id;
}

/** A deposit address, waiting (sim time) for the chain's wallet: before it exists the answer is 404 not_available. */
export function depositAddress(api: Api, ctl: ControlInfo | null, account_id: string, asset_key: string, idem: string): any {
  // A 4xx answer is final for its Idempotency-Key (it is stored and replayed), so each try gets its own.
  return waitFor(ctl, 'the wallet of a new account', 1000, 60, (attempt) => {
    const res = call(api.base_url, 'POST', `/accounts/${account_id}/deposit-addresses`, {
      key: api.key,
      idem: `${idem}-${attempt}`,
      body: { asset_key },
      name: '/accounts/{id}/deposit-addresses',
      expected: [404],
    });
    if (res.status === 404 && json(res)?.error?.code === 'not_available') return null;
    return must(res, 'deposit address').deposit_address;
  });
}

/** The open credit a deposit with this tx hash (null: any deposit) created, once verified (polled on sim time). */
export function creditFor(api: Api, ctl: ControlInfo | null, account_id: string, asset_key: string, tx_hash: string | null): string {
  return waitFor(ctl, `the credit of deposit ${tx_hash ?? `to ${account_id}`}`, 1000, 180, () => {
    const res = call(api.base_url, 'GET', `/accounts/${account_id}/credits?asset_key=${encodeURIComponent(asset_key)}&limit=100`, {
      key: api.key,
      name: '/accounts/{id}/credits',
    });
    const credits: any[] = must(res, 'list credits').credits;
    const c = credits.find(
      (x) => x.source_type === 'deposit' && (tx_hash === null || String(x.source_id).toLowerCase() === tx_hash.toLowerCase()),
    );
    return c ? String(c.credit_id) : null;
  });
}

export interface Funded {
  account_id: string;
  credit_id: string;
  destination_id: string;
}

/**
 * An account with an open from_asset credit and a to_asset destination: what a firm RFQ needs. On a split
 * run every instance calls this with the same prefix: the account and its deposit address are replays of
 * the same Idempotency-Keys; only the leader registers the destination and lands the deposit (neither can
 * be replayed), the others wait for the leader's credit and use the same one.
 */
export function fundedAccount(api: Api, ctl: ControlInfo, assets: Assets, prefix: string, leader = true): Funded {
  const account_id = createAccount(api, `${prefix}-acct`, { label: 'k6 funded' });
  const da = depositAddress(api, ctl, account_id, assets.from_asset_key, `${prefix}-da`);
  if (!leader) {
    const credit_id = creditFor(api, ctl, account_id, assets.from_asset_key, null);
    const res = call(
      api.base_url,
      'GET',
      `/accounts/${account_id}/destinations?asset_key=${encodeURIComponent(assets.to_asset_key)}&limit=100`,
      { key: api.key, name: '/accounts/{id}/destinations' },
    );
    const dest = (must(res, 'list destinations').destinations as any[])[0];
    if (!dest) throw new Error(`the leader's destination of ${account_id} is missing`);
    return { account_id, credit_id, destination_id: dest.destination_id };
  }
  // The destination first: a follower that sees the credit finds the destination too.
  const destination_id = registerDestination(api, account_id, assets.to_asset_key, `${prefix}-dest`);
  const tx = landDeposit(ctl, da.deposit_address_id, assets.deposit_atoms);
  const credit_id = creditFor(api, ctl, account_id, assets.from_asset_key, tx);
  return { account_id, credit_id, destination_id };
}
