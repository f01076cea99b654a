// Transaction-monitoring screening: the set of addresses that fail screening, with their flag reason.
// Deposit sources, destinations at registration and recovery destinations are all checked here.
import { defineStore, type World } from '../../world.ts';

export const SCREENING_FLAG_REASONS = ['sanctions_match', 'high_risk_score', 'mixer_association'] as const;
export type ScreeningFlagReason = (typeof SCREENING_FLAG_REASONS)[number];

const screeningStore = defineStore('screening', () => new Map<string, ScreeningFlagReason>());

/** Addresses compare case-insensitively for EVM (hex) and exactly elsewhere; lowercasing hex is enough. */
const norm = (address: string): string => (/^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address);

export function flagAddress(world: World, address: string, reason: ScreeningFlagReason): void {
  screeningStore(world).set(norm(address), reason);
}

export function unflagAddress(world: World, address: string): boolean {
  return screeningStore(world).delete(norm(address));
}

/** The reason this address fails screening, or null when it passes. */
export function screen(world: World, address: string): ScreeningFlagReason | null {
  const flagged = screeningStore(world);
  // Most worlds flag nothing: every deposit's sender passes without its address being normalised.
  return flagged.size === 0 ? null : (flagged.get(norm(address)) ?? null);
}
