// Control-plane setup before a swapsim case (not measured): accounts made ready, deposits landed and settled
// into open credits, destinations registered. Every step checks its answer so a broken setup fails loudly.
import { deriveWallet } from '../../fake-provider/resources/accounts/wallets.ts';

export const FROM_ASSET = 'native.evm:42161';
export const TO_ASSET = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';
/** 0.01 ETH per deposit: one credit, traded whole by the mixed lifecycle. */
export const CREDIT_ATOMS = '10000000000000000';

export interface Target {
  /** http://127.0.0.1:PORT (the API is under /v1, the control plane under /_sim). */
  url: string;
  api_key: string;
}

export interface FundedAccount {
  account_id: string;
  destination_id: string;
  /** Open credits of FROM_ASSET, each usable by one firm RFQ + accept. */
  credit_ids: string[];
}

let idem = 0;

async function call(t: Target, method: string, path: string, body?: unknown): Promise<any> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (path.startsWith('/v1')) headers.authorization = `Bearer ${t.api_key}`;
  if (method === 'POST' && path.startsWith('/v1')) headers['idempotency-key'] = `bench-setup-${++idem}`;
  const res = await fetch(t.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`bench setup: ${method} ${path} answered ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A fresh EVM address for destinations (any valid address will do; the key is derived from a counter). */
function evmAddress(n: number): string {
  const seed = new Uint8Array(32);
  seed[0] = 0x42;
  new DataView(seed.buffer).setUint32(28, n + 1);
  return deriveWallet('evm:42161', seed).address;
}

async function allCredits(t: Target, account_id: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const page = await call(t, 'GET', `/v1/accounts/${account_id}/credits?asset_key=${encodeURIComponent(FROM_ASSET)}&limit=100${q}`);
    for (const c of page.credits) if (c.status === 'open') ids.push(c.credit_id);
    cursor = page.has_more ? page.next_cursor : null;
  } while (cursor);
  return ids;
}

/** `accounts` ready accounts, each with `credits_each` open credits and one destination for TO_ASSET. */
export async function fundAccounts(t: Target, accounts: number, credits_each: number): Promise<FundedAccount[]> {
  const created: Array<{ account_id: string; deposit_address_id: string }> = [];
  for (let i = 0; i < accounts; i++) {
    const { account } = await call(t, 'POST', '/v1/accounts', { label: `bench ${i}` });
    created.push({ account_id: account.account_id, deposit_address_id: '' });
  }
  // Accounts announce their wallets on the sim clock before deposit addresses can be issued.
  await call(t, 'POST', '/_sim/clock/advance', { ms: 10_000 });
  const out: FundedAccount[] = [];
  for (const [i, a] of created.entries()) {
    const { deposit_address } = await call(t, 'POST', `/v1/accounts/${a.account_id}/deposit-addresses`, { asset_key: FROM_ASSET });
    for (let k = 0; k < credits_each; k++)
      await call(t, 'POST', '/_sim/deposits', { deposit_address_id: deposit_address.deposit_address_id, atoms: CREDIT_ATOMS });
    const { destination } = await call(t, 'POST', `/v1/accounts/${a.account_id}/destinations`, {
      asset_key: TO_ASSET,
      address: evmAddress(i),
    });
    out.push({ account_id: a.account_id, destination_id: destination.destination_id, credit_ids: [] });
  }
  await call(t, 'POST', '/_sim/clock/settle', {});
  for (const a of out) {
    a.credit_ids = await allCredits(t, a.account_id);
    if (a.credit_ids.length !== credits_each)
      throw new Error(`bench setup: ${a.account_id} has ${a.credit_ids.length} open credits, expected ${credits_each}`);
  }
  return out;
}

/** Advances the sim clock by `step_ms` every `step_ms` of wall time (trades move on while the load runs). */
export function driveClock(t: Target, step_ms: number): () => Promise<void> {
  let stopped = false;
  let pending: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    pending = pending.then(() => (stopped ? undefined : call(t, 'POST', '/_sim/clock/advance', { ms: step_ms })));
  }, step_ms);
  return async () => {
    stopped = true;
    clearInterval(timer);
    await pending;
  };
}
