// The settlement object of trades and zaps: two legs (out: source asset leaves the account; in: the
// market maker pays the output), each a real-format transaction whose confirmations are derived from
// sim time and the chain's block time, so no per-block task is needed.
import type { World } from '../../world.ts';
import type { ChainTiming } from '../../profile.ts';
import type { Rng } from '../../../sim/index.ts';
import type { WalletChain } from '../accounts/index.ts';
import { generateTxHash } from '../deposits/index.ts';

export type Leg = 'out' | 'in';

export interface LegState {
  readonly tx_hash: string;
  readonly chain: string;
  /** Sim time of the transaction's first block; reset when a reorg drops it and it is resubmitted. */
  included_at_ms: number;
  /** True while a reorg has dropped the leg (until it is reconfirmed). */
  orphaned: boolean;
}

export interface Settlement {
  out: LegState;
  in: LegState;
}

/**
 * A swap's two settlement legs. Their transaction hashes are drawn from the swap's own stream
 * (`settlements/<swap id>`: out's hash, then in's) each time they are read rather than kept: a stream
 * forked by name draws the same every time and moves no other stream, so every read gives the same
 * hashes, and a settled swap keeps no 66-character string per leg (about 180 bytes per trade).
 */
export class SwapSettlement implements Settlement {
  readonly out: SettlementLeg;
  readonly in: SettlementLeg;

  constructor(
    private readonly rng: Rng,
    private readonly swap_id: string,
    out_chain: WalletChain,
    in_chain: WalletChain,
    included_at_ms: number,
  ) {
    this.out = new SettlementLeg(this, 'out', out_chain, included_at_ms);
    this.in = new SettlementLeg(this, 'in', in_chain, included_at_ms);
  }

  txHash(which: Leg): string {
    const rng = this.rng.fork(`settlements/${this.swap_id}`);
    const out = generateTxHash(this.out.chain, rng);
    return which === 'out' ? out : generateTxHash(this.in.chain, rng);
  }
}

class SettlementLeg implements LegState {
  orphaned = false;

  constructor(
    private readonly settlement: SwapSettlement,
    private readonly which: Leg,
    readonly chain: WalletChain,
    public included_at_ms: number,
  ) {}

  get tx_hash(): string {
    return this.settlement.txHash(this.which);
  }
}

export function timing(world: World, chain: string): ChainTiming {
  return world.profile.chains[chain];
}

/** Sim time at which a leg included at `included_at_ms` reaches its chain's finality threshold. */
export function finalAt(world: World, leg: LegState): number {
  const t = timing(world, leg.chain);
  return leg.included_at_ms + t.block_ms * t.finality_confirmations;
}

export function confirmations(world: World, leg: LegState): number {
  if (leg.orphaned) return 0;
  const t = timing(world, leg.chain);
  const elapsed = world.sim.now_ms() - leg.included_at_ms;
  return Math.max(0, Math.min(t.finality_confirmations, Math.floor(elapsed / t.block_ms) + (elapsed >= 0 ? 1 : 0)));
}

export function finalized(world: World, leg: LegState): boolean {
  return !leg.orphaned && world.sim.now_ms() >= finalAt(world, leg);
}

/** The spec's Settlement object. */
export function serializeSettlement(world: World, s: Settlement): Record<string, unknown> {
  return {
    out_tx_hash: s.out.tx_hash,
    out_confirmations: confirmations(world, s.out),
    out_finalized: finalized(world, s.out),
    in_tx_hash: s.in.tx_hash,
    in_confirmations: confirmations(world, s.in),
    in_finalized: finalized(world, s.in),
  };
}

/** History records carry hashes and finality only. */
export function settlementSummary(world: World, s: Settlement): Record<string, unknown> {
  return { out_tx_hash: s.out.tx_hash, out_finalized: finalized(world, s.out), in_tx_hash: s.in.tx_hash, in_finalized: finalized(world, s.in) };
}
