// What one `swapsim verify` run does, as plain data (so it prints, shrinks and travels in a replay token):
// accounts, then steps in which each fault is tied to the operation it targets (a trade that gets reorged on
// its out leg, a trade whose deliveries are duplicated, an outage right after a trade), plus the run-level
// extras (forged deliveries, concurrent copies, secret rotation, an app restart, API faults against the app's
// key, an adversarial provider profile), deposits that are held or flagged, zaps funded by deposits, recoveries,
// suspended destinations and replayed deliveries with stale or future timestamps. Run n carries the coverage
// items its seed's plan gives it (coverage.ts), so every item is reached within the first 10 runs whatever the seed.
import fc from 'fast-check';
import { FAIL_CODES } from '../../fake-provider/control/faults.ts';
import { plannedItems, SWAP_FAULT_FAILURES } from './coverage.ts';
import { accountSetup, backgroundChaos } from '../arbitraries/arbitraries.ts';
import {
  assetAt,
  describeBackground,
  describeSetup,
  describeStep,
  type AccountSetup,
  type BackgroundChaos,
  type WebhookEffect,
} from '../arbitraries/steps.ts';

/** A fault on the operation itself, added right after it is created and matched by its id. */
type OpFault = { fail: string } | { reorg: 'out' | 'in' } | { delay_ms: number };

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

/** How a deposit-funded zap is funded: its own asset, another asset on the same chain, nothing (it expires), or a deposit that is flagged or dropped. */
type ZapFunding = 'same' | 'other_asset' | 'none' | 'flagged' | 'dropped';

type FlagReason = 'sanctions_match' | 'high_risk_score' | 'mixer_association' | 'partner_flagged';

export type VStep =
  /** A deposit lands; `flag`: screening (or the partner, inside its window) flags it; `hold`: it stays pending for an hour. */
  | { kind: 'deposit'; account: number; asset: number; usd: number; flag?: FlagReason; hold?: boolean }
  | {
      kind: 'zap_deposit';
      account: number;
      asset: number;
      destination: number;
      usd: number;
      funding: ZapFunding;
      expires?: boolean;
      fault?: OpFault;
    }
  /** A zap fails (execution_failed) and leaves its credit open; the account's email is set, the recovery activated and claimed with the emailed OTP; `fault`: the payout fails. */
  | { kind: 'recover'; account: number; fault?: { fail: string } }
  /** Delta screening suspends one of the account's destinations (then, with `reactivate`, clears it a minute later). */
  | { kind: 'suspend'; account: number; reactivate: boolean }
  /** The last delivery the app took for the account, re-signed correctly with a Svc-Timestamp 10 min in the past or the future. */
  | { kind: 'stale'; account: number; when: 'stale' | 'future' }
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
  /** The coverage items the run was planned to reach (space-separated). */
  theme: string;
  adversarial_profile: boolean;
  /** The organization has partner screening on (every deposit waits out the partner's window). */
  partner_screening?: boolean;
  /** `unicode`: account labels carry non-ASCII text and characters JSON escapes, so delivery bodies do. */
  labels?: 'ascii' | 'unicode';
  /** The provider's `webhook_body_style` (default compact): the bytes each delivery body is written, and signed, as. */
  body_style?: 'compact' | 'spaced' | 'escaped' | 'mixed';
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
  fc
    .tuple(fc.record({ kind: fc.constant('trade' as const), account: idx, credit: idx, destination: idx, fraction_bps }), extras)
    .map(([t, e]) => ({ ...t, ...e }));
const zap = (extras: fc.Arbitrary<OpExtras> = fc.constant({})) =>
  fc
    .tuple(
      fc.record({
        kind: fc.constant('zap' as const),
        account: idx,
        credit: idx,
        destination: idx,
        fraction_bps,
        floor: fc.constant('none' as const),
      }),
      extras,
    )
    .map(([t, e]) => ({ ...t, ...e }));

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
const chaos: fc.Arbitrary<VStep> = fc.record({
  kind: fc.constant('chaos' as const),
  account: idx,
  effect: fc.constantFrom(...EFFECTS),
  event_type: fc.constantFrom(...EVENT_TYPES),
  times: fc.integer({ min: 1, max: 3 }),
});

const swapFault = (codes: readonly string[]) =>
  fc.oneof(
    fc.constantFrom(...codes).map((fail) => ({ fail })),
    fc.constantFrom('out' as const, 'in' as const).map((reorg) => ({ reorg })),
  );

/** Steps that reach each coverage item (coverage.ts), placed among a short random journey. */
const settlementFault = (code: string) => fc.constant({ fault: { fail: code } });
const reorg = (leg: 'out' | 'in') => fc.constant({ fault: { reorg: leg } as OpFault });
const FLAGS = ['sanctions_match', 'high_risk_score', 'mixer_association'] as const;
const one = (a: fc.Arbitrary<VStep>): fc.Arbitrary<VStep[]> => a.map((s) => [s]);
const deposit = (extra: Partial<Extract<VStep, { kind: 'deposit' }>> = {}) =>
  fc.record({ kind: fc.constant('deposit' as const), account: idx, asset, usd }).map((d) => ({ ...d, ...extra }));
const zapDeposit = (funding: ZapFunding, extra: { expires?: boolean } = {}) =>
  fc
    .record({ kind: fc.constant('zap_deposit' as const), account: idx, asset, destination: idx, usd })
    .map((z) => ({ ...z, funding, ...extra }));
const cancel = (fault?: { fail: string }) =>
  fc.record({ kind: fc.constant('cancel' as const), account: idx, credit: idx }).map((c) => (fault ? { ...c, fault } : c));
const chaosOf = (effect: WebhookEffect) =>
  fc.record({
    kind: fc.constant('chaos' as const),
    account: idx,
    effect: fc.constant(effect),
    event_type: fc.constantFrom('*', 'trade.*', 'credit.created'),
    times: fc.integer({ min: 1, max: 3 }),
  });
const forgeOf = (forgery: 'wrong_secret' | 'tampered_body' | 'unsigned') =>
  fc.record({
    kind: fc.constant('forge' as const),
    account: idx,
    forgery: fc.constant(forgery),
    event: fc.constantFrom('credit.created' as const, 'trade.executing' as const),
  });
/** Two steps on one account (a webhook rule, then the trade whose deliveries it must meet): the second takes the first's account. */
const onOneAccount = (
  first: fc.Arbitrary<VStep & { account: number }>,
  second: fc.Arbitrary<VStep & { account: number }>,
): fc.Arbitrary<VStep[]> => fc.tuple(first, second).map(([a, b]) => [a, { ...b, account: a.account }]);
const apiFault = (fault: ApiFaultKind) =>
  fc.tuple(
    fc.constant<VStep>({ kind: 'api_fault', fault, times: 1 }),
    trade(fc.record({ fault: fc.option(swapFault(FAIL_CODES.trade!), { nil: undefined }) }, { requiredKeys: [] })),
  );

/** Per coverage item: the steps that reach it (an empty list where a scenario flag does). */
export const ITEM_STEPS: Record<string, fc.Arbitrary<VStep[]>> = {
  'trade.settled': one(trade()),
  ...Object.fromEntries(SWAP_FAULT_FAILURES.trade.map(([code]) => [`trade.failed.${code}`, one(trade(settlementFault(code)))])),
  'trade.reorg.out': one(trade(reorg('out'))),
  'trade.reorg.in': one(trade(reorg('in'))),
  'zap.settled': one(zap()),
  'zap.deposit_funded': one(zapDeposit('same')),
  ...Object.fromEntries(SWAP_FAULT_FAILURES.zap.map(([code]) => [`zap.failed.${code}`, one(zap(settlementFault(code)))])),
  'zap.failed.min_amount_out_not_met': one(zap().map((z) => ({ ...z, floor: 'unreachable' as const }))),
  'zap.failed.zap_expired': one(zapDeposit('none', { expires: true })),
  'zap.failed.from_asset_mismatch': one(zapDeposit('other_asset')),
  'zap.failed.deposit_flagged': one(zapDeposit('flagged')),
  'zap.failed.deposit_insufficient_confirmations': one(zapDeposit('dropped')),
  'zap.reorg.out': one(zap(reorg('out'))),
  'zap.reorg.in': one(zap(reorg('in'))),
  'cancel.confirmed': one(cancel()),
  'cancel.failed.broadcast_failed': one(cancel({ fail: 'broadcast_failed' })),
  'cancel.failed.confirmation_timeout': one(cancel({ fail: 'confirmation_timeout' })),
  'recovery.claimed': one(fc.record({ kind: fc.constant('recover' as const), account: idx })),
  // Then a probe: the credit the failed payout leaves open is compared before a later step may spend it.
  'recovery.failed': fc
    .record({
      kind: fc.constant('recover' as const),
      account: idx,
      fault: fc.constantFrom('broadcast_failed', 'confirmation_timeout').map((fail) => ({ fail })),
    })
    .map((r) => [r, { kind: 'probe' } as VStep]),
  'deposit.verified': one(deposit()),
  'deposit.pending_probe': deposit({ hold: true }).map((d) => [d, { kind: 'probe' } as VStep]),
  ...Object.fromEntries(FLAGS.map((flag) => [`deposit.flagged.${flag}`, one(deposit({ flag }))])),
  // The partner's own flag (inside the window) and a deposit whose window passes: partner screening on for the run.
  'deposit.flagged.partner_flagged': one(deposit({ flag: 'partner_flagged' })),
  'deposit.partner_window_lapsed': one(deposit()),
  'deposit.flagged_probe': fc
    .constantFrom(...FLAGS)
    .chain((flag) => deposit({ flag }))
    .map((d) => [d, { kind: 'probe' } as VStep]),
  'destination.suspended': fc.tuple(
    fc.record({ kind: fc.constant('suspend' as const), account: idx, reactivate: fc.constant(true) }),
    trade(),
  ),
  'destination.reactivated': fc.constant([]),
  'delivery.duplicate': onOneAccount(chaosOf('duplicate'), trade()),
  'delivery.reorder': onOneAccount(chaosOf('reorder'), trade()),
  'delivery.drop': onOneAccount(chaosOf('drop'), trade()),
  'delivery.bad_signature': onOneAccount(chaosOf('bad_signature'), trade()),
  'delivery.delay': onOneAccount(chaosOf('delay_60s'), trade()),
  'delivery.late_progress': one(
    fc.oneof(
      trade(fc.record({ late: fc.constantFrom(...LATE) })),
      trade(fc.constant({ reverse: true })),
      zap(fc.constant({ reverse: true })),
    ),
  ),
  'delivery.concurrent_copies': onOneAccount(
    fc.record({
      kind: fc.constant('concurrent' as const),
      account: idx,
      event_type: fc.constantFrom('trade.*', '*', 'credit.created'),
      times: fc.constantFrom(1, 2, 3),
    }),
    trade(),
  ),
  // The outage meets the trade's own late deliveries: both on one account.
  'delivery.outage_past_retry_window': onOneAccount(
    trade(),
    fc.record({ kind: fc.constant('outage' as const), account: idx, hours: fc.constantFrom(73, 80) }),
  ),
  'forged.wrong_secret': fc.tuple(trade(), forgeOf('wrong_secret')),
  'forged.tampered_body': fc.tuple(trade(), forgeOf('tampered_body')),
  'forged.unsigned': fc.tuple(trade(), forgeOf('unsigned')),
  'timestamp.stale': fc.tuple(
    trade(),
    fc.record({ kind: fc.constant('stale' as const), account: idx, when: fc.constant('stale' as const) }),
  ),
  'timestamp.future': fc.tuple(
    trade(),
    fc.record({ kind: fc.constant('stale' as const), account: idx, when: fc.constant('future' as const) }),
  ),
  'payload.non_ascii': fc.constant([]),
  'payload.styled_body': fc.constant([]),
  ...Object.fromEntries((['429', '429_no_retry_after', '500', '503', 'lost_response'] as const).map((k) => [`api.${k}`, apiFault(k)])),
  'profile.adversarial': fc.constant([]),
  'app.rotation': fc.tuple(trade(), fc.record({ kind: fc.constant('rotate' as const), account: idx }), trade()),
  'app.restart': fc.tuple(trade(), fc.constant({ kind: 'restart' as const }), fc.constant({ kind: 'probe' as const }), trade()),
};

/** A run's scenario: the items its plan gives it, in an order the seed draws, among a short random journey. */
function scenarioArbitrary(items: readonly string[]): fc.Arbitrary<VerifyScenario> {
  const parts = items.map((id) => {
    const steps = ITEM_STEPS[id];
    if (!steps) throw new Error(`no steps for coverage item ${id}`);
    return steps as fc.Arbitrary<VStep[]>;
  });
  return fc
    .record({
      accounts: fc.oneof(
        { weight: 3, arbitrary: fc.array(accountSetup(), { minLength: 1, maxLength: 1 }) },
        { weight: 1, arbitrary: fc.array(accountSetup(), { minLength: 2, maxLength: 2 }) },
      ),
      order: fc.shuffledSubarray([...parts.keys()], { minLength: parts.length, maxLength: parts.length }),
      parts: parts.length ? fc.tuple(...parts) : fc.constant([] as VStep[][]),
      before: fc.array(plain, { maxLength: 2 }),
      after: fc.array(
        fc.oneof(
          { weight: 3, arbitrary: plain },
          { weight: 1, arbitrary: chaos },
          { weight: 1, arbitrary: fc.constant<VStep>({ kind: 'probe' }) },
        ),
        { maxLength: 2 },
      ),
      // Swarm background: most runs none.
      background: fc.oneof({ weight: 3, arbitrary: fc.constant(NO_BACKGROUND) }, { weight: 1, arbitrary: backgroundChaos() }),
      body_style: items.includes('payload.styled_body')
        ? fc.constantFrom('spaced' as const, 'escaped' as const, 'mixed' as const)
        : fc.constant('compact' as const),
    })
    .map(({ accounts, order, parts, before, after, background: drawn, body_style }) => {
      // A probe item needs a quiet point while its deposit is held or just flagged: no background chaos keeping deliveries in retry.
      const background = items.some((i) => i.endsWith('_probe')) ? NO_BACKGROUND : drawn;
      // Webhook rules an item leads with (concurrent copies of the funding credit) stay ahead of everything.
      const core = order.flatMap((i) => parts[i]);
      return {
        theme: items.join(' '),
        adversarial_profile: items.includes('profile.adversarial'),
        partner_screening: items.includes('deposit.flagged.partner_flagged') || items.includes('deposit.partner_window_lapsed'),
        // A styled body escapes non-ASCII text: with only ASCII in it, `escaped` would send the compact bytes.
        labels: items.includes('payload.non_ascii') || items.includes('payload.styled_body') ? ('unicode' as const) : ('ascii' as const),
        body_style,
        accounts,
        background,
        steps: [...before, ...core, ...after],
      };
    });
}

export function generateScenario(seed: number, run: number): VerifyScenario {
  // One draw per (seed, run): a run's scenario never depends on how many runs came before it.
  return fc.sample(scenarioArbitrary(plannedItems(seed, run)), { seed: (seed * 7_919 + run * 104_729) | 0, numRuns: 1 })[0];
}

// ---- reading ----

const acct = (i: number, n: number): string => `account #${i % n}`;
const pct = (bps: number): string => `${bps / 100}%`;
const other = (i: number): string => `other asset #${i % 3}`;

/** The scenario asset on the same chain as asset `i` (ETH and USDC on Arbitrum, SOL and USDC on Solana). */
export const otherAssetOnChain = (i: number): number => (i % 4) ^ 1;

function opExtras(e: OpExtras): string {
  const parts: string[] = [];
  if (e.fault && 'reorg' in e.fault)
    parts.push(`then its ${e.fault.reorg} leg is reorged (settlement_orphaned, then settlement_reconfirmed)`);
  else if (e.fault && 'fail' in e.fault) parts.push(`and it fails with ${e.fault.fail}`);
  else if (e.fault) parts.push(`delayed ${e.fault.delay_ms / 60_000} min at each step`);
  if (e.late) parts.push(`its *.${e.late} delivery arrives 10 min late (after the later events)`);
  if (e.dup) parts.push('each of its deliveries is sent twice, as two concurrent copies');
  if (e.reverse)
    parts.push('its progress deliveries arrive reversed, after the terminal one (executing held back 3 min, filled 2, pending_settle 1)');
  return parts.length ? `, ${parts.join('; ')}` : '';
}

const BODY_STYLE_TEXT = {
  spaced: 'with the whitespace JSON allows',
  escaped: 'with every non-ASCII character and / as a JSON escape',
  mixed: 'with whitespace and escapes',
} as const;

const API_FAULT_TEXT: Record<ApiFaultKind, string> = {
  '429': '429 with Retry-After',
  '429_no_retry_after': '429 without Retry-After',
  '500': '500',
  '503': '503',
  lost_response: 'a lost response (the request took effect, the connection was reset)',
};

function describeVStep(s: VStep, n: number): string {
  switch (s.kind) {
    case 'trade':
      return `trade (firm RFQ, accepted): ${acct(s.account, n)} sells ${pct(s.fraction_bps)} of its open credit #${s.credit} for ${other(s.destination)}${opExtras(s)}`;
    case 'zap':
      return `zap: ${acct(s.account, n)} sells ${pct(s.fraction_bps)} of its open credit #${s.credit} for ${other(s.destination)}${opExtras(s)}`;
    case 'cancel':
      return `cancel: ${acct(s.account, n)} sends its credit #${s.credit} to its own destination${s.fault ? `, and it fails with ${s.fault.fail}` : ''}`;
    case 'deposit': {
      const what = `deposit ${s.usd} USD of ${assetAt(s.asset).asset_key} into ${acct(s.account, n)}`;
      if (s.flag === 'partner_flagged') return `${what}; the partner flags it inside its screening window (no credit)`;
      if (s.flag) return `${what}; screening flags its source (${s.flag}: no credit)`;
      return s.hold ? `${what}; it stays pending (detected, not credited) for an hour` : what;
    }
    case 'zap_deposit': {
      const what = `zap funded by a deposit: ${acct(s.account, n)} asks for ${s.usd} USD of ${assetAt(s.asset).asset_key} into ${other(s.destination)}${s.expires ? ', expiring in 10 min' : ''}`;
      const funding: Record<ZapFunding, string> = {
        same: 'the deposit arrives',
        other_asset: `a deposit of ${assetAt(otherAssetOnChain(s.asset)).asset_key} (another asset) arrives instead`,
        none: 'no deposit arrives',
        flagged: 'the deposit arrives and screening flags it',
        dropped: 'the deposit arrives and is dropped before finality',
      };
      return `${what}; ${funding[s.funding]}${opExtras(s)}`;
    }
    case 'recover':
      return `recovery: a zap of ${acct(s.account, n)} fails (execution_failed) and leaves its credit open; the account's email is set, the recovery activated and claimed with the emailed OTP${s.fault ? `, and the payout fails with ${s.fault.fail}` : ''}`;
    case 'suspend':
      return `destination: delta screening suspends a destination of ${acct(s.account, n)}${s.reactivate ? ', and reactivates it a minute later' : ''}`;
    case 'stale':
      return `replayed delivery: the last delivery ${acct(s.account, n)}'s app took, re-sent correctly signed with a Svc-Timestamp 10 min ${s.when === 'stale' ? 'old' : 'in the future'} (must be refused)`;
    case 'concurrent':
      return `webhook: the next ${s.times} deliveries of ${s.event_type} for ${acct(s.account, n)} reach the app as two concurrent copies`;
    case 'rotate':
      return `the webhook secret is rotated and the app configured with the new one; a delivery for ${acct(s.account, n)} signed with the previous secret arrives just after (within the spec's 5-min grace)`;
    case 'restart':
      return 'the app restarts: POST /probe/configure again, same provider, key and secret';
    case 'probe':
      return "state probe at a quiet point: 6 min of sim time pass; if nothing is in flight then, the app's state must match the provider's";
    case 'api_fault':
      return `API faults on the app's key: its next ${s.times} reads of trades, zaps, cancels or the feed are answered ${API_FAULT_TEXT[s.fault]}`;
    case 'chaos':
      // The provider's duplicate sends both copies at once under the answer slot verify runs with.
      if (s.effect === 'duplicate')
        return `webhook: the next ${s.times} deliveries of ${s.event_type} for ${acct(s.account, n)} are sent twice, as two concurrent copies`;
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
  if (s.adversarial_profile) lines.push("the provider runs an adversarial behaviour profile drawn from the run's seed");
  if (s.partner_screening) lines.push("the organization has partner screening on: every deposit waits out the partner's window");
  if (s.labels === 'unicode')
    lines.push('account labels carry non-ASCII text and characters JSON escapes (so do the bodies of their deliveries)');
  if (s.body_style && s.body_style !== 'compact')
    lines.push(`delivery bodies are written ${BODY_STYLE_TEXT[s.body_style]} (and signed as sent)`);
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
  if (parsed.v !== 1 || typeof parsed.run !== 'number' || !parsed.s || !Array.isArray(parsed.s.steps) || !Array.isArray(parsed.s.accounts))
    throw new Error('not a case token printed by swapsim verify');
  return { run: parsed.run, scenario: parsed.s };
}
