// Test flows shared by the trading suites: an account funded through the real deposit lifecycle, a
// destination for an asset, and a firm quote polled to ready. Each step asserts its own answer.
import type { TestSim } from './harness.ts';
import { deriveWallet, type WalletChain } from '../resources/accounts/wallets.ts';
import { assetByKey } from '../resources/assets/catalog.ts';

let addressCounter = 0;

function must<T = any>(r: { status: number; body: any }, what: string, status = 200): T {
  if (r.status !== status) throw new Error(`${what}: expected ${status}, got ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A fresh real-format address on the asset's chain (a valid destination or source). */
function addressFor(asset_key: string): string {
  const seed = new Uint8Array(32);
  seed[0] = 0x77;
  new DataView(seed.buffer).setUint32(28, ++addressCounter);
  return deriveWallet(assetByKey(asset_key)!.chain as WalletChain, seed).address;
}

export async function readyAccount(sim: TestSim, key?: string): Promise<string> {
  const body = must(await sim.api('POST', '/accounts', { body: {}, key }), 'create account');
  await sim.advance(10_000);
  return body.account.account_id;
}

/** Deposits `atoms` of `asset_key` into the account and settles: returns the open credit. */
export async function fund(sim: TestSim, account_id: string, asset_key: string, atoms: string, key?: string): Promise<string> {
  const da = must(
    await sim.api('POST', `/accounts/${account_id}/deposit-addresses`, { body: { asset_key }, key }),
    'deposit address',
  ).deposit_address;
  const dep = must(await sim.control('POST', '/deposits', { deposit_address_id: da.deposit_address_id, atoms }), 'deposit').deposit;
  await sim.settle();
  const credits = must(
    await sim.api('GET', `/accounts/${account_id}/credits?asset_key=${encodeURIComponent(asset_key)}&limit=100`, { key }),
    'credits',
  ).credits;
  const credit = credits.find(
    (c: { source_id: string; source_type: string }) => c.source_type === 'deposit' && c.source_id === dep.tx_hash.toLowerCase(),
  );
  if (!credit) throw new Error(`no credit for deposit ${dep.tx_hash}: ${JSON.stringify(credits)}`);
  return credit.credit_id;
}

export async function destination(sim: TestSim, account_id: string, asset_key: string, key?: string): Promise<string> {
  return must(
    await sim.api('POST', `/accounts/${account_id}/destinations`, { body: { asset_key, address: addressFor(asset_key) }, key }),
    'destination',
  ).destination.destination_id;
}

/** A firm RFQ polled (advancing the clock) until ready; returns the quote id. */
export async function firmQuote(
  sim: TestSim,
  q: {
    account_id: string;
    credit_id: string;
    destination_id: string;
    from: string;
    to: string;
    amount_in_atoms: string;
    key?: string;
    ttl_ms?: number;
  },
): Promise<{ rfq_id: string; quote_id: string }> {
  const r = await sim.api('POST', '/rfqs', {
    key: q.key,
    body: {
      account_id: q.account_id,
      credit_id: q.credit_id,
      destination_id: q.destination_id,
      from_asset_key: q.from,
      to_asset_key: q.to,
      side: 'exact_in',
      amount_in_atoms: q.amount_in_atoms,
      mode: 'firm',
      ttl_ms: q.ttl_ms ?? 30_000,
    },
  });
  if (r.status !== 200 && r.status !== 202) throw new Error(`rfq: ${r.status} ${JSON.stringify(r.body)}`);
  let rfq = r.body.rfq;
  for (let i = 0; rfq.status !== 'ready' && i < 50; i++) {
    await sim.advance(rfq.poll_after_ms ?? 100);
    rfq = must(await sim.api('GET', `/rfqs/${rfq.rfq_id}`, { key: q.key }), 'poll rfq').rfq;
  }
  if (rfq.status !== 'ready') throw new Error(`rfq ${rfq.rfq_id} never became ready`);
  return { rfq_id: rfq.rfq_id, quote_id: rfq.best_quote_id };
}
