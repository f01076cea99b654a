// Command (a boundary-seeking clock step): the clock moves to exactly one tick before, the instant of, or one
// tick after the end of a deposit address's monitoring window (opened + the profile's deposit_address_ttl_ms),
// and a transfer lands there. One tick before it is detected as any deposit; from the instant the window ends
// it is refused (409 deposit_window_closed) and nothing changes (the Deposit command's rule). The spec says
// only "monitored for a bounded period"; swapsim's period is the profile's, ending at opened + ttl.
import type fc from 'fast-check';
import { DEFAULT_PROFILE } from '../../../fake-provider/profile.ts';
import { LIMITS, type CoreModel, type CoreReal } from '../model.ts';
import { Deposit } from './deposit.ts';

export type WindowTick = -1 | 0 | 1;

export class DepositAtWindowEdge implements fc.AsyncCommand<CoreModel, CoreReal> {
  constructor(readonly addressIdx: number, readonly tick: WindowTick, readonly atoms: bigint) {}
  /** Only forward: an address whose edge (plus the tick) already passed is left to the ordinary Deposit command. */
  check = (m: Readonly<CoreModel>): boolean =>
    m.addresses.length > 0 && m.deposits.length < LIMITS.deposits && this.target(m) > m.now_ms;
  target(m: Readonly<CoreModel>): number {
    const address = m.addresses[this.addressIdx % m.addresses.length];
    return address.opened_at_ms + DEFAULT_PROFILE.deposit_address_ttl_ms + this.tick;
  }
  async run(m: CoreModel, r: CoreReal): Promise<void> {
    const ms = this.target(m) - m.now_ms;
    await r.sim.advance(ms);
    m.now_ms += ms;
    await new Deposit(this.addressIdx, this.atoms, false).run(m, r);
  }
  toString = (): string => `depositAtWindowEdge(address#${this.addressIdx}, ${this.tick > 0 ? '+' : ''}${this.tick} tick, ${this.atoms}n)`;
}
