// What one `swapsim verify` run does, as plain data (so it prints, shrinks and travels in a replay token):
// accounts, then steps in which each fault is tied to the operation it targets (a trade that gets reorged on
// its out leg, a trade whose deliveries are duplicated, an outage right after a trade), plus the run-level
// extras (forged deliveries, concurrent copies, secret rotation, an app restart, API faults against the app's
// key, an adversarial provider profile). Run n is built around theme n mod THEMES.length, so every fault
// kind is reached within the first THEMES.length runs whatever the seed.
import fc from 'fast-check';
import { FAIL_CODES } from '../../fake-provider/control/faults.ts';
import { accountSetup, backgroundChaos } from '../arbitraries/arbitraries.ts';
import { describeBackground, describeSetup, describeStep, type AccountSetup, type BackgroundChaos, type WebhookEffect } from '../arbitraries/steps.ts';

/** A fault on the operation itself, added right after it is created and matched by its id. */
export type OpFault = { fail: string } | { reorg: 'out' | 'in' } | { delay_ms: number };

/** Progress events a `late` attachment holds back 10 min (so the terminal event overtakes them). */
const LATE = ['executing', 'filled', 'pending_settle'] as const;

interface OpExtras {
  fault?: OpFault;
  /** This progress event of the operation is delivered 10 min late. */
  late?: (typeof LATE)[number];
  /** Every delivery of this operation's events is sent twice (the provider's duplicate: under verify's answer slot, two copies at once). */
  dup?: boolean;
  /** The burst of progress events arrives reversed, after the terminal one (held back 3, 2 and 1 min). */
  reverse?: boolean;
}

export type ApiFaultKind = '429' | '429_no_retry_after' | '500' | '503' | 'lost_response';

export type VStep =
  | { kind: 'deposit'; account: number; asset: number; usd: number }
  | ({ kind: 'trade'; account: number; credit: number; destination: number; fraction_bps: number } & OpExtras)
  | ({ kind: 'zap'; account: number; credit: number; destination: number; fraction_bps: number; floor: 'none' | 'unreachable' } & OpExtras)
  | { kind: 'cancel'; account: number; credit: number; fault?: { fail: string } }
  | { kind: 'advance'; ms: number }
  /** The next `times` deliveries of `event_type` for the account suffer `effect` (a leading one applies from the funding on). */
  | { kind: 'chaos'; account: number; effect: WebhookEffect; event_type: string; times: number }
  /** The next `times` deliveries of `event_type` reach the app as two concurrent copies. */
  | { kind: 'concurrent'; account: number; event_type: string; times: number }
  | { kind: 'outage'; account: number; hours: number }
  | { kind: 'forge'; account: number; forgery: 'wrong_secret' | 'tampered_body' | 'unsigned'; event: 'credit.created' | 'trade.executing' }
  /** The webhook secret is rotated, the app configured with the new one, and a delivery signed just before the rotation arrives after it. */
  | { kind: 'rotate'; account: number }
  /** The app restarts: POST /probe/configure again with the same settings. */
  | { kind: 'restart' }
  /** The app's own reads of trades, zaps, cancels and the feed fail `times` times (its key only reads those). */
  | { kind: 'api_fault'; fault: ApiFaultKind; times: number }
  /** Mid-run state check: 6 min of sim time pass (past the answer slot); if nothing is in flight then, the app's state must match. */
  | { kind: 'probe' };

export interface VerifyScenario {
  theme: string;
  adversarial_profile: boolean;
  accounts: AccountSetup[];
  background: BackgroundChaos;
  steps: VStep[];
}

export const NO_BACKGROUND: BackgroundChaos = { duplicate: 0, reorder: 0, drop: 0, bad_signature: 0, delay: 0 };

const idx = fc.nat({ max: 3 });
const asset = fc.nat({ max: 3 });
const usd = fc.constantFrom(20, 150, 1_000, 5_000);
const fraction_bps = fc.constantFrom(10_000, 5_000, 2_500);

const trade = (extras: fc.Arbitrary<OpExtras> = fc.constant({})) =>
  fc.tuple(fc.record({ kind: fc.constant('trade' as const), account: idx, credit: idx, destination: idx, fraction_bps }), extras).map(([t, e]) => ({ ...t, ...e }));
const zap = (extras: fc.Arbitrary<OpExtras> = fc.constant({})) =>
  fc.tuple(fc.record({ kind: fc.constant('zap' as const), account: idx, credit: idx, destination: idx, fraction_bps, floor: fc.constant('none' as const) }), extras).map(([t, e]) => ({ ...t, ...e }));

/** Plain journey steps (no faults of their own). */
const plain: fc.Arbitrary<VStep> = fc.oneof(
  { weight: 4, arbitrary: trade() },
  { weight: 2, arbitrary: zap() },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deposit' as const), account: idx, asset, usd }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), account: idx, credit: idx }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(10_000, 600_000) }) },
);

const EVENT_TYPES = ['*', 'credit.created', 'trade.*', 'trade.filled', 'zap.*', 'cancel.*'];
const EFFECTS: WebhookEffect[] = ['duplicate', 'drop', 'reorder', 'bad_signature', 'delay_60s', 'delay_10min'];
const chaos: fc.Arbitrary<VStep> = fc.record({ kind: fc.constant('chaos' as const), account: idx, effect: fc.constantFrom(...EFFECTS), event_type: fc.constantFrom(...EVENT_TYPES), times: fc.integer({ min: 1, max: 3 }) });

const swapFault = (codes: readonly string[]) => fc.oneof(fc.constantFrom(...codes).map((fail) => ({ fail })), fc.constantFrom('out' as const, 'in' as const).map((reorg) => ({ reorg })));
const settlementFailure = fc.constantFrom('settlement_failed', 'settlement_timeout').map((fail) => ({ fail }));

/** Each theme: the steps it guarantees, placed among a short random journey. */
export const THEMES: Record<string, { lead?: fc.Arbitrary<VStep[]>; core: fc.Arbitrary<VStep[]> }> = {
  forged: { core: fc.tuple(trade(), fc.record({ kind: fc.constant('forge' as const), account: idx, forgery: fc.constantFrom('wrong_secret' as const, 'tampered_body' as const, 'unsigned' as const), event: fc.constantFrom('credit.created' as const, 'trade.executing' as const) })) },
  duplicates: {
    lead: fc.constant([{ kind: 'chaos', account: 0, effect: 'duplicate', event_type: 'credit.created', times: 1 }]),
    core: fc.tuple(trade(fc.constant({ dup: true }))),
  },
  reorg: { core: fc.tuple(fc.oneof({ weight: 3, arbitrary: trade(fc.record({ fault: fc.constantFrom('out' as const, 'in' as const).map((reorg) => ({ reorg })) })) }, { weight: 1, arbitrary: zap(fc.record({ fault: fc.constantFrom('out' as const, 'in' as const).map((reorg) => ({ reorg })) })) })) },
  settlement_failure: { core: fc.tuple(trade(fc.record({ fault: settlementFailure }))) },
  late_progress: { core: fc.tuple(fc.oneof(trade(fc.record({ late: fc.constantFrom(...LATE) })), trade(fc.constant({ reverse: true })), zap(fc.constant({ reverse: true })))) },
  outage: { core: fc.tuple(trade(), fc.record({ kind: fc.constant('outage' as const), account: idx, hours: fc.constantFrom(73, 80) })) },
  concurrent_duplicates: {
    lead: fc.constant([{ kind: 'concurrent', account: 0, event_type: 'credit.created', times: 1 }]),
    core: fc.tuple(fc.record({ kind: fc.constant('concurrent' as const), account: fc.constant(0), event_type: fc.constantFrom('trade.*', '*'), times: fc.constantFrom(2, 3) }), trade()),
  },
  rotation: { core: fc.tuple(trade(), fc.record({ kind: fc.constant('rotate' as const), account: idx }), trade()) },
  restart: { core: fc.tuple(trade(), fc.constant({ kind: 'restart' as const }), fc.constant({ kind: 'probe' as const }), trade()) },
  api_faults: {
    core: fc.tuple(
      fc.record({ kind: fc.constant('api_fault' as const), fault: fc.constantFrom<ApiFaultKind>('429', '429_no_retry_after', '500', '503', 'lost_response'), times: fc.constantFrom(1, 2) }),
      trade(fc.record({ fault: fc.option(swapFault(FAIL_CODES.trade!), { nil: undefined }) }, { requiredKeys: [] })),
    ),
  },
};

export const THEME_NAMES = Object.keys(THEMES);

/** The scenario of run `run` (1-based) for this seed: theme by position, the rest drawn. */
export function scenarioArbitrary(theme: string): fc.Arbitrary<VerifyScenario> {
  const t = THEMES[theme];
  return fc
    .record({
      accounts: fc.oneof({ weight: 3, arbitrary: fc.array(accountSetup(), { minLength: 1, maxLength: 1 }) }, { weight: 1, arbitrary: fc.array(accountSetup(), { minLength: 2, maxLength: 2 }) }),
      lead: t.lead ?? fc.constant([] as VStep[]),
      before: fc.array(plain, { maxLength: 2 }),
      core: t.core as fc.Arbitrary<VStep[]>,
      after: fc.array(fc.oneof({ weight: 3, arbitrary: plain }, { weight: 1, arbitrary: chaos }, { weight: 1, arbitrary: fc.constant<VStep>({ kind: 'probe' }) }), { maxLength: 2 }),
      // Swarm background: most runs none; the api_faults theme also draws the provider's profile.
      background: fc.oneof({ weight: 3, arbitrary: fc.constant(NO_BACKGROUND) }, { weight: 1, arbitrary: backgroundChaos() }),
      adversarial_profile: theme === 'api_faults' ? fc.boolean() : fc.constant(false),
    })
    .map(({ accounts, lead, before, core, after, background, adversarial_profile }) => ({
      theme, adversarial_profile, accounts, background, steps: [...lead, ...before, ...core, ...after],
    }));
}

export function generateScenario(seed: number, run: number): VerifyScenario {
  const theme = THEME_NAMES[(run - 1) % THEME_NAMES.length];
  // One draw per (seed, run): a run's scenario never depends on how many runs came before it.
  return fc.sample(scenarioArbitrary(theme), { seed: (seed * 7_919 + run * 104_729) | 0, numRuns: 1 })[0];
}

// ---- reading ----

const acct = (i: number, n: number): string => `account #${i % n}`;
const pct = (bps: number): string => `${bps / 100}%`;
const other = (i: number): string => `other asset #${i % 3}`;

function opExtras(e: OpExtras): string {
  const parts: string[] = [];
  if (e.fault && 'reorg' in e.fault) parts.push(`then its ${e.fault.reorg} leg is reorged (settlement_orphaned, then settlement_reconfirmed)`);
  else if (e.fault && 'fail' in e.fault) parts.push(`and it fails with ${e.fault.fail}`);
  else if (e.fault) parts.push(`delayed ${e.fault.delay_ms / 60_000} min at each step`);
  if (e.late) parts.push(`its *.${e.late} delivery arrives 10 min late (after the later events)`);
  if (e.dup) parts.push('each of its deliveries is sent twice, as two concurrent copies');
  if (e.reverse) parts.push('its progress deliveries arrive reversed, after the terminal one (executing held back 3 min, filled 2, pending_settle 1)');
  return parts.length ? `, ${parts.join('; ')}` : '';
}

const API_FAULT_TEXT: Record<ApiFaultKind, string> = {
  '429': '429 with Retry-After',
  '429_no_retry_after': '429 without Retry-After',
  '500': '500',
  '503': '503',
  lost_response: 'a lost response (the request took effect, the connection was reset)',
};

export function describeVStep(s: VStep, n: number): string {
  switch (s.kind) {
    case 'trade':
      return `trade (firm RFQ, accepted): ${acct(s.account, n)} sells ${pct(s.fraction_bps)} of its open credit #${s.credit} for ${other(s.destination)}${opExtras(s)}`;
    case 'zap':
      return `zap: ${acct(s.account, n)} sells ${pct(s.fraction_bps)} of its open credit #${s.credit} for ${other(s.destination)}${opExtras(s)}`;
    case 'cancel':
      return `cancel: ${acct(s.account, n)} sends its credit #${s.credit} to its own destination${s.fault ? `, and it fails with ${s.fault.fail}` : ''}`;
    case 'concurrent':
      return `webhook: the next ${s.times} deliveries of ${s.event_type} for ${acct(s.account, n)} reach the app as two concurrent copies`;
    case 'rotate':
      return `the webhook secret is rotated and the app configured with the new one; a delivery for ${acct(s.account, n)} signed with the previous secret arrives just after (within the spec's 5-min grace)`;
    case 'restart':
      return 'the app restarts: POST /probe/configure again, same provider, key and secret';
    case 'probe':
      return 'state probe at a quiet point: 6 min of sim time pass; if nothing is in flight then, the app\'s state must match the provider\'s';
    case 'api_fault':
      return `API faults on the app's key: its next ${s.times} reads of trades, zaps, cancels or the feed are answered ${API_FAULT_TEXT[s.fault]}`;
    case 'chaos':
      // The provider's duplicate sends both copies at once under the answer slot verify runs with.
      if (s.effect === 'duplicate') return `webhook: the next ${s.times} deliveries of ${s.event_type} for ${acct(s.account, n)} are sent twice, as two concurrent copies`;
      return describeStep({ ...s, at: 0 } as never, n);
    case 'outage':
    case 'forge':
      return describeStep({ ...s, at: 0 } as never, n);
    default:
      return describeStep(s as never, n);
  }
}

/** The scenario as numbered lines: setup (leading webhook rules apply from the funding on), profile, background, steps. */
export function describeScenario(s: VerifyScenario): string[] {
  const n = s.accounts.length;
  const lines = s.accounts.map(describeSetup);
  if (s.adversarial_profile) lines.push('the provider runs an adversarial behaviour profile drawn from the run\'s seed');
  const bg = describeBackground(s.background);
  if (bg) lines.push(bg);
  const lead = leadingRules(s.steps);
  lines.push(...s.steps.map((step, i) => `${describeVStep(step, n)}${i < lead ? ' (from the funding on)' : ''}`));
  return lines.map((l, i) => `${i + 1}. ${l}`);
}

/** How many steps at the start are webhook rules, installed before the accounts are funded. */
export function leadingRules(steps: VStep[]): number {
  let i = 0;
  while (i < steps.length && (steps[i].kind === 'chaos' || steps[i].kind === 'concurrent')) i++;
  return i;
}

// ---- replay tokens ----

/** A shrunk case as one command-line word: base64url of its JSON. */
export function encodeCase(run: number, s: VerifyScenario): string {
  return Buffer.from(JSON.stringify({ v: 1, run, s })).toString('base64url');
}

export function decodeCase(token: string): { run: number; scenario: VerifyScenario } {
  let parsed: { v?: number; run?: number; s?: VerifyScenario };
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw new Error('not a case token printed by swapsim verify');
  }
  if (parsed.v !== 1 || typeof parsed.run !== 'number' || !parsed.s || !Array.isArray(parsed.s.steps) || !Array.isArray(parsed.s.accounts)) throw new Error('not a case token printed by swapsim verify');
  return { run: parsed.run, scenario: parsed.s };
}
