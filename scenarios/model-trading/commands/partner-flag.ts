// Command (partner-screened organizations): a deposit lands, and the partner flags it inside its screening
// window (200; the deposit ends flagged, no credit) or after it (409; the deposit verifies as usual). The
// window's edges are hit on their exact ticks: its deadline is the landing time plus the profile's
// partner_window_ms (spec: 10 s by default, from created_at_ms); one tick before it the flag is honoured, at
// the deadline itself the window has closed (the spec oracle reads "within" as before the deadline).
import type fc from 'fast-check';
import { expect } from 'vitest';
import { advance, api, checkAfterStep, FUND_ASSETS, type TradingModel, type TradingReal } from '../model.ts';

export type PartnerTiming = 'inside' | 'late' | 'last_tick' | 'at_deadline';

export class PartnerFlag implements fc.AsyncCommand<TradingModel, TradingReal> {
  constructor(
    readonly accountIdx: number,
    readonly assetIdx: number,
    readonly timing: PartnerTiming,
  ) {}
  get late(): boolean {
    return this.timing === 'late' || this.timing === 'at_deadline';
  }
  check = (m: Readonly<TradingModel>): boolean => m.org.partner_screening && m.accounts.length > 0;
  async run(m: TradingModel, r: TradingReal): Promise<void> {
    const what = `partner.${this.timing}`;
    m.reach.tried.add(what);
    const account = m.accounts[this.accountIdx % m.accounts.length];
    const asset = FUND_ASSETS[this.assetIdx % FUND_ASSETS.length];
    const da = (await api(r, 'POST', `/accounts/${account.account_id}/deposit-addresses`, { body: { asset_key: asset.asset_key } })).body
      .deposit_address;
    const atoms = 500n * asset.atoms_per_usd;
    const landed = await r.sim.control('POST', '/deposits', { deposit_address_id: da.deposit_address_id, atoms: atoms.toString() });
    expect(landed.status, JSON.stringify(landed.body)).toBe(200);
    const tx_hash: string = landed.body.deposit.tx_hash;
    const deadline = m.now_ms + m.profile.partner_window_ms;
    // A deposit fault rule on the account may flag, drop or delay it.
    if (account.deposit_faults === 0)
      expect(
        landed.body.deposit.screening_deadline_ms,
        `deposit ${tx_hash}: its partner deadline is the landing time plus the window`,
      ).toBe(deadline);
    const wait = {
      inside: Math.min(2_000, m.profile.partner_window_ms - 1),
      late: m.profile.partner_window_ms + 1_000,
      last_tick: m.profile.partner_window_ms - 1,
      at_deadline: m.profile.partner_window_ms,
    }[this.timing];
    await advance(m, r, wait);
    const flag = await api(r, 'POST', `/deposits/${da.deposit_address_id}/flag`, {
      body: { tx_hash, flag_category: 'fraud', flag_message: 'reported by the partner' },
    });
    // A deposit fault rule on the account may already have flagged, dropped or delayed it.
    const uncertain = account.deposit_faults > 0;
    if (this.late) {
      expect(
        flag.status,
        `a partner flag ${this.timing === 'at_deadline' ? `at the deadline ${deadline}` : 'after the window'}: ${JSON.stringify(flag.body)}`,
      ).toBe(409);
      m.deposits.push({
        account_id: account.account_id,
        tx_hash,
        asset_key: asset.asset_key,
        atoms,
        expect: uncertain ? 'uncertain' : 'verified',
      });
      m.reach.reached.add(what);
    } else {
      if (!uncertain)
        expect(
          flag.status,
          `a partner flag inside the window (${deadline - m.now_ms} ms before its deadline): ${JSON.stringify(flag.body)}`,
        ).toBe(200);
      m.deposits.push({
        account_id: account.account_id,
        tx_hash,
        asset_key: asset.asset_key,
        atoms,
        expect: uncertain ? 'uncertain' : 'flagged',
      });
      if (flag.status === 200) m.reach.reached.add(what);
    }
    await checkAfterStep(m, r);
  }
  toString = (): string => `partnerFlag(account#${this.accountIdx}, asset#${this.assetIdx}, ${this.timing})`;
}
