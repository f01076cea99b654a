// Command: a deposit-funded zap. POST /zaps without credit_id, then a deposit lands on the returned address:
// of the requested asset (executes on the observed amount), of another asset on the same chain
// (from_asset_mismatch), or from a flagged source (deposit_flagged).
import type fc from 'fast-check';
import { expect } from 'vitest';
import {
  api,
  checkAfterStep,
  expectOutcome,
  FUND_ASSETS,
  LIMITS,
  newOp,
  sourceAddressFor,
  tradeAsset,
  type TradingModel,
  type TradingReal,
} from '../model.ts';

export interface ZapFromDepositArgs {
  accountIdx: number;
  destinationIdx: number;
  fromIdx: number;
  usd: number;
  /** The observed deposit differs from the request by this many bps (negative: less arrives). */
  drift_bps: number;
  deposit: 'same' | 'sibling' | 'flagged';
}

const REFUSALS = ['insufficient_liquidity', 'unsupported_pair', 'destination_suspended'] as const;

/** What a deposit-funded zap picks by index: an account, one of its destinations, a funding asset (null: no destination). */
export function pickDepositZap(m: TradingModel, a: { accountIdx: number; destinationIdx: number; fromIdx: number }) {
  const account = m.accounts[a.accountIdx % m.accounts.length];
  const mine = m.destinations.filter((d) => d.account_id === account.account_id);
  if (mine.length === 0) return null;
  const dest = mine[a.destinationIdx % mine.length];
  return { account, dest, from: FUND_ASSETS[a.fromIdx % FUND_ASSETS.length], to: tradeAsset(dest.asset_key) };
}

/** POST /zaps without a credit: a 200 or a refusal the model allows (a suspended destination, and only it, answers destination_suspended). */
export async function postDepositZap(
  m: TradingModel,
  r: TradingReal,
  pick: NonNullable<ReturnType<typeof pickDepositZap>>,
  amount_in: bigint,
  extra: Record<string, unknown> = {},
) {
  const { account, dest, from, to } = pick;
  const res = await api(r, 'POST', '/zaps', {
    body: {
      account_id: account.account_id,
      destination_id: dest.destination_id,
      from_asset_key: from.asset_key,
      to_asset_key: to.asset_key,
      amount_in_atoms: amount_in.toString(),
      min_amount_out_atoms: '0',
      ...extra,
    },
  });
  const code = expectOutcome(res, [200], [...REFUSALS, m.profile.size_out_of_bounds_error], 'zap from deposit');
  if (dest.suspended) expect(code, JSON.stringify(res.body)).toBe('destination_suspended');
  else expect(code).not.toBe('destination_suspended');
  return { code, res };
}

export class ZapFromDeposit implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(readonly a: ZapFromDepositArgs) {}
  check = (m: Readonly<TradingModel>): boolean => m.accounts.length > 0 && m.destinations.length > 0 && m.ops.length < LIMITS.ops;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const pick = pickDepositZap(m, this.a);
    if (!pick) return checkAfterStep(m, r);
    const { account, from, to } = pick;
    const amount_in = BigInt(this.a.usd) * from.atoms_per_usd;
    const { code, res } = await postDepositZap(m, r, pick, amount_in);
    if (code !== null) return checkAfterStep(m, r);
    const zap = res.body.zap;
    expect(zap.status).toBe('awaiting_deposit');
    expect(zap.deposit_address.asset_key).toBe(from.asset_key);

    const observed = (amount_in * BigInt(10_000 + this.a.drift_bps)) / 10_000n || 1n;
    const landing: Record<string, unknown> = { deposit_address_id: zap.deposit_address.deposit_address_id, atoms: observed.toString() };
    if (this.a.deposit === 'sibling') landing.asset_key = from.sibling;
    if (this.a.deposit === 'flagged') {
      const source = sourceAddressFor(from.chain, 30_000 + ++m.addresses);
      const flag = await r.sim.control('POST', '/screening/addresses', { address: source, flag_reason: 'sanctions_match' });
      expect(flag.status, JSON.stringify(flag.body)).toBe(200);
      landing.source_address = source;
    }
    const dep = await r.sim.control('POST', '/deposits', landing);
    expect(dep.status, JSON.stringify(dep.body)).toBe(200);
    // The zap executes on what was observed; another asset fails it (the deposit still credits that asset),
    // a flagged source fails it (no credit); an observed amount outside the size bounds fails execution.
    const tx_hash: string = dep.body.deposit.tx_hash;
    const asset_key = this.a.deposit === 'sibling' ? from.sibling! : from.asset_key;
    const uncertain = account.deposit_faults > 0;
    m.deposits.push({
      account_id: account.account_id,
      tx_hash,
      asset_key,
      atoms: observed,
      expect: uncertain ? 'uncertain' : this.a.deposit === 'flagged' ? 'flagged' : 'verified',
    });
    const may_fail = ['execution_failed'];
    if (this.a.deposit === 'sibling') may_fail.push('from_asset_mismatch');
    if (this.a.deposit === 'flagged') may_fail.push('deposit_flagged');
    if (uncertain) may_fail.push('deposit_insufficient_confirmations', 'deposit_flagged');
    const observedIn = {
      amount_in_atoms: observed,
      amount_out_atoms: null,
      min_out_atoms: 0n,
      from_asset_key: from.asset_key,
      to_asset_key: to.asset_key,
    };
    m.ops.push({ ...newOp('zap', zap.zap_id, account.account_id, null, observedIn, may_fail), deposit_tx: tx_hash });
    await checkAfterStep(m, r);
  }
  toString = (): string => `zapFromDeposit(${JSON.stringify(this.a)})`;
}
