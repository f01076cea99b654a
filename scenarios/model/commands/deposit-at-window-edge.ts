// Command (a boundary-seeking clock step): a fresh deposit address, then the clock moves to exactly one tick
// before, the instant of, and one tick after the end of its monitoring window (opened + the profile's
// deposit_address_ttl_ms) and a transfer lands at each. One tick before it is detected as any deposit; from the
// instant the window ends it is refused (409 deposit_window_closed) and nothing changes (the Deposit command's
// rule). The spec says only "monitored for a bounded period"; swapsim's period is the profile's, ending at
// opened + ttl. The account's chain wallet must exist first (account.wallet_created): the clock moves there.
import type fc from 'fast-check';
import { ASSETS } from '../../../fake-provider/resources/assets/catalog.ts';
import { WALLET_CHAINS } from '../../../fake-provider/resources/accounts/wallets.ts';
import { DEFAULT_PROFILE } from '../../../fake-provider/profile.ts';
import { LIMITS, type CoreModel, type CoreReal } from '../model.ts';
import { Deposit } from './deposit.ts';
import { OpenDepositAddress } from './open-deposit-address.ts';

export class DepositAtWindowEdge implements fc.AsyncCommand<CoreModel, CoreReal> {
  constructor(
    readonly accountIdx: number,
    readonly assetIdx: number,
    readonly atoms: bigint,
  ) {}
  check = (m: Readonly<CoreModel>): boolean =>
    m.accounts.length > 0 && m.addresses.length < LIMITS.addresses && m.deposits.length < LIMITS.deposits;
  async run(m: CoreModel, r: CoreReal): Promise<void> {
    const moveTo = async (at_ms: number): Promise<void> => {
      if (at_ms <= m.now_ms) return;
      await r.sim.advance(at_ms - m.now_ms);
      m.now_ms = at_ms;
    };
    const account = m.accounts[this.accountIdx % m.accounts.length];
    const asset = ASSETS[this.assetIdx % ASSETS.length];
    await moveTo(account.created_at_ms + DEFAULT_PROFILE.wallet_derivation_ms + WALLET_CHAINS.indexOf(asset.chain) * 250);
    await new OpenDepositAddress(this.accountIdx, this.assetIdx).run(m, r);
    const addressIdx = m.addresses.length - 1;
    const closes_at_ms = m.addresses[addressIdx].opened_at_ms + DEFAULT_PROFILE.deposit_address_ttl_ms;
    for (const tick of [-1, 0, 1]) {
      await moveTo(closes_at_ms + tick);
      await new Deposit(addressIdx, this.atoms, false).run(m, r);
    }
  }
  toString = (): string => `depositAtWindowEdge(account#${this.accountIdx}, asset#${this.assetIdx}, ${this.atoms}n)`;
}
