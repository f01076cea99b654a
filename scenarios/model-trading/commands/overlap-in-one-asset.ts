// Command (a hard path): lifecycles that overlap on one account and one asset. Two fresh deposits of one
// asset give the account two neighbouring credits; then, back to back, two firm trades into one output
// asset (two swaps' outputs pending in one balance row at once), a trade and a zap into one asset, or a
// cancel of one credit beside a zap of its neighbour. The model follows each entity on its own (pending
// amounts per step, holders per credit, each outcome booked), so state kept per balance row instead of per
// entity shows as a mismatch at the step it happens.
import type fc from 'fast-check';
import { expect } from 'vitest';
import {
  advance,
  api,
  checkAfterStep,
  creditsOf,
  depositSettleMs,
  FUND_ASSETS,
  outputPending,
  recognise,
  sourceAddressFor,
  type TradingModel,
  type TradingReal,
} from '../model.ts';
import { Cancel } from './cancel.ts';
import { FirmTrade } from './firm-trade.ts';
import { ZapFromCredit } from './zap-from-credit.ts';

export type OverlapVariant = 'two_trades' | 'trade_and_zap' | 'cancel_and_zap';

export class OverlapInOneAsset implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(
    readonly accountIdx: number,
    readonly assetIdx: number,
    readonly toIdx: number,
    readonly variant: OverlapVariant,
  ) {}
  check = (m: Readonly<TradingModel>): boolean => m.accounts.length > 0;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const account = m.accounts[this.accountIdx % m.accounts.length];
    const asset = FUND_ASSETS[this.assetIdx % FUND_ASSETS.length];
    const others = FUND_ASSETS.filter((a) => a.asset_key !== asset.asset_key);
    const to = others[this.toIdx % others.length];
    // Two neighbouring credits of one asset: two deposits that verify together.
    const txs: string[] = [];
    for (const usd of [300n, 500n]) {
      const da = await api(r, 'POST', `/accounts/${account.account_id}/deposit-addresses`, { body: { asset_key: asset.asset_key } });
      expect(da.status, JSON.stringify(da.body)).toBe(200);
      const atoms = usd * asset.atoms_per_usd;
      const dep = await r.sim.control('POST', '/deposits', {
        deposit_address_id: da.body.deposit_address.deposit_address_id,
        atoms: atoms.toString(),
      });
      expect(dep.status, JSON.stringify(dep.body)).toBe(200);
      txs.push(dep.body.deposit.tx_hash);
      m.deposits.push({
        account_id: account.account_id,
        tx_hash: dep.body.deposit.tx_hash,
        asset_key: asset.asset_key,
        atoms,
        expect: account.deposit_faults > 0 ? 'uncertain' : 'verified',
      });
    }
    await checkAfterStep(m, r);
    await advance(m, r, depositSettleMs(m.profile, asset.chain, m.org.partner_screening));
    await checkAfterStep(m, r);
    // Destinations it needs, usable: the output asset's, and (for the cancel) the deposits' own asset's.
    const destinationFor = async (asset_key: string): Promise<number> => {
      const mine = () => m.destinations.filter((d) => d.account_id === account.account_id);
      let at = mine().findIndex((d) => d.asset_key === asset_key && !d.suspended);
      if (at < 0) {
        const address = sourceAddressFor(FUND_ASSETS.find((a) => a.asset_key === asset_key)!.chain, 50_000 + ++m.addresses);
        const res = await api(r, 'POST', `/accounts/${account.account_id}/destinations`, { body: { asset_key, address } });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        m.destinations.push({
          destination_id: res.body.destination.destination_id,
          account_id: account.account_id,
          asset_key,
          suspended: false,
        });
        at = mine().length - 1;
      }
      return at;
    };
    const outIdx = await destinationFor(to.asset_key);
    /** The credit a deposit made, as an index into the open credits listed now (commands pick by index). */
    const creditIdx = async (tx: string): Promise<number | null> => {
      const open = await creditsOf(r, account.account_id);
      for (const c of open) recognise(m, c);
      const at = open.findIndex((c) => c.source_type === 'deposit' && c.source_id.toLowerCase() === tx.toLowerCase());
      return at < 0 ? null : at;
    };
    const what = `overlap.${this.variant}`;
    const first = await creditIdx(txs[0]);
    if (first === null || (await creditIdx(txs[1])) === null) return checkAfterStep(m, r);
    m.reach.tried.add(what);
    const before = m.ops.length;
    const trade = (c: number) =>
      new FirmTrade({
        accountIdx: this.accountIdx,
        creditIdx: c,
        destinationIdx: outIdx,
        side: 'exact_in',
        fraction_bps: 6_000,
        slippage_bps: '1000',
        ttl_ms: 30_000,
        wait_ms: 1_000,
        accept: true,
      });
    const zap = (c: number) =>
      new ZapFromCredit({
        accountIdx: this.accountIdx,
        creditIdx: c,
        destinationIdx: outIdx,
        fraction_bps: 6_000,
        high_floor: false,
        expires_in_ms: null,
      });
    if (this.variant === 'cancel_and_zap') {
      const ownIdx = await destinationFor(asset.asset_key);
      const fits = m.destinations.filter((d) => d.account_id === account.account_id && d.asset_key === asset.asset_key);
      const own = m.destinations.filter((d) => d.account_id === account.account_id)[ownIdx];
      await new Cancel(this.accountIdx, first, fits.indexOf(own)).run(m, r);
    } else await trade(first).run(m, r);
    const second = await creditIdx(txs[1]);
    if (second !== null) await (this.variant === 'two_trades' ? trade(second) : zap(second)).run(m, r);
    // Both in flight: past every fill and settlement start, before the slower chain's finality.
    await advance(m, r, 2_500);
    await checkAfterStep(m, r);
    const made = m.ops.slice(before);
    const swaps = made.filter((o) => o.kind !== 'cancel');
    if (made.length === 2 && (this.variant === 'cancel_and_zap' ? made.every((o) => o.outcome === null) : swaps.every(outputPending)))
      m.reach.reached.add(what);
  }
  toString = (): string => `overlapInOneAsset(account#${this.accountIdx}, asset#${this.assetIdx}, to#${this.toIdx}, ${this.variant})`;
}
