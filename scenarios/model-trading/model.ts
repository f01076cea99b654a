// The trading model's two sides: `TradingModel`, what the test believes and predicts, written from the spec
// (accounts, their destinations, the operations it started with what each should pay out, the fault rules
// it added and what each may cause, the credits it expects to exist), and `TradingReal`, the running fake.
// Commands (one file each) read the model to decide what is legal and which answers are legitimate, act on
// the real side, and assert; the settling phase compares the fake's credits with the model's ledger.
import { expect } from 'vitest';
import type { HttpReply, TestSim } from '../../fake-provider/testing/harness.ts';
import type { Profile } from '../../fake-provider/profile.ts';
import { edgeSet, StatusWalk } from '../../fake-provider/oracle/index.ts';

interface TAccount {
  account_id: string;
  /** Deposit fault rules matched to this account (a funding deposit may then be dropped or late). */
  deposit_faults: number;
}

interface TDestination {
  destination_id: string;
  account_id: string;
  asset_key: string;
  suspended: boolean;
}

export type OpKind = 'trade' | 'zap' | 'cancel';

export interface TOp {
  kind: OpKind;
  id: string;
  account_id: string;
  /** The source credit; null for a deposit-funded zap (its credit comes from the deposit). */
  credit_id: string | null;
  /** What the model predicts it pays out when it succeeds (from the quote, the request or the deposit). */
  expect: {
    /** Input taken from the source credit (whole credit for a cancel). */
    amount_in_atoms: bigint | null;
    /** Net output a trade pays (the quote's expected_out_atoms); null where the market decides (zaps). */
    amount_out_atoms: bigint | null;
    /** A zap's floor: its output may not be lower. */
    min_out_atoms: bigint;
    from_asset_key: string | null;
    to_asset_key: string | null;
  };
  /** Failure codes the operation itself may explain (floors, expiries, the market, a flagged deposit); fault rules' codes are added when it ends. */
  may_fail: Set<string>;
  /** A deposit-funded zap's deposit (its credit is the zap's source). */
  deposit_tx?: string;
  /** The fault target whose rules may fail it (a recovery's payout cancel: `recovery`); default its kind. */
  fault_target?: string;
  /** Terminal status once seen, so its credits are booked once. */
  outcome: string | null;
  /** The status GET showed at the last step (a swap in `filled` or `pending_settle` has its output pending). */
  last_status?: string;
}

/** A credit the model expects to exist, keyed by its source (`source_type|source_id`). */
interface PredictedCredit {
  account_id: string;
  asset_key: string;
  atoms: bigint;
  status: 'open' | 'consumed';
  /** Learnt when the model first sees the credit listed (ids are the fake's to draw). */
  credit_id?: string;
}

/** The organization each run draws (fees in bps as the spec allows them: decimal strings). */
export interface TOrg {
  platform_fee_bps: string;
  integrator_fee_bps: string;
  recovery_enabled: boolean;
  partner_screening: boolean;
}

/** A deposit the model landed and what it expects of it. */
interface TDeposit {
  account_id: string;
  tx_hash: string;
  asset_key: string;
  atoms: bigint;
  /** verified / flagged, or either when a fault rule may drop, delay or flag it. */
  expect: 'verified' | 'flagged' | 'uncertain';
}

/** An idempotent write the model made with its own key, and the first answer, for replays. */
interface TWrite {
  method: 'POST';
  path: string;
  body: Record<string, unknown>;
  key: string;
  status: number;
  answer: unknown;
}

/** Per run: which hard paths were set up, and which actually fired (orphan seen, OTP refused, …). */
interface Reach {
  tried: Set<string>;
  reached: Set<string>;
  /**
   * Rules aimed at an account's next settlement, with the trade or zap made for them to meet: checked when the
   * run settles (a reorg lands 30 s after settlement; a later swap of the account may settle first and meet it).
   */
  watch: Array<{ what: string; kind: 'reorg' | 'orphaned' | 'zap'; op_id: string; account_id: string }>;
}

interface TQuote {
  quote_id: string;
  /** `indicative` quotes answer quote_not_firm; `expired` firm quotes answer quote_expired. */
  kind: 'indicative' | 'expired';
}

/**
 * A balance row's pending amount read while a zap's output was pending: the zap's output is the market's, so
 * the exact check waits until the zap's history record names it (settleAndCompare: `checkPendingSeen`).
 */
interface PendingSeen {
  account_id: string;
  asset_key: string;
  /** The fake's pending_atoms at that step. */
  observed: bigint;
  /** What the model knows is pending there: unresolved deposits and filled trades' quoted outputs. */
  known: bigint;
  /** Zaps whose output was pending there. */
  zaps: string[];
  /** The command after which it was read (for the message). */
  step: number;
}

/** A recovery the model claimed (with its payout cancel), for forbidden edges after the claim. */
interface TClaimed {
  recovery_id: string;
  account_id: string;
  credit_id: string;
  cancel_id: string;
}

export interface TradingModel {
  now_ms: number;
  /** The run's organization (SetupOrg makes it). */
  org_id?: string;
  /** The behaviour profile of the run's sim (GET /_sim/profile): its timings and windows are what the model predicts with. */
  profile: Profile;
  org: TOrg;
  accounts: TAccount[];
  destinations: TDestination[];
  ops: TOp[];
  quotes: TQuote[];
  faults: number;
  /** Counters for fresh addresses (destinations, flagged sources). */
  addresses: number;
  /** Fail codes of fault rules added per `<target>|<account_id>`: what an operation there may fail with. */
  fault_codes: Map<string, Set<string>>;
  credits: Map<string, PredictedCredit>;
  deposits: TDeposit[];
  writes: TWrite[];
  /** Every entity's statuses as GET showed them, walked against the spec's edges. */
  walk: StatusWalk;
  reach: Reach;
  /** Pending amounts read while zaps' outputs were pending, checked once their outputs are known. */
  pending_seen: PendingSeen[];
  /** Steps checked so far (names the step in a pending mismatch). */
  steps: number;
  claimed: TClaimed[];
  /**
   * Credits listed before the model booked what made them (a swap whose orphaned leg shows it as
   * pending_settle until it reconfirms, while its settlement credit already exists), by source key, with what
   * each held when listed: one may be spent before its maker is booked.
   */
  early: Map<string, { credit_id: string; atoms: bigint }>;
}

export interface TradingReal {
  sim: TestSim;
  /** The run's organization's API key (SetupOrg makes it). */
  key: string;
}

export const LIMITS = { accounts: 3, destinations: 8, ops: 14, quotes: 6, faults: 5, writes: 6 };

/** A /v1 call with the run's organization's key. */
export function api(r: TradingReal, method: string, path: string, opts: { body?: unknown; idem?: string } = {}): Promise<HttpReply> {
  return r.sim.api(method, path, { ...opts, key: r.key });
}

/** The assets the test trades: price-bearing, with atoms per USD at the catalog's starting prices (for sizing only). */
export interface TAsset {
  asset_key: string;
  chain: string;
  atoms_per_usd: bigint;
  /** Another asset on the same chain (a deposit of it on this asset's address provokes from_asset_mismatch). */
  sibling: string | null;
}

const ETH = 'native.evm:1';
const USDC = 'erc20.evm:1_0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const ARB_ETH = 'native.evm:42161';
const ARB_USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';
const SOL = 'native.solana';
const SOL_USDC = 'spl.solana:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const BTC = 'native.btc';
const BONK = 'spl.solana:DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';

/** Assets an account is funded with (fast-finality chains, each with a sibling on its chain). */
export const FUND_ASSETS: readonly TAsset[] = [
  { asset_key: ETH, chain: 'evm:1', atoms_per_usd: 10n ** 18n / 3200n, sibling: USDC },
  { asset_key: USDC, chain: 'evm:1', atoms_per_usd: 10n ** 6n, sibling: ETH },
  { asset_key: ARB_ETH, chain: 'evm:42161', atoms_per_usd: 10n ** 18n / 3200n, sibling: ARB_USDC },
  { asset_key: ARB_USDC, chain: 'evm:42161', atoms_per_usd: 10n ** 6n, sibling: ARB_ETH },
  { asset_key: SOL, chain: 'solana', atoms_per_usd: 10n ** 9n / 180n, sibling: SOL_USDC },
  { asset_key: SOL_USDC, chain: 'solana', atoms_per_usd: 10n ** 6n, sibling: SOL },
];

/** Assets a destination (an output) may be for: the funded ones, Bitcoin (slow finality), Bonk (no USD market → unsupported_pair). */
export const TRADE_ASSETS: readonly TAsset[] = [
  ...FUND_ASSETS,
  { asset_key: BTC, chain: 'btc', atoms_per_usd: 10n ** 8n / 95_000n, sibling: null },
  { asset_key: BONK, chain: 'solana', atoms_per_usd: 10n ** 5n, sibling: null },
];

export const tradeAsset = (asset_key: string): TAsset => TRADE_ASSETS.find((a) => a.asset_key === asset_key)!;

/** Sim time a deposit on `chain` needs to verify: finality (one block more for inclusion), screening or the partner window, whichever is latest. */
export function depositSettleMs(profile: Profile, chain: string, partner_screening: boolean): number {
  const c = profile.chains[chain];
  const partner_ms = partner_screening ? profile.partner_window_ms : 0;
  return Math.max(c.block_ms * (c.finality_confirmations + 2), profile.deposit_screening_ms, partner_ms) + 1_000;
}

/** Advances the sim clock and the model's idea of it together. */
export async function advance(m: TradingModel, r: TradingReal, ms: number): Promise<void> {
  await r.sim.advance(ms);
  m.now_ms += ms;
}

/** A 2xx, or an error whose code is one of `allowed` (never a 5xx, never an unexpected code). Returns the code, or null on success. */
export function expectOutcome(res: HttpReply, ok: number[], allowed: readonly string[], what: string): string | null {
  const shown = `${what}: ${res.status} ${JSON.stringify(res.body)}`;
  if (ok.includes(res.status)) return null;
  expect(res.status, shown).toBeLessThan(500);
  expect(res.body?.error?.code, shown).toBeDefined();
  expect(allowed, shown).toContain(res.body.error.code);
  return res.body.error.code as string;
}

export interface WireCredit {
  credit_id: string;
  asset_key: string;
  atoms: string;
  status: string;
  source_type: string;
  source_id: string;
}

/** Every credit of one account in one status, following cursors. */
export async function creditsOf(r: TradingReal, account_id: string, status: 'open' | 'consumed' = 'open'): Promise<WireCredit[]> {
  const out: WireCredit[] = [];
  let cursor: string | null = null;
  do {
    const res: HttpReply = await api(
      r,
      'GET',
      `/accounts/${account_id}/credits?status=${status}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out.push(...res.body.credits);
    cursor = res.body.next_cursor;
  } while (cursor);
  return out;
}

const TERMINAL: Record<OpKind, readonly string[]> = {
  trade: ['settled', 'failed'],
  zap: ['settled', 'failed'],
  cancel: ['confirmed', 'failed'],
};
export const OP_SUCCESS: Record<OpKind, string> = { trade: 'settled', zap: 'settled', cancel: 'confirmed' };

export const sourceKey = (source_type: string, source_id: string): string => `${source_type}|${source_id.toLowerCase()}`;

/**
 * Books a terminal operation into the model's ledger: a success consumes its source credit and (swaps)
 * adds the settlement and change credits the spec says it makes; a failure leaves the source open. The
 * amounts are the model's own (quote, request, deposit), checked against the history record on the way.
 */
async function book(m: TradingModel, r: TradingReal, op: TOp, body: Record<string, any>): Promise<void> {
  const status: string = body.status;
  op.outcome = status;
  const what = `${op.kind} ${op.id}`;
  if (status === 'failed') {
    // Fault rules added while it ran may have met it too (a rule fires on whatever reaches its stage first).
    const allowed = new Set([...op.may_fail, ...faultCodes(m, op.fault_target ?? op.kind, op.account_id)]);
    expect(
      allowed.has(body.failure_code),
      `${what} failed with ${body.failure_code}; the model expects only ${[...allowed].join(', ') || 'success'}`,
    ).toBe(true);
    return;
  }
  if (op.kind === 'cancel') {
    const c = [...m.credits.values()].find((x) => x.credit_id === op.credit_id);
    expect(c, `${what} confirmed a credit the model never predicted`).toBeDefined();
    c!.status = 'consumed';
    return;
  }
  const history = await api(r, 'GET', `/accounts/${op.account_id}/history?types=${op.kind}&limit=100`);
  const record = history.body.records.find((x: Record<string, any>) => x[`${op.kind}_id`] === op.id);
  expect(record, `${what} settled but is missing from its account's history`).toBeDefined();
  const e = op.expect;
  const amount_in = BigInt(record.amount_in_atoms);
  const amount_out = BigInt(record.amount_out_atoms);
  if (e.amount_in_atoms !== null)
    expect(amount_in, `${what} took ${amount_in}, the model sent ${e.amount_in_atoms}`).toBe(e.amount_in_atoms);
  if (e.amount_out_atoms !== null)
    expect(amount_out, `${what} paid out ${amount_out}, its quote promised ${e.amount_out_atoms} net of fees`).toBe(e.amount_out_atoms);
  expect(amount_out >= e.min_out_atoms, `${what} paid out ${amount_out}, below its floor ${e.min_out_atoms}`).toBe(true);
  // The fees are the organization's bps (the model drew them) of the gross output (amount_out + fees), rounded either way.
  const f = record.fees;
  const gross = amount_out + BigInt(f.total_atoms);
  for (const [name, bps] of [
    ['platform', m.org.platform_fee_bps],
    ['integrator', m.org.integrator_fee_bps],
  ] as const) {
    const [whole, frac = ''] = bps.split('.');
    const exact = gross * BigInt(whole + frac);
    const den = 10_000n * 10n ** BigInt(frac.length);
    const fee = BigInt(f[`${name}_atoms`]);
    expect(
      fee === exact / den || fee === (exact + den - 1n) / den,
      `${what}: ${name} fee ${fee} is not ${bps} bps of the gross ${gross}`,
    ).toBe(true);
  }
  let source = [...m.credits.values()].find((x) => x.credit_id === op.credit_id);
  if (source === undefined) {
    // An early credit (its maker, a swap whose orphaned leg still shows pending_settle, not booked yet) spent first:
    // it enters the model as listed, and its maker's booking later checks the amount and keeps it consumed.
    const early = [...m.early].find(([, c]) => c.credit_id === op.credit_id);
    if (early !== undefined) {
      const listed: PredictedCredit = {
        account_id: op.account_id,
        asset_key: record.from_asset_key,
        atoms: early[1].atoms,
        status: 'open',
        credit_id: early[1].credit_id,
      };
      m.credits.set(early[0], listed);
      source = listed;
    }
  }
  if (op.deposit_tx !== undefined) {
    // A deposit-funded zap spends the credit its deposit made (the whole deposit, so no change).
    const d = m.deposits.find((x) => x.tx_hash === op.deposit_tx)!;
    source = { account_id: d.account_id, asset_key: d.asset_key, atoms: d.atoms, status: 'open' };
    m.credits.set(sourceKey('deposit', d.tx_hash), source);
  }
  expect(source, `${what} settled from a credit the model never predicted`).toBeDefined();
  const source_atoms = source!.atoms;
  source!.status = 'consumed';
  const settlement = sourceKey('trade_settlement', op.id);
  const change = sourceKey('change', op.id);
  made(m, settlement, { account_id: op.account_id, asset_key: record.to_asset_key, atoms: amount_out, status: 'open' }, what);
  if (source_atoms > amount_in)
    made(m, change, { account_id: op.account_id, asset_key: record.from_asset_key, atoms: source_atoms - amount_in, status: 'open' }, what);
}

/**
 * Books a credit a settled swap made. One already spent as an early credit (listed before this booking) keeps
 * its consumed status, and what it held when listed must be what the swap made.
 */
function made(m: TradingModel, key: string, credit: PredictedCredit, what: string): void {
  const spent = m.credits.get(key);
  if (spent !== undefined) {
    expect(`${spent.asset_key} ${spent.atoms}`, `${what}: credit ${spent.credit_id}, spent before it was booked`).toBe(
      `${credit.asset_key} ${credit.atoms}`,
    );
    return;
  }
  m.credits.set(key, { ...credit, credit_id: m.early.get(key)?.credit_id });
}

/** GETs every operation not yet terminal, walks its status against the spec's edges, and books terminal ones. */
export async function observeOps(m: TradingModel, r: TradingReal): Promise<void> {
  for (const op of m.ops) {
    if (op.outcome !== null) continue;
    const res = await api(r, 'GET', `/${op.kind}s/${op.id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body = res.body[op.kind];
    const bad = m.walk.see(op.kind, op.id, body.status);
    expect(bad, bad ?? '').toBeNull();
    op.last_status = body.status;
    if (TERMINAL[op.kind].includes(body.status)) await book(m, r, op, body);
  }
}

/** Learns a credit's id when the model first sees it in a list, and checks it is the credit it predicted. */
export function recognise(m: TradingModel, c: WireCredit): void {
  const key = sourceKey(c.source_type, c.source_id);
  if (!m.credits.has(key) && c.source_type === 'deposit') {
    // A deposit verified since the model last looked: it credits exactly what landed, and never a flagged one.
    const d = m.deposits.find((x) => x.tx_hash.toLowerCase() === c.source_id.toLowerCase());
    expect(d, `credit ${c.credit_id} from deposit ${c.source_id}, which the model never made`).toBeDefined();
    expect(d!.expect, `deposit ${d!.tx_hash} should have been flagged, yet made credit ${c.credit_id}`).not.toBe('flagged');
    m.credits.set(key, { account_id: d!.account_id, asset_key: d!.asset_key, atoms: d!.atoms, status: 'open' });
  }
  const p = m.credits.get(key);
  if (!p) {
    m.early.set(key, { credit_id: c.credit_id, atoms: BigInt(c.atoms) });
    return;
  }
  p.credit_id = c.credit_id;
  expect(`${c.asset_key} ${c.atoms}`, `credit ${c.credit_id} (${c.source_type} of ${c.source_id})`).toBe(`${p.asset_key} ${p.atoms}`);
}

/** After every command: the fake's own invariant check (the spec oracle included), every operation's status walked, and what is in flight. */
export async function checkAfterStep(m: TradingModel, r: TradingReal): Promise<void> {
  const inv = await r.sim.invariants();
  expect(inv.violations, JSON.stringify(inv.violations)).toEqual([]);
  await observeOps(m, r);
  await checkInFlight(m, r);
}

/** A swap whose output the spec says is pending: filled, settlement not yet confirmed (as GET showed it at this step). */
export const outputPending = (op: TOp): boolean =>
  op.kind !== 'cancel' && op.outcome === null && (op.last_status === 'filled' || op.last_status === 'pending_settle');

/**
 * The spec's pending_atoms ("unconfirmed deposits plus in-flight trade/zap settlements"), predicted per
 * account and asset from the entities the model has in flight at this step and compared with the fake's
 * balance rows: every deposit the model landed that has not resolved yet (its row still `pending`), plus the
 * quoted output of every trade it saw filled and not settled. A zap's output is the market's: where one is
 * pending the row must hold at least the rest, and the exact sum is checked once the zap's history record
 * names its output (`checkPendingSeen`).
 */
async function checkInFlight(m: TradingModel, r: TradingReal): Promise<void> {
  m.steps++;
  for (const a of m.accounts) {
    const known = new Map<string, bigint>();
    const zaps = new Map<string, string[]>();
    const why = new Map<string, string[]>();
    const add = (asset_key: string, atoms: bigint, what: string) => {
      known.set(asset_key, (known.get(asset_key) ?? 0n) + atoms);
      why.set(asset_key, [...(why.get(asset_key) ?? []), what]);
    };
    const mine = m.deposits.filter((d) => d.account_id === a.account_id);
    if (mine.length > 0) {
      const rows = (await r.sim.control('GET', `/deposits?account_id=${a.account_id}`)).body.deposits as Array<{
        tx_hash: string;
        status: string;
      }>;
      for (const d of mine) {
        const row = rows.find((x) => x.tx_hash.toLowerCase() === d.tx_hash.toLowerCase());
        if (row?.status === 'pending') add(d.asset_key, d.atoms, `deposit ${d.tx_hash} ${d.atoms}`);
      }
    }
    for (const op of m.ops) {
      if (op.account_id !== a.account_id || !outputPending(op)) continue;
      // Where an orphaned leg shows as pending_settle (the profile's orphan_status), a swap that already settled is not in flight.
      if (op.last_status === 'pending_settle' && m.profile.orphan_status !== 'settled') {
        const settled = await api(r, 'GET', `/accounts/${a.account_id}/activity?types=${op.kind}.settled&${op.kind}_id=${op.id}&limit=10`);
        if (settled.body.events.length > 0) continue;
      }
      const to = op.expect.to_asset_key!;
      if (op.kind === 'trade') add(to, op.expect.amount_out_atoms!, `trade ${op.id} ${op.expect.amount_out_atoms}`);
      else {
        zaps.set(to, [...(zaps.get(to) ?? []), op.id]);
        add(to, op.expect.min_out_atoms, `zap ${op.id} ≥ ${op.expect.min_out_atoms}`);
      }
    }
    const res = await api(r, 'GET', `/accounts/${a.account_id}/balances?limit=100`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const observed = new Map<string, bigint>();
    for (const row of res.body.balances) observed.set(row.asset_key, BigInt(row.pending_atoms));
    for (const asset_key of new Set([...known.keys(), ...observed.keys()])) {
      const seen = observed.get(asset_key) ?? 0n;
      const predicted = known.get(asset_key) ?? 0n;
      const what = `step ${m.steps}: pending ${asset_key} of ${a.account_id}: the fake shows ${seen}, the model has in flight ${predicted} (${(why.get(asset_key) ?? ['nothing']).join(', ')})`;
      const waiting = zaps.get(asset_key) ?? [];
      if (waiting.length === 0) expect(seen, what).toBe(predicted);
      else {
        expect(seen >= predicted, what).toBe(true);
        m.pending_seen.push({
          account_id: a.account_id,
          asset_key,
          observed: seen,
          known: predicted - waiting.reduce((s, id) => s + m.ops.find((o) => o.id === id)!.expect.min_out_atoms, 0n),
          zaps: waiting,
          step: m.steps,
        });
      }
    }
  }
}

/** The pending amounts read while zaps' outputs were pending, now that each zap's history record names its output. */
export async function checkPendingSeen(m: TradingModel, r: TradingReal): Promise<void> {
  const outputs = new Map<string, bigint>();
  for (const account_id of new Set(m.pending_seen.map((p) => p.account_id))) {
    let cursor: string | null = null;
    do {
      const page: HttpReply = await api(
        r,
        'GET',
        `/accounts/${account_id}/history?types=zap&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      for (const rec of page.body.records) outputs.set(rec.zap_id, BigInt(rec.amount_out_atoms));
      cursor = page.body.next_cursor;
    } while (cursor);
  }
  for (const p of m.pending_seen) {
    const zapsOut = p.zaps.reduce((s, id) => s + (outputs.get(id) ?? 0n), 0n);
    expect(
      p.observed,
      `step ${p.step}: pending ${p.asset_key} of ${p.account_id}: the fake showed ${p.observed}; in flight were ${p.known} known plus zaps ${p.zaps.join(', ')} paying ${zapsOut}`,
    ).toBe(p.known + zapsOut);
  }
}

/**
 * The in-flight operation that holds a credit, as the model knows it (spec: each RFQ or zap draws from exactly
 * one credit; a trade, zap or cancel uses it until it ends): a trade, zap or cancel (recovery payouts
 * included) not yet terminal on that credit, or a deposit-funded zap not yet terminal whose deposit made it.
 */
function holderOf(m: TradingModel, credit_id: string): TOp | undefined {
  return m.ops.find((o) => {
    if (o.outcome !== null) return false;
    if (o.credit_id === credit_id) return true;
    return o.deposit_tx !== undefined && m.credits.get(sourceKey('deposit', o.deposit_tx))?.credit_id === credit_id;
  });
}

/**
 * A spend of `credit_id` (firm RFQ, credit-funded zap, cancel) answered `code`: a credit an operation holds
 * is refused (`credit_in_use`, or an answer the endpoint gives before it looks at the credit), and a credit
 * nothing holds is never refused as in use.
 */
export function expectHolder(m: TradingModel, credit_id: string, code: string | null, before: readonly string[], what: string): void {
  const holder = holderOf(m, credit_id);
  if (holder) {
    expect(
      [...before, 'credit_in_use'],
      `${what}: credit ${credit_id} is held by ${holder.kind} ${holder.id} (in flight), yet the spend answered ${code ?? 'success'}`,
    ).toContain(code);
  } else {
    expect(code, `${what}: credit ${credit_id} is held by nothing in flight, yet answered credit_in_use`).not.toBe('credit_in_use');
  }
}

/** The failure codes fault rules the model added may cause to an operation of `target` on the account. */
export function faultCodes(m: TradingModel, target: string, account_id: string): string[] {
  return [...(m.fault_codes.get(`${target}|${account_id}`) ?? [])];
}

/** A new operation the model expects, with the failures it can explain. */
export function newOp(
  kind: OpKind,
  id: string,
  account_id: string,
  credit_id: string | null,
  payout: TOp['expect'],
  may_fail: Iterable<string>,
): TOp {
  return { kind, id, account_id, credit_id, expect: payout, may_fail: new Set(may_fail), outcome: null };
}

export function newWalk(profile: Profile): StatusWalk {
  return new StatusWalk(edgeSet(profile));
}

/** A fresh destination address on the asset's chain (seeded apart from every other test's addresses). */
export { sourceAddressFor } from '../model/commands/addresses.ts';

/** What a spending command (firm trade, credit-funded zap) picks by index: an open credit, a destination of the same account, and an amount. */
export async function pickSpend(
  m: TradingModel,
  r: TradingReal,
  a: { accountIdx: number; creditIdx: number; destinationIdx: number; fraction_bps: number },
) {
  const account = m.accounts[a.accountIdx % m.accounts.length];
  const mine = m.destinations.filter((d) => d.account_id === account.account_id);
  const credits = await creditsOf(r, account.account_id);
  for (const c of credits) recognise(m, c);
  if (mine.length === 0 || credits.length === 0) return null;
  const credit = credits[a.creditIdx % credits.length];
  const dest = mine[a.destinationIdx % mine.length];
  const amount_in = (BigInt(credit.atoms) * BigInt(a.fraction_bps)) / 10_000n || 1n;
  return { account, credit, dest, from: tradeAsset(credit.asset_key), to: tradeAsset(dest.asset_key), amount_in };
}
