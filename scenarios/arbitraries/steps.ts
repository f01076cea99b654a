// The steps a generated scenario is made of, as plain data (so fast-check can shrink them and a report can
// print them), the assets they use, and one readable line per step. Targets are picked by index at run time
// (`idx % n`), so a shrunk scenario stays runnable.
import type { FaultRuleInput } from '../../fake-provider/control/faults.ts';

/** Fast-finality assets on two chains with USD prices: every trade and cancel settles within seconds. */
export const SCENARIO_ASSETS = [
  { asset_key: 'native.evm:42161', label: 'ETH on Arbitrum', atoms_per_usd: 10n ** 18n / 3200n },
  { asset_key: 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831', label: 'USDC on Arbitrum', atoms_per_usd: 10n ** 6n },
  { asset_key: 'native.solana', label: 'SOL', atoms_per_usd: 10n ** 9n / 180n },
  { asset_key: 'spl.solana:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', label: 'USDC on Solana', atoms_per_usd: 10n ** 6n },
] as const;

export const assetAt = (i: number) => SCENARIO_ASSETS[i % SCENARIO_ASSETS.length];

export interface AccountSetup {
  /** Index into SCENARIO_ASSETS: the asset the account is funded with. */
  asset: number;
  usd: number;
}

export type JourneyStep =
  | { kind: 'deposit'; account: number; asset: number; usd: number }
  | { kind: 'trade'; account: number; credit: number; destination: number; fraction_bps: number }
  | { kind: 'zap'; account: number; credit: number; destination: number; fraction_bps: number; floor: 'none' | 'unreachable' }
  | { kind: 'zap_deposit'; account: number; asset: number; destination: number; usd: number }
  | { kind: 'cancel'; account: number; credit: number }
  | { kind: 'advance'; ms: number };

/** A provider-side fault, times 1, matched to one account: the next matching operation suffers it. */
export type FaultStep = {
  kind: 'fault';
  /** Journey position it is inserted before (`at % (steps + 1)`). */
  at: number;
  account: number;
} & TargetEffect<Extract<FaultRuleInput, { target: 'trade' | 'zap' | 'cancel' | 'deposit' }>>;

/** Target and effect of each member of a rule union (per member: the effect stays the target's own). */
type TargetEffect<R> = R extends { target: infer T; effect: infer E } ? { target: T; effect: E } : never;

export type WebhookEffect = 'duplicate' | 'reorder' | 'drop' | 'bad_signature' | 'delay_60s' | 'delay_10min';

export type ChaosStep =
  /** The next `times` deliveries of `event_type` (a pattern) to one account's events suffer `effect`. */
  | { kind: 'chaos'; at: number; account: number; effect: WebhookEffect; event_type: string; times: number }
  /** Every delivery for one account dropped for `hours` (longer than the 72 h retry window), then restored. */
  | { kind: 'outage'; at: number; account: number; hours: number }
  /** A delivery that did not come from the provider, posted straight to the webhook endpoint: it must get 401. */
  | {
      kind: 'forge';
      at: number;
      account: number;
      forgery: 'wrong_secret' | 'tampered_body' | 'unsigned';
      event: 'credit.created' | 'trade.executing';
    };

/** Probability of each webhook effect on every delivery of the run's accounts (swarm testing: drawn per run). */
export interface BackgroundChaos {
  duplicate: number;
  reorder: number;
  drop: number;
  bad_signature: number;
  delay: number;
}

export type Step = JourneyStep | FaultStep | ChaosStep;

const pct = (bps: number): string => `${(bps / 100).toFixed(bps % 100 === 0 ? 0 : 2)}%`;
const dur = (ms: number): string =>
  ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : ms % 60_000 === 0 ? `${ms / 60_000} min` : ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
const acct = (i: number): string => `account #${i}`;
/** Outputs are picked among the three other scenario assets, by index. */
const other = (i: number): string => `other asset #${i % (SCENARIO_ASSETS.length - 1)}`;

function describeFault(s: FaultStep): string {
  const e = s.effect;
  const what = `the next ${s.target} of ${acct(s.account)}`;
  if ('fail' in e) return `fault: ${what} fails with ${e.fail}`;
  if ('reorg' in e) return `fault: ${what} settles, then its ${e.reorg} leg is reorged (settlement_orphaned, then settlement_reconfirmed)`;
  if ('flag' in e) return `fault: ${what} is flagged by screening (${e.flag})`;
  return `fault: ${what} is delayed ${dur(e.delay_ms)} at each step`;
}

const EFFECT_TEXT: Record<WebhookEffect, string> = {
  duplicate: 'deliver twice',
  reorder: 'hold back 5 s (later deliveries overtake it)',
  drop: 'drop (retried later)',
  bad_signature: 'sign with a wrong secret (retried later)',
  delay_60s: 'delay by 60 s',
  delay_10min: 'delay by 10 min',
};

/** One readable line; `accounts` (the run's account count) resolves account indices as the runner does. */
export function describeStep(step: Step, accounts = Infinity): string {
  const s = 'account' in step && Number.isFinite(accounts) ? { ...step, account: step.account % accounts } : step;
  switch (s.kind) {
    case 'deposit':
      return `deposit ${s.usd} USD of ${assetAt(s.asset).asset_key} into ${acct(s.account)}`;
    case 'trade':
      return `trade (firm RFQ, accepted): ${acct(s.account)} sells ${pct(s.fraction_bps)} of its open credit #${s.credit} for ${other(s.destination)}`;
    case 'zap':
      return `zap: ${acct(s.account)} sells ${pct(s.fraction_bps)} of its open credit #${s.credit} for ${other(s.destination)}${s.floor === 'unreachable' ? ', with an unreachable floor' : ''}`;
    case 'zap_deposit':
      return `zap funded by a deposit: ${acct(s.account)} sends ${s.usd} USD of ${assetAt(s.asset).asset_key} to the zap's address, for ${other(s.destination)}`;
    case 'cancel':
      return `cancel: ${acct(s.account)} sends its credit #${s.credit} to its own destination`;
    case 'advance':
      return `advance the sim clock ${dur(s.ms)}`;
    case 'fault':
      return describeFault(s);
    case 'chaos':
      return `webhook: ${EFFECT_TEXT[s.effect]} the next ${s.times} deliveries of ${s.event_type} for ${acct(s.account)}`;
    case 'outage':
      return `webhook outage for ${s.hours} h for ${acct(s.account)}: every attempt dropped, past the 72 h retry window`;
    case 'forge':
      return `forged delivery: a ${s.event} for ${acct(s.account)} ${s.forgery === 'unsigned' ? 'without a signature' : s.forgery === 'tampered_body' ? 'whose body was changed after signing' : 'signed with a wrong secret'} (must be answered 401)`;
  }
}

export function describeBackground(b: BackgroundChaos): string | null {
  const parts = (Object.entries(b) as Array<[keyof BackgroundChaos, number]>)
    .filter(([, p]) => p > 0)
    .map(([k, p]) => `${k.replace('_', ' ')} ${Math.round(p * 100)}%`);
  return parts.length === 0 ? null : `background webhook chaos on every delivery: ${parts.join(', ')}`;
}

export const describeSetup = (a: AccountSetup, i: number): string =>
  `setup: ${acct(i)} is created, and funded with ${a.usd} USD of ${assetAt(a.asset).asset_key}`;
