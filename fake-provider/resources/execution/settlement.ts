// The settlement object of trades and zaps: two legs (out: source asset leaves the account; in: the
// market maker pays the output), each a real-format transaction whose confirmations are derived from
// sim time and the chain's block time, so no per-block task is needed.
import type { World } from '../../world.ts';
import type { ChainTiming } from '../../profile.ts';
import type { WalletChain } from '../accounts/index.ts';
import { generateTxHash } from '../deposits/index.ts';

export type Leg = 'out' | 'in';

/**
 * A swap's settlement as the spec's Settlement object lays it out, leg by leg: each leg's chain, the sim
 * time of its transaction's first block (reset when a reorg drops it and it is resubmitted) and whether a
 * reorg has dropped it (until it reconfirms). Confirmations and finality are derived from sim time and
 * the chain's block time; the transaction hashes are drawn on read (`txHash`).
 */
export interface Settlement {
  readonly swap_id: string;
  readonly out_chain: WalletChain;
  readonly in_chain: WalletChain;
  out_included_at_ms: number;
  in_included_at_ms: number;
  out_orphaned: boolean;
  in_orphaned: boolean;
}

/** Each leg's field names (made once, not per read). */
const CHAIN = { out: 'out_chain', in: 'in_chain' } as const;
export const INCLUDED_AT = { out: 'out_included_at_ms', in: 'in_included_at_ms' } as const;
export const ORPHANED = { out: 'out_orphaned', in: 'in_orphaned' } as const;

export function newSettlement(swap_id: string, out_chain: WalletChain, in_chain: WalletChain, included_at_ms: number): Settlement {
  return {
    swap_id,
    out_chain,
    in_chain,
    out_included_at_ms: included_at_ms,
    in_included_at_ms: included_at_ms,
    out_orphaned: false,
    in_orphaned: false,
  };
}

/**
 * A leg's transaction hash, drawn from the swap's own stream (`settlements/<swap id>`: out's hash, then
 * in's) on every read rather than kept: a stream forked by name draws the same every time and moves no
 * other stream, so every read gives the same hash.
 */
function txHash(world: World, s: Settlement, which: Leg): string {
  const rng = world.sim.rng.fork(`settlements/${s.swap_id}`);
  const out = generateTxHash(s.out_chain, rng);
  return which === 'out' ? out : generateTxHash(s.in_chain, rng);
}

function timing(world: World, chain: string): ChainTiming {
  return world.profile.chains[chain];
}

/** Sim time at which the leg, as included now, reaches its chain's finality threshold. */
export function finalAt(world: World, s: Settlement, which: Leg): number {
  const t = timing(world, s[CHAIN[which]]);
  return s[INCLUDED_AT[which]] + t.block_ms * t.finality_confirmations;
}

function confirmations(world: World, s: Settlement, which: Leg): number {
  if (s[ORPHANED[which]]) return 0;
  const t = timing(world, s[CHAIN[which]]);
  const elapsed = world.sim.now_ms() - s[INCLUDED_AT[which]];
  return Math.max(0, Math.min(t.finality_confirmations, Math.floor(elapsed / t.block_ms) + (elapsed >= 0 ? 1 : 0)));
}

function finalized(world: World, s: Settlement, which: Leg): boolean {
  return !s[ORPHANED[which]] && world.sim.now_ms() >= finalAt(world, s, which);
}

/** The spec's Settlement object. */
export function serializeSettlement(world: World, s: Settlement): Record<string, unknown> {
  return {
    out_tx_hash: txHash(world, s, 'out'),
    out_confirmations: confirmations(world, s, 'out'),
    out_finalized: finalized(world, s, 'out'),
    in_tx_hash: txHash(world, s, 'in'),
    in_confirmations: confirmations(world, s, 'in'),
    in_finalized: finalized(world, s, 'in'),
  };
}

/** History records carry hashes and finality only. */
export function settlementSummary(world: World, s: Settlement): Record<string, unknown> {
  return {
    out_tx_hash: txHash(world, s, 'out'),
    out_finalized: finalized(world, s, 'out'),
    in_tx_hash: txHash(world, s, 'in'),
    in_finalized: finalized(world, s, 'in'),
  };
}
