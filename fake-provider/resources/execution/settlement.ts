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
  readonly out: LegState;
  readonly in: LegState;
}

/**
 * A swap's two settlement legs, stored as one object: their chains, inclusion times and orphaned flags
 * as fields, `out` and `in` made on access as views that read and write them (one object per settled
 * swap instead of three). Their transaction hashes are drawn from the swap's own stream
 * (`settlements/<swap id>`: out's hash, then in's) each time they are read rather than kept: a stream
 * forked by name draws the same every time and moves no other stream, so every read gives the same
 * hashes, and a settled swap keeps no 66-character string per leg.
 */
export class SwapSettlement implements Settlement {
  out_included_at_ms: number;
  in_included_at_ms: number;
  out_orphaned = false;
  in_orphaned = false;

  constructor(
    private readonly rng: Rng,
    private readonly swap_id: string,
    readonly out_chain: WalletChain,
    readonly in_chain: WalletChain,
    included_at_ms: number,
  ) {
    this.out_included_at_ms = included_at_ms;
    this.in_included_at_ms = included_at_ms;
  }

  get out(): LegState {
    return new LegView(this, 'out');
  }

  get in(): LegState {
    return new LegView(this, 'in');
  }

  txHash(which: Leg): string {
    const rng = this.rng.fork(`settlements/${this.swap_id}`);
    const out = generateTxHash(this.out_chain, rng);
    return which === 'out' ? out : generateTxHash(this.in_chain, rng);
  }
}

/** One leg of a SwapSettlement, reading and writing the settlement's fields. */
class LegView implements LegState {
  constructor(
    private readonly s: SwapSettlement,
    private readonly which: Leg,
  ) {}

  get tx_hash(): string {
    return this.s.txHash(this.which);
  }
  get chain(): WalletChain {
    return this.which === 'out' ? this.s.out_chain : this.s.in_chain;
  }
  get included_at_ms(): number {
    return this.which === 'out' ? this.s.out_included_at_ms : this.s.in_included_at_ms;
  }
  set included_at_ms(at_ms: number) {
    if (this.which === 'out') this.s.out_included_at_ms = at_ms;
    else this.s.in_included_at_ms = at_ms;
  }
  get orphaned(): boolean {
    return this.which === 'out' ? this.s.out_orphaned : this.s.in_orphaned;
  }
  set orphaned(orphaned: boolean) {
    if (this.which === 'out') this.s.out_orphaned = orphaned;
    else this.s.in_orphaned = orphaned;
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
