// The trading model's command set, as fast-check arbitraries. Targets (accounts, credits, destinations,
// quotes) are picked by index (idx % n) so a shrunk sequence stays valid. Every run starts with a prelude:
// its organization, a funded account, destinations, and one to three hard paths (a reorg or orphan aimed at
// the next settlement, a recovery claimed right or wrong, a partner flag inside or after the window, an
// idempotent replay, a second accept, a retried write under an HTTP fault), so each kind of fault meets what it targets.
import fc from 'fast-check';
import { AcceptExpiredOrIndicative } from './commands/accept-expired-or-indicative.ts';
import { AddFault, type FaultChoice } from './commands/add-fault.ts';
import { AdvanceClock } from './commands/advance-clock.ts';
import { Cancel } from './commands/cancel.ts';
import { CreateFundedAccount } from './commands/create-funded-account.ts';
import { Deposit } from './commands/deposit.ts';
import { FirmTrade } from './commands/firm-trade.ts';
import { IndicativeRfq } from './commands/indicative-rfq.ts';
import { PriceShock } from './commands/price-shock.ts';
import { ReactivateDestination } from './commands/reactivate-destination.ts';
import { RegisterDestination } from './commands/register-destination.ts';
import { SuspendDestination } from './commands/suspend-destination.ts';
import { ZapFromCredit } from './commands/zap-from-credit.ts';
import { ZapFromDeposit } from './commands/zap-from-deposit.ts';
import { SetupOrg } from './commands/setup-org.ts';
import { RecoverFunds, type RecoveryVariant } from './commands/recover-funds.ts';
import { PartnerFlag, type PartnerTiming } from './commands/partner-flag.ts';
import { ReplayWrite, type ReplayMode } from './commands/replay-write.ts';
import { HttpFaultRetry, type HttpFaultKind } from './commands/http-fault-retry.ts';
import { ReorgNextSettlement, type ReorgKind } from './commands/reorg-next-settlement.ts';
import { OverlapInOneAsset, type OverlapVariant } from './commands/overlap-in-one-asset.ts';
import { ForbiddenEdge, type ForbiddenVariant } from './commands/forbidden-edge.ts';
import { ZapExpiryTick } from './commands/zap-expiry-tick.ts';
import type { Profile } from '../../fake-provider/profile.ts';
import { newWalk, type TOrg, type TradingModel, type TradingReal } from './model.ts';

export * from './model.ts';

type Cmd = fc.Arbitrary<fc.AsyncCommand<TradingModel, TradingReal>>;

export function tradingCommands(): Cmd[] {
  const idx = fc.nat({ max: 50 });
  const usd = fc.integer({ min: 2, max: 20_000 });
  const fraction_bps = fc.oneof(fc.integer({ min: 1_000, max: 10_000 }), fc.constant(10_000));
  const slippage_bps = fc.constantFrom('0', '10', '50', '100.5', '300', '1000');
  const side = fc.constantFrom<'exact_in' | 'exact_out'>('exact_in', 'exact_out');
  const fault: fc.Arbitrary<FaultChoice> = fc.oneof(
    idx.map((codeIdx) => ({ kind: 'fail' as const, codeIdx })),
    fc.constantFrom('out' as const, 'in' as const).map((leg) => ({ kind: 'reorg' as const, leg })),
    fc.constantFrom(500, 5_000, 120_000, 1_800_000).map((delay_ms) => ({ kind: 'delay' as const, delay_ms })),
  );
  const funded = fc.tuple(idx, usd).map(([a, u]) => new CreateFundedAccount(a, u));
  const firmTrade = fc
    .record({
      accountIdx: idx,
      creditIdx: idx,
      destinationIdx: idx,
      side,
      fraction_bps,
      slippage_bps,
      ttl_ms: fc.constantFrom(1_000, 5_000, 30_000),
      wait_ms: fc.constantFrom(0, 250, 1_000),
      accept: fc.constantFrom(true, true, true, false),
    })
    .map((a) => new FirmTrade(a));
  // Funding and trading appear twice: they are what every other command needs to have something to act on.
  return [
    funded,
    funded,
    fc.tuple(idx, idx, usd, fc.boolean()).map(([a, b, u, f]) => new Deposit(a, b, u, f)),
    fc.tuple(idx, idx).map(([a, b]) => new RegisterDestination(a, b)),
    fc.tuple(idx, idx, side, usd).map(([f, t, s, u]) => new IndicativeRfq(f, t, s, u)),
    firmTrade,
    firmTrade,
    fc.tuple(idx, slippage_bps).map(([q, s]) => new AcceptExpiredOrIndicative(q, s)),
    fc
      .record({
        accountIdx: idx,
        creditIdx: idx,
        destinationIdx: idx,
        fraction_bps,
        high_floor: fc.boolean(),
        expires_in_ms: fc.constantFrom(null, null, 300, 60_000),
      })
      .map((a) => new ZapFromCredit(a)),
    fc
      .record({
        accountIdx: idx,
        destinationIdx: idx,
        fromIdx: idx,
        usd,
        drift_bps: fc.integer({ min: -2_000, max: 2_000 }),
        deposit: fc.constantFrom<'same' | 'sibling' | 'flagged'>('same', 'same', 'sibling', 'flagged'),
      })
      .map((a) => new ZapFromDeposit(a)),
    fc.tuple(idx, idx, idx).map(([a, c, d]) => new Cancel(a, c, d)),
    fc
      .tuple(idx, fc.constantFrom<'trade' | 'zap' | 'cancel' | 'deposit'>('trade', 'zap', 'cancel', 'deposit'), fault)
      .map(([a, t, f]) => new AddFault(a, t, f)),
    fc.tuple(idx, fc.integer({ min: -1_000, max: 1_000 })).map(([a, bps]) => new PriceShock(a, bps)),
    idx.map((d) => new SuspendDestination(d)),
    idx.map((d) => new ReactivateDestination(d)),
    fc.constantFrom(250, 2_000, 30_000, 600_000, 7_200_000).map((ms) => new AdvanceClock(ms)),
    fc.tuple(idx, fc.constantFrom(...FORBIDDEN)).map(([i, v]) => new ForbiddenEdge(i, v)),
    ...hardPaths().map((a) => a.map((cmds) => cmds[cmds.length - 1])),
  ];
}

type Cmds = fc.AsyncCommand<TradingModel, TradingReal>[];

const HTTP_FAULTS: HttpFaultKind[] = ['429', '500', '503', 'lost_500', 'lost_reset'];
const REORGS: ReorgKind[] = ['reorg_out', 'reorg_in', 'orphaned', 'zap_reorg_out', 'zap_reorg_in'];
const REPLAYS: ReplayMode[] = ['same_payload', 'other_payload', 'fresh_key'];
const OVERLAPS: OverlapVariant[] = ['two_trades', 'trade_and_zap', 'cancel_and_zap'];
const FORBIDDEN: ForbiddenVariant[] = [
  'activate_after_claim',
  'activate_other_credit',
  'cancel_consumed',
  'zap_consumed',
  'rfq_consumed',
  'accept_consumed',
];

/** Hard paths as short command sequences that set up what they need (the last one is the path itself). */
function hardPaths(): fc.Arbitrary<Cmds>[] {
  const idx = fc.nat({ max: 50 });
  const failingZap = (creditIdx: number, destinationIdx: number) =>
    new ZapFromCredit({ accountIdx: 0, creditIdx, destinationIdx, fraction_bps: 5_000, high_floor: true, expires_in_ms: null });
  return [
    fc.tuple(idx, idx, fc.constantFrom(...REORGS)).map(([c, d, k]): Cmds => [new ReorgNextSettlement(0, c, d, k)]),
    // A failed zap's recovery: refused with a wrong OTP, with an expired one and at the instant its OTP ends,
    // then claimed (once, twice, or one tick before its OTP ends); then activated again, which a claim forbids.
    fc
      .tuple(idx, idx, fc.constantFrom<RecoveryVariant>('claim', 'claim_twice', 'claim_before_expiry'), idx)
      .map(
        ([c, d, v, i]): Cmds => [
          failingZap(c, d),
          new AdvanceClock(30_000),
          new RecoverFunds(0, 'wrong_otp'),
          new RecoverFunds(0, 'expired_otp'),
          new RecoverFunds(0, 'otp_at_expiry'),
          new RecoverFunds(0, v),
          new ForbiddenEdge(i, 'activate_after_claim'),
          new ForbiddenEdge(i, 'activate_other_credit'),
        ],
      ),
    // A firm quote accepted on its last valid tick, or at the instant it expires.
    fc.tuple(idx, idx, fc.constantFrom<'last' | 'at'>('last', 'at'), fc.constantFrom(1_000, 5_000, 30_000)).map(
      ([c, d, tick, ttl_ms]): Cmds => [
        new FirmTrade({
          accountIdx: 0,
          creditIdx: c,
          destinationIdx: d,
          side: 'exact_in',
          fraction_bps: 5_000,
          slippage_bps: '1000',
          ttl_ms,
          wait_ms: 1_000,
          accept: true,
          accept_tick: tick,
        }),
      ],
    ),
    // A deposit-funded zap read one tick before, at and one tick after its expires_at_ms (a transfer maybe landing on the last tick).
    fc
      .record({
        accountIdx: idx,
        destinationIdx: idx,
        fromIdx: idx,
        ttl_ms: fc.constantFrom(1_000, 60_000, 900_000),
        land_before: fc.boolean(),
      })
      .map((a): Cmds => [new ZapExpiryTick(a)]),
    // Lifecycles overlapping on one account and asset: two swaps into one asset, a trade and a zap, a cancel beside a zap.
    fc.tuple(idx, idx, fc.constantFrom(...OVERLAPS)).map(([a, t, v]): Cmds => [new OverlapInOneAsset(0, a, t, v)]),
    // A cancel that fails on chain (a fault rule), then the same credit cancelled again: the failure let go of it.
    fc
      .tuple(idx, idx, idx)
      .map(
        ([code, c, d]): Cmds => [
          new AddFault(0, 'cancel', { kind: 'fail', codeIdx: code }),
          new Cancel(0, c, d),
          new AdvanceClock(600_000),
          new Cancel(0, c, d),
        ],
      ),
    // A trade that fails (a fault rule), then its credit quoted again: the failure let go of it (credit holders).
    fc.tuple(idx, idx, idx).map(([code, c, d]): Cmds => {
      const trade = () =>
        new FirmTrade({
          accountIdx: 0,
          creditIdx: c,
          destinationIdx: d,
          side: 'exact_in',
          fraction_bps: 5_000,
          slippage_bps: '1000',
          ttl_ms: 30_000,
          wait_ms: 1_000,
          accept: true,
        });
      return [new AddFault(0, 'trade', { kind: 'fail', codeIdx: code }), trade(), new AdvanceClock(600_000), trade()];
    }),
    // A trade settles, then its spent credit and its quote are used again.
    fc.tuple(idx, idx, idx, fc.constantFrom<ForbiddenVariant>('cancel_consumed', 'zap_consumed', 'rfq_consumed', 'accept_consumed')).map(
      ([c, d, i, v]): Cmds => [
        new FirmTrade({
          accountIdx: 0,
          creditIdx: c,
          destinationIdx: d,
          side: 'exact_in',
          fraction_bps: 5_000,
          slippage_bps: '1000',
          ttl_ms: 30_000,
          wait_ms: 1_000,
          accept: true,
        }),
        new AdvanceClock(7_200_000),
        new ForbiddenEdge(i, v),
      ],
    ),
    // Two failed zaps on one credit: still one recovery bound to it.
    fc.tuple(idx, idx).map(([c, d]): Cmds => [failingZap(c, d), new AdvanceClock(30_000), failingZap(c, d), new AdvanceClock(30_000)]),
    fc
      .tuple(idx, fc.constantFrom<PartnerTiming>('inside', 'late', 'last_tick', 'at_deadline'))
      .map(([a, t]): Cmds => [new PartnerFlag(0, a, t)]),
    fc.constantFrom(...HTTP_FAULTS).map((k): Cmds => [new HttpFaultRetry(k)]),
    fc.tuple(idx, idx, fc.constantFrom(...REPLAYS)).map(
      ([c, d, mode]): Cmds => [
        new FirmTrade({
          accountIdx: 0,
          creditIdx: c,
          destinationIdx: d,
          side: 'exact_in',
          fraction_bps: 5_000,
          slippage_bps: '1000',
          ttl_ms: 30_000,
          wait_ms: 1_000,
          accept: true,
        }),
        new ReplayWrite(0, mode),
      ],
    ),
  ];
}

/** The organization a run draws: fees (decimal integrator bps too), recovery and partner screening. */
const orgArb: fc.Arbitrary<TOrg> = fc.record({
  platform_fee_bps: fc.constantFrom('10', '25', '0', '125'),
  integrator_fee_bps: fc.constantFrom('0', '7.5', '30'),
  recovery_enabled: fc.constantFrom(true, true, true, false),
  partner_screening: fc.boolean(),
});

/** What every run starts with: its organization, one funded account, one to three destinations, one to three hard paths. */
export function tradingPrelude(): fc.Arbitrary<fc.AsyncCommand<TradingModel, TradingReal>[]> {
  const idx = fc.nat({ max: 50 });
  return fc
    .tuple(
      orgArb,
      fc.tuple(idx, fc.integer({ min: 2, max: 20_000 })),
      fc.array(idx, { minLength: 1, maxLength: 3 }),
      fc.array(fc.oneof(...hardPaths()), { minLength: 1, maxLength: 3 }),
    )
    .map(([org, [a, usd], dests, paths]) => [
      new SetupOrg(org),
      new CreateFundedAccount(a, usd),
      ...dests.map((d) => new RegisterDestination(0, d)),
      ...paths.flat(),
    ]);
}

export function initialModel(now_ms: number, profile: Profile): TradingModel {
  return {
    now_ms,
    profile,
    org: { platform_fee_bps: '10', integrator_fee_bps: '0', recovery_enabled: false, partner_screening: false },
    accounts: [],
    destinations: [],
    ops: [],
    quotes: [],
    faults: 0,
    addresses: 0,
    fault_codes: new Map(),
    credits: new Map(),
    deposits: [],
    writes: [],
    walk: newWalk(profile),
    reach: { tried: new Set(), reached: new Set(), watch: [] },
    pending_seen: [],
    steps: 0,
    claimed: [],
    early: new Map(),
  };
}
