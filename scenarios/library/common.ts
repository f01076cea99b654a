// Building blocks the library's scenarios share, all through the DSL: a funded account, a trade or zap
// run to its end, and the checks every failed operation owes (credit still open, balance unchanged).
import type { ScenarioDsl } from '../dsl/index.ts';
import { ETH, HUNDRED_USDC, ONE_ETH, USDC } from '../dsl/index.ts';

export interface Funded {
  account_id: string;
  credit_id: string;
  destination_id: string;
}

/** An account with one verified deposit credit of `atoms` of `from`, and a destination for `to`. */
export async function funded(
  t: ScenarioDsl,
  from = ETH,
  to = USDC,
  atoms = from === ETH ? ONE_ETH : HUNDRED_USDC,
  opts: { email?: string } = {},
): Promise<Funded> {
  const account_id = await t.account({ email: opts.email });
  const d = await t.deposit(account_id, from, atoms);
  if (!d.credit_id) throw new Error(`deposit ${d.deposit_id} made no credit (${d.status})`);
  const destination_id = await t.destination(account_id, to);
  return { account_id, credit_id: d.credit_id, destination_id };
}

/** A credit-funded USDC → ETH zap request of 60 USDC (no floor unless given). */
export function usdcZap(f: Funded, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    account_id: f.account_id,
    from_asset_key: USDC,
    to_asset_key: ETH,
    amount_in_atoms: '60000000',
    destination_id: f.destination_id,
    credit_id: f.credit_id,
    ...extra,
  };
}

/** After a failed trade/zap/cancel: the source credit is open again and the balance is whole. */
export async function expectUntouched(t: ScenarioDsl, f: Funded, asset_key: string, atoms: string): Promise<void> {
  await t.expectCredit(f.account_id, f.credit_id, 'open');
  await t.expectBalance(f.account_id, asset_key, atoms, '0');
}

/** Creates a zap and returns its id (the create must answer 200). */
export async function zapId(t: ScenarioDsl, body: Record<string, unknown>): Promise<string> {
  const r = await t.zap(body);
  t.expectHttp('zap created', r, 200);
  return r.body.zap.zap_id;
}
