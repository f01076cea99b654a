// The scenario DSL `t`: verbs over HTTP only (/v1 with the scenario org's key, /_sim for the control
// plane), each recording a readable step line, and expectations that record a result and, on failure,
// stop the scenario (`ExpectationFailed`): later steps would only report the consequences of the first.
// Replies are typed from the route declarations' schemas (lib/api-types.ts, lib/types.ts).
import { isDeepStrictEqual } from 'node:util';
import type { ControlBody, HttpMethod, V1Body } from '../../lib/api-types.ts';
import type { Cancel, Credit, Event, EventOf, EventType, Quote, Rfq, SimDeposit, Trade, Zap } from '../../lib/types.ts';
import type { FaultRuleInput } from '../../fake-provider/control/faults.ts';
import type { ExpectationResult, TimelineEntry } from '../../reports/types.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';
import { apiClient, errorCode, type ApiClient, type CallOptions, type ControlClient, type Reply } from '../../lib/http-client.ts';
import { parseDuration } from './duration.ts';
import { addressFor } from './assets.ts';
import type { Target } from './target.ts';
import { WALL, type Wall } from '../../sim/wall.ts';

/** A failed `t.expect…`: the scenario stops here and is reported failed under this label. */
export class ExpectationFailed extends Error {
  constructor(
    readonly label: string,
    readonly detail: string,
  ) {
    super(`expectation failed: ${label}${detail ? ` (${detail})` : ''}`);
  }
}

/** A verb whose own request failed (e.g. account creation answered 500): the scenario cannot go on. */
export class StepFailed extends Error {}

export type Pollable = 'rfq' | 'trade' | 'zap' | 'cancel';
/** What `t.get(kind, id)` reads. */
export interface Entities {
  rfq: Rfq;
  trade: Trade;
  zap: Zap;
  cancel: Cancel;
  quote: Quote;
}
const PATH_OF: Record<Pollable | 'quote', string> = { rfq: '/rfqs', trade: '/trades', zap: '/zaps', cancel: '/cancels', quote: '/quotes' };
const TERMINAL = new Set(['settled', 'failed', 'confirmed']);
/**
 * On a realtime clock a step of at most this much sim time is waited for (the app sees events at their own
 * pace); a longer one (a 30 s reorg delay, an 11 min OTP expiry, a 73 h outage) jumps the clock with
 * POST /_sim/clock/advance, after which the clock goes on following wall time.
 */
export const REALTIME_WAIT_MAX_MS = 15_000;

export interface DepositResult {
  deposit_address_id: string;
  deposit_id: string;
  tx_hash: string;
  /** pending, verified, flagged or dropped, as the control plane reports it. */
  status: string;
  credit_id: string | null;
  deposit: SimDeposit;
}

export interface QuoteRequest {
  account_id: string;
  credit_id?: string;
  destination_id?: string;
  from: string;
  to: string;
  side?: 'exact_in' | 'exact_out';
  amount_in_atoms?: string;
  amount_out_atoms?: string;
  mode?: 'firm' | 'indicative';
  ttl_ms?: number;
  wait_ms?: number;
}

/** An event as the feed serves it, discriminated by `type` (lib/types.ts `Event`). */
export type EventEnvelope = Event;

/** The events of one type, typed as that type (`ofType(events, 'trade.settled')[0].data.credit_id`). */
export function ofType<T extends EventType>(events: readonly Event[], type: T): Array<EventOf<T>> {
  return events.filter((e): e is EventOf<T> => e.type === type);
}

const short = (v: unknown): string => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s === undefined ? 'undefined' : s.length > 300 ? `${s.slice(0, 300)}…` : s;
};

export class ScenarioDsl {
  readonly api: ApiClient;
  readonly control: ControlClient;
  readonly steps: string[] = [];
  /** Told each step line as it is recorded (the dashboard shows a trigger's steps while it runs). */
  onStep?: (line: string) => void;
  readonly entries: TimelineEntry[] = [];
  readonly expectations: ExpectationResult[] = [];
  /** Sim time, kept from every clock answer (in a virtual clock nothing else moves it). */
  now_ms = 0;
  started_ms = 0;
  private readonly faults: string[] = [];
  private readonly receivers: Receiver[] = [];
  private addresses = 0;
  /** Ids no event names (RFQs, destinations): the runner asks the timeline for them by id on a shared server. */
  readonly unnamed_ids = new Set<string>();
  /** When each pollable entity may next be read: the last reply's `poll_after_ms` from its sim time. */
  private readonly nextPoll = new Map<string, number>();
  /** Every id the case made or touched, by kind (account, deposit, trade, …): what a trigger prints. */
  readonly ids = new Map<string, Set<string>>();
  /** Balances of an existing account (`--account`) when the case began: checks compare changes against them. */
  private readonly baselines = new Map<string, Record<string, { available_atoms: string; pending_atoms: string }>>();
  private readonly idem_prefix: string;
  private readonly label_prefix: string;

  constructor(
    readonly target: Target,
    readonly name: string,
    private readonly wall: Wall = WALL,
  ) {
    const tag = target.caller ? `-${target.caller.run_tag}` : '';
    this.idem_prefix = `${name}-${target.organization_id}${tag}`;
    this.label_prefix = target.caller ? `${name}/${target.caller.run_tag}` : name;
    this.api = apiClient(target.base_url, target.api_key, this.idem_prefix, (ms) => this.wall.wait(ms));
    this.control = target.control;
  }

  /** The server runs a realtime clock: short steps are waited for, long ones jumped (REALTIME_WAIT_MAX_MS). */
  get realtime(): boolean {
    return this.target.clock_mode === 'realtime';
  }

  /** The case runs in the caller's own organization (a trigger), whose key, webhook and feed are the app's. */
  get in_caller_org(): boolean {
    return this.target.mode === 'caller';
  }

  /** An Idempotency-Key of this run (reruns of a trigger get their own). */
  idem(label: string): string {
    return `${this.idem_prefix}-${label}`;
  }

  /** A real address on the asset's chain, the same for the same label within this run. */
  address(asset_key: string, label: string): string {
    return addressFor(asset_key, `${this.label_prefix}/${label}`);
  }

  /** Records an id under its kind (printed by a trigger as the ids to look for). */
  remember(kind: string, id: unknown): void {
    if (typeof id !== 'string' || id.length === 0) return;
    let set = this.ids.get(kind);
    if (!set) this.ids.set(kind, (set = new Set()));
    set.add(id);
  }

  get organization_id(): string {
    return this.target.organization_id;
  }

  async begin(): Promise<void> {
    const r = await this.control.call('GET', '/clock');
    this.now_ms = this.started_ms = r.body.clock.now_ms;
  }

  /** Removes the fault rules this scenario added and closes its receivers (a shared server stays clean). */
  async finish(): Promise<void> {
    for (const id of this.faults.splice(0)) await this.control.call('DELETE', `/faults/${id}`);
    for (const r of this.receivers.splice(0)) await r.close();
  }

  // ---- recording ----

  private step(line: string): void {
    this.steps.push(line);
    this.onStep?.(line);
  }

  /** Records a step line (also usable by scripts as a comment in the timeline). */
  note(text: string, entity?: { type: string; id: string }): void {
    this.step(text);
    if (entity) this.remember(entity.type, entity.id);
    this.entries.push({
      sim_ms: this.now_ms,
      entity_type: entity?.type ?? 'scenario',
      entity_id: entity?.id ?? this.name,
      kind: 'step',
      detail: text,
    });
  }

  private must<T>(r: Reply<T>, what: string, ...ok: number[]): T {
    const expected = ok.length > 0 ? ok : [200];
    if (!expected.includes(r.status))
      throw new StepFailed(`${what}: expected ${expected.join('/')}, got ${r.status} ${r.network_error ?? short(r.body)}`);
    return r.body;
  }

  // ---- raw calls ----

  /** Any /v1 call; recorded as `METHOD path → status [code]`. */
  async call<M extends HttpMethod, P extends string>(method: M, path: P, o: CallOptions = {}): Promise<Reply<V1Body<M, P>>> {
    const reply = await this.api.call(method, path, o);
    if (this.realtime) await this.clockNow();
    const r = this.track(reply);
    const error = errorCode(r.body);
    const code = error ? ` ${error}` : r.network_error ? ` (${r.network_error})` : '';
    this.note(`${method.toUpperCase()} /v1${path} → ${r.status}${code}`);
    return r;
  }

  /** Remembers `poll_after_ms` of rfq/trade/zap/cancel replies (a claim's names its cancel), so polls wait as told. */
  private track<R extends Reply<unknown>>(r: R): R {
    // Any reply: only objects with an id and poll_after_ms matter here.
    const body = (typeof r.body === 'object' && r.body !== null ? r.body : {}) as Record<string, Record<string, unknown> | undefined>;
    for (const kind of ['rfq', 'trade', 'zap', 'cancel', 'recovery'] as const) {
      const x = body[kind];
      const id = kind === 'recovery' ? x?.cancel_id : x?.[`${kind}_id`];
      if (typeof id !== 'string') continue;
      if (kind === 'rfq') this.unnamed_ids.add(id);
      this.remember(kind === 'recovery' ? 'cancel' : kind, id);
      if (kind === 'recovery') this.remember('recovery', x?.recovery_id);
      if (kind === 'zap') this.remember('recovery', (x?.recovery as { recovery_id?: unknown } | null | undefined)?.recovery_id);
      if (typeof x?.poll_after_ms === 'number') this.nextPoll.set(id, this.now_ms + x.poll_after_ms);
      else this.nextPoll.delete(id);
    }
    return r;
  }

  /** Any /_sim call, not recorded as a step (mostly plumbing reads); `t.note` what matters. */
  async sim<M extends HttpMethod, P extends string>(method: M, path: P, body?: unknown): Promise<Reply<ControlBody<M, P>>> {
    return this.control.call(method, path, body);
  }

  // ---- clock ----

  /** Reads the server's clock (on a realtime one `now_ms` goes stale between reads). */
  async clockNow(): Promise<number> {
    this.now_ms = this.must(await this.control.call('GET', '/clock'), 'read clock').clock.now_ms;
    return this.now_ms;
  }

  /**
   * Brings sim time to `target_ms`: a virtual clock is advanced; a realtime one is waited for when the
   * step is short (REALTIME_WAIT_MAX_MS) and advanced otherwise (or when it moves slower than wall time).
   */
  private async clockTo(target_ms: number): Promise<void> {
    const now = this.realtime ? await this.clockNow() : this.now_ms;
    if (target_ms <= now) return;
    if (this.realtime && target_ms - now <= REALTIME_WAIT_MAX_MS) {
      const give_up_ms = this.wall.now_ms() + 2 * (target_ms - now) + 5_000;
      while ((await this.clockNow()) < target_ms && this.wall.now_ms() < give_up_ms)
        await this.wall.wait(Math.min(100, Math.max(5, target_ms - this.now_ms)));
      if (this.now_ms >= target_ms) return;
    }
    this.now_ms = this.must(await this.control.call('POST', '/clock/advance', { ms: target_ms - this.now_ms }), 'advance').clock.now_ms;
  }

  private async moveClock(ms: number): Promise<void> {
    await this.clockTo((this.realtime ? await this.clockNow() : this.now_ms) + ms);
  }

  /**
   * Moves time in 1 s steps (waited for on a realtime clock) until `done()` holds or `max` has passed;
   * returns whether it holds. For what ends outside the scheduler on a realtime clock (a webhook's answer).
   */
  async until(done: () => Promise<boolean>, max: string | number = '1m'): Promise<boolean> {
    const end_ms = (this.realtime ? await this.clockNow() : this.now_ms) + parseDuration(max);
    while (!(await done())) {
      if ((this.realtime ? await this.clockNow() : this.now_ms) >= end_ms) return false;
      await this.moveClock(1_000);
    }
    return true;
  }

  /** Brings sim time to `sim_ms` (e.g. a deadline an event named), as `advance` does: a no-op if already past. */
  async advanceTo(sim_ms: number): Promise<void> {
    this.note(`advance to ${sim_ms - this.started_ms} ms after the start`);
    await this.clockTo(sim_ms);
  }

  async advance(d: string | number): Promise<void> {
    const ms = parseDuration(d);
    this.note(`advance ${typeof d === 'string' ? d : `${d}ms`}`);
    await this.moveClock(ms);
  }

  /** Wall time now: only for what runs on wall time (the rate limiter). */
  wallNow(): number {
    return this.wall.now_ms();
  }

  /** Waits wall time: only for what runs on wall time (the rate limiter's Retry-After). */
  async waitWall(ms: number): Promise<void> {
    this.note(`wait ${ms} ms of wall time`);
    await this.wall.wait(ms);
  }

  /** Runs everything scheduled (bounded, default 80 h of sim time). */
  async settle(max?: string | number): Promise<void> {
    this.note(`settle${max === undefined ? '' : ` (at most ${max})`}`);
    const r = this.must(
      await this.control.call('POST', '/clock/settle', max === undefined ? {} : { max_ms: parseDuration(max) }),
      'settle',
    );
    this.now_ms = r.clock.now_ms;
  }

  // ---- accounts, funds, destinations ----

  /** A new account with its wallets derived (advances the clock past the derivation); optional email. */
  async account(opts: { label?: string; email?: string } = {}): Promise<string> {
    if (this.target.caller?.account_id) return this.callerAccount(this.target.caller.account_id, opts.email);
    const account = this.must(
      await this.api.call('POST', '/accounts', { body: opts.label ? { label: opts.label } : {} }),
      'create account',
    ).account;
    this.note(`account ${account.account_id} created`, { type: 'account', id: account.account_id });
    await this.moveClock(10_000);
    if (opts.email)
      this.must(await this.api.call('PATCH', `/accounts/${account.account_id}`, { body: { email: opts.email } }), 'attach email');
    return account.account_id;
  }

  /**
   * The caller's account (`--account`): checked, its balances kept as the baseline the checks compare
   * changes against, and given the email a case needs (for OTPs) only if it has none.
   */
  private async callerAccount(account_id: string, email?: string): Promise<string> {
    const account = this.must(await this.api.call('GET', `/accounts/${account_id}`), `read account ${account_id}`).account;
    if (!this.baselines.has(account_id)) {
      this.baselines.set(account_id, await this.balances(account_id));
      this.note(`account ${account_id} (yours, ${account.status}); balances are checked as changes from now`, {
        type: 'account',
        id: account_id,
      });
    }
    if (email && !account.email) this.must(await this.api.call('PATCH', `/accounts/${account_id}`, { body: { email } }), 'attach email');
    return account_id;
  }

  /** A deposit address for the asset (a fresh id each call). */
  async depositAddress(account_id: string, asset_key: string): Promise<{ deposit_address_id: string; address: string }> {
    return this.must(await this.api.call('POST', `/accounts/${account_id}/deposit-addresses`, { body: { asset_key } }), 'deposit address')
      .deposit_address;
  }

  /**
   * A control-plane deposit of `atoms` landing on a new deposit address of `asset_key` (or on
   * `deposit_address_id`); by default advances until it resolves (verified, flagged or dropped).
   * `land_asset_key` sends another asset than the address's (e.g. to a zap address).
   */
  async deposit(
    account_id: string,
    asset_key: string,
    atoms: string,
    opts: { deposit_address_id?: string; land_asset_key?: string; source_address?: string; wait?: boolean } = {},
  ): Promise<DepositResult> {
    const deposit_address_id = opts.deposit_address_id ?? (await this.depositAddress(account_id, asset_key)).deposit_address_id;
    const body: Record<string, unknown> = { deposit_address_id, atoms };
    if (opts.land_asset_key) body.asset_key = opts.land_asset_key;
    if (opts.source_address) body.source_address = opts.source_address;
    const landed = this.must(await this.control.call('POST', '/deposits', body), 'land deposit').deposit;
    this.note(
      `deposit ${atoms} ${opts.land_asset_key ?? asset_key} lands on ${deposit_address_id}${opts.source_address ? ` from ${opts.source_address}` : ''}`,
      { type: 'deposit', id: landed.deposit_id },
    );
    const result = (d: SimDeposit): DepositResult => ({
      deposit_address_id,
      deposit_id: d.deposit_id,
      tx_hash: d.tx_hash,
      status: d.status,
      credit_id: d.credit_id ?? null,
      deposit: d,
    });
    if (opts.wait === false) return result(landed);
    return result(await this.waitDeposit(deposit_address_id, landed.deposit_id));
  }

  /** Advances (1 s, doubling) until the deposit leaves `pending`; its final control-plane record. */
  async waitDeposit(deposit_address_id: string, deposit_id: string): Promise<SimDeposit> {
    let step_ms = 1_000;
    for (let i = 0; i < 40; i++) {
      const list = this.must(
        await this.control.call('GET', `/deposits?deposit_address_id=${deposit_address_id}`),
        'read deposits',
      ).deposits;
      const d = list.find((x) => x.deposit_id === deposit_id);
      if (d && d.status !== 'pending') {
        this.note(
          `deposit ${deposit_id} ${d.status}${d.flag_reason ? ` (${d.flag_reason})` : ''}${d.credit_id ? `: credit ${d.credit_id}` : ''}`,
          { type: 'deposit', id: deposit_id },
        );
        this.remember('credit', d.credit_id);
        return d;
      }
      await this.moveClock(step_ms);
      step_ms = Math.min(step_ms * 2, 600_000);
    }
    throw new StepFailed(`deposit ${deposit_id} never resolved`);
  }

  /** A registered destination for the asset at a fresh real-format address (or `address`). */
  async destination(account_id: string, asset_key: string, opts: { address?: string } = {}): Promise<string> {
    const d = this.must(
      await this.api.call('POST', `/accounts/${account_id}/destinations`, {
        body: { asset_key, address: opts.address ?? this.address(asset_key, String(++this.addresses)) },
      }),
      'destination',
    ).destination;
    this.unnamed_ids.add(d.destination_id);
    this.note(`destination ${d.destination_id} for ${asset_key}`, { type: 'destination', id: d.destination_id });
    return d.destination_id;
  }

  // ---- RFQs, quotes, trades ----

  /** POST /rfqs (firm, exact_in, ttl 30 s unless told); the raw reply. */
  rfq(q: QuoteRequest, o: { idem?: string | null } = {}): Promise<Reply<V1Body<'POST', '/rfqs'>>> {
    const side = q.side ?? 'exact_in';
    const body: Record<string, unknown> = {
      from_asset_key: q.from,
      to_asset_key: q.to,
      side,
      mode: q.mode ?? 'firm',
      ttl_ms: q.ttl_ms ?? 30_000,
    };
    for (const k of ['account_id', 'credit_id', 'destination_id', 'amount_in_atoms', 'amount_out_atoms', 'wait_ms'] as const)
      if (q[k] !== undefined) body[k] = q[k];
    return this.call('POST', '/rfqs', { body, idem: o.idem });
  }

  /** GET of an rfq/trade/zap/cancel/quote; the object, or a StepFailed. */
  async get<K extends keyof Entities>(kind: K, id: string): Promise<Entities[K]> {
    // The path is built from the kind, so the declared route is named here: GET /{kind}s/{id} answers { [kind]: … }.
    const reply = (await this.api.call('GET', `${PATH_OF[kind]}/${id}`)) as Reply<Record<K, Entities[K]>>;
    if (this.realtime) await this.clockNow();
    return this.must(this.track(reply), `GET ${kind} ${id}`)[kind];
  }

  /**
   * Polls an rfq (until ready) or a trade/zap/cancel (until terminal, or `until`), advancing the clock by
   * each answer's `poll_after_ms` between reads, as a well-behaved client does.
   */
  async poll<K extends Pollable>(kind: K, id: string, until?: (x: Entities[K]) => boolean): Promise<Entities[K]> {
    const done = until ?? ((x: Entities[K]) => (kind === 'rfq' ? x.status === 'ready' : TERMINAL.has(x.status)));
    for (let i = 0; i < 200; i++) {
      const due_ms = this.nextPoll.get(id);
      if (due_ms !== undefined) await this.clockTo(due_ms);
      const x = await this.get(kind, id);
      if (done(x)) {
        const failure_code = failureOf(x);
        this.note(`${kind} ${id} is ${x.status}${failure_code ? ` (${failure_code})` : ''}`, { type: kind, id });
        return x;
      }
      if (x.poll_after_ms === undefined) this.nextPoll.set(id, this.now_ms + 1_000);
    }
    throw new StepFailed(`${kind} ${id} never reached the awaited state`);
  }

  /** A quote polled to ready: firm by default (needs credit_id and destination_id). */
  async quote(q: QuoteRequest): Promise<{ rfq_id: string; quote_id: string; quote: Quote; first_status: number }> {
    const r = await this.rfq(q);
    const rfq = this.must(r, 'rfq', 200, 202).rfq;
    const ready = rfq.status === 'ready' ? rfq : await this.poll('rfq', rfq.rfq_id);
    if (ready.best_quote_id === undefined) throw new StepFailed(`rfq ${rfq.rfq_id} is ready without a best_quote_id`);
    const quote = await this.get('quote', ready.best_quote_id);
    this.note(
      `quote ${quote.quote_id}: ${quote.amount_in_atoms} ${quote.from_asset_key} → ${quote.expected_out_atoms} ${quote.to_asset_key} (${quote.mode}, ${quote.side})`,
      { type: 'quote', id: quote.quote_id },
    );
    return { rfq_id: rfq.rfq_id, quote_id: quote.quote_id, quote, first_status: r.status };
  }

  /** POST /quotes/{id}/accept (slippage 100 bps unless told); the raw reply. */
  accept(
    quote_id: string,
    o: { slippage_bps?: string; client_order_id?: string; idem?: string | null } = {},
  ): Promise<Reply<V1Body<'POST', '/quotes/:quote_id/accept'>>> {
    const body: Record<string, unknown> = { slippage_bps: o.slippage_bps ?? '100' };
    if (o.client_order_id) body.client_order_id = o.client_order_id;
    return this.call('POST', `/quotes/${quote_id}/accept`, { body, idem: o.idem });
  }

  /** Firm quote + accept: the executing trade. */
  async trade(q: QuoteRequest): Promise<{ trade_id: string; quote: Quote }> {
    const { quote_id, quote } = await this.quote(q);
    const trade = this.must(await this.accept(quote_id), 'accept').trade;
    return { trade_id: trade.trade_id, quote };
  }

  // ---- zaps, cancels ----

  /** POST /zaps; `min_amount_out_atoms` defaults to '0' (no floor). The raw reply. */
  zap(body: Record<string, unknown>, o: { idem?: string | null } = {}): Promise<Reply<V1Body<'POST', '/zaps'>>> {
    return this.call('POST', '/zaps', { body: { min_amount_out_atoms: '0', ...body }, idem: o.idem });
  }

  cancel(
    body: { account_id: string; credit_id: string; destination_id: string; client_cancel_id?: string },
    o: { idem?: string | null } = {},
  ): Promise<Reply<V1Body<'POST', '/cancels'>>> {
    return this.call('POST', '/cancels', { body, idem: o.idem });
  }

  // ---- recoveries and exports ----

  readonly recovery = {
    activate: (
      recovery_id: string,
      account_id: string,
      credit_id: string,
    ): Promise<Reply<V1Body<'POST', '/recoveries/:recovery_id/activate'>>> =>
      this.call('POST', `/recoveries/${recovery_id}/activate`, { body: { account_id, credit_id } }),
    claim: (b: {
      account_id: string;
      credit_id: string;
      otp_code: string;
      address: string;
    }): Promise<Reply<V1Body<'POST', '/public/recover-funds'>>> =>
      this.call('POST', '/public/recover-funds', {
        key: null,
        idem: null,
        body: { account_id: b.account_id, credit_id: b.credit_id, otp_code: b.otp_code, destination: { address: b.address } },
      }),
  };

  readonly export = {
    keys: (account_id: string, target_public_key: string): Promise<Reply<V1Body<'POST', '/accounts/:account_id/export-keys'>>> =>
      this.call('POST', `/accounts/${account_id}/export-keys`, { body: { target_public_key } }),
    initiate: (account_id: string): Promise<Reply<V1Body<'POST', '/public/initiate-export'>>> =>
      this.call('POST', '/public/initiate-export', { key: null, idem: null, body: { account_id } }),
    complete: (
      account_id: string,
      otp_code: string,
      target_public_key: string,
    ): Promise<Reply<V1Body<'POST', '/public/complete-export'>>> =>
      this.call('POST', '/public/complete-export', { key: null, idem: null, body: { account_id, otp_code, target_public_key } }),
    status: (account_id: string, otp_code: string): Promise<Reply<V1Body<'GET', '/public/export-status'>>> =>
      this.call('GET', `/public/export-status?account_id=${encodeURIComponent(account_id)}&otp_code=${encodeURIComponent(otp_code)}`, {
        key: null,
      }),
  };

  /** The newest OTP emailed to the account (the /_sim inbox). */
  async otp(account_id: string): Promise<string> {
    const emails = this.must(await this.control.call('GET', `/emails?account_id=${account_id}`), 'inbox').emails;
    if (emails.length === 0) throw new StepFailed(`no email for ${account_id}`);
    return emails[emails.length - 1].otp_code;
  }

  // ---- webhooks, faults, reads ----

  /** Starts a real signature-checking receiver (or uses `receiver`) and registers it as the org's webhook. */
  async webhook(receiver?: Receiver): Promise<{ webhook_id: string; secret: string; receiver: Receiver }> {
    const rx = receiver ?? (await startReceiver());
    if (!receiver) this.receivers.push(rx);
    const w = this.must(await this.api.call('POST', '/webhooks', { body: { url: rx.url } }), 'create webhook').webhook;
    if (w.secret === undefined) throw new StepFailed(`POST /webhooks answered no secret for ${w.webhook_id}`);
    rx.secret = w.secret;
    this.note(`webhook ${w.webhook_id} → ${rx.url}`, { type: 'webhook', id: w.webhook_id });
    return { webhook_id: w.webhook_id, secret: w.secret, receiver: rx };
  }

  /**
   * The organization's webhook as the case needs it: in an organization made for the case, a real
   * signature-checking receiver registered for it (`receiver` set); in the caller's organization (a
   * trigger), the app's own active webhook, which the case must not replace (no `receiver`: what the app
   * received is the app's to check; the case reads the delivery log).
   */
  async orgWebhook(): Promise<{ webhook_id: string; receiver?: Receiver }> {
    if (!this.in_caller_org) return this.webhook();
    const list = this.must(await this.api.call('GET', '/webhooks?limit=100'), 'list webhooks').webhooks;
    const active = list.find((w) => w.active);
    if (!active)
      throw new StepFailed(
        "this edge case needs your organization's webhook, and none is active: register one (POST /v1/webhooks), or run `swapsim listen --forward-to URL` beside it",
      );
    this.note(`webhook ${active.webhook_id} (yours) → ${active.url}`, { type: 'webhook', id: active.webhook_id });
    return { webhook_id: active.webhook_id };
  }

  /** The organization's settings as the control plane has them (partner screening, rate limits, …). */
  async orgSettings(): Promise<ControlBody<'GET', '/organizations'>['organizations'][number]> {
    const orgs = this.must(await this.control.call('GET', '/organizations'), 'read organizations').organizations;
    const org = orgs.find((o) => o.organization_id === this.organization_id);
    if (!org) throw new StepFailed(`organization ${this.organization_id} is not on this server`);
    return org;
  }

  /** Adds a fault rule (removed again when the scenario ends); returns its id. */
  async fault(rule: FaultRuleInput): Promise<string> {
    const f = this.must(await this.control.call('POST', '/faults', rule), 'add fault').fault;
    this.faults.push(f.fault_id);
    this.note(
      `fault ${f.fault_id}: ${rule.target} ${JSON.stringify(rule.effect)}${rule.match ? ` where ${JSON.stringify(rule.match)}` : ''}${rule.times ? ` ×${rule.times}` : ''}`,
    );
    return f.fault_id;
  }

  /** Removes a fault rule this case added before the case ends (e.g. the end of an outage). */
  async unfault(fault_id: string): Promise<void> {
    this.must(await this.control.call('DELETE', `/faults/${fault_id}`), 'remove fault');
    const i = this.faults.indexOf(fault_id);
    if (i >= 0) this.faults.splice(i, 1);
    this.note(`fault ${fault_id} removed`);
  }

  /**
   * The org's events from GET /v1/events (every page, oldest first), optionally for one account, from the
   * start of this case (`since_ms`, default when it began: in the caller's organization older events are the app's).
   */
  async events(filter: { account_id?: string; types?: string; since_ms?: number } = {}): Promise<EventEnvelope[]> {
    const out: EventEnvelope[] = [];
    let cursor: string | null = null;
    do {
      const q = new URLSearchParams({ limit: '100', since_ms: String(filter.since_ms ?? this.started_ms) });
      if (filter.account_id) q.set('account_id', filter.account_id);
      if (filter.types) q.set('types', filter.types);
      if (cursor) q.set('cursor', cursor);
      const page = this.must(await this.api.call('GET', `/events?${q.toString()}`), 'read events');
      out.push(...page.events);
      cursor = page.has_more ? page.next_cursor : null;
    } while (cursor);
    return out;
  }

  async balances(account_id: string): Promise<Record<string, { available_atoms: string; pending_atoms: string }>> {
    const b = this.must(await this.api.call('GET', `/accounts/${account_id}/balances?limit=100`), 'balances').balances;
    return Object.fromEntries(b.map((x) => [x.asset_key, { available_atoms: x.available_atoms, pending_atoms: x.pending_atoms }]));
  }

  async credits(account_id: string, status: 'open' | 'consumed' = 'open'): Promise<Credit[]> {
    return this.must(await this.api.call('GET', `/accounts/${account_id}/credits?status=${status}&limit=100`), 'credits').credits;
  }

  /** The credit with this id, open or consumed, or undefined. */
  async credit(account_id: string, credit_id: string): Promise<Credit | undefined> {
    for (const status of ['open', 'consumed'] as const) {
      const c = (await this.credits(account_id, status)).find((x) => x.credit_id === credit_id);
      if (c) return c;
    }
    return undefined;
  }

  // ---- expectations ----

  private record(label: string, ok: boolean, detail: string): void {
    this.expectations.push({ label, ok, ...(detail ? { detail } : {}), sim_ms: this.now_ms });
    this.entries.push({
      sim_ms: this.now_ms,
      entity_type: 'scenario',
      entity_id: this.name,
      kind: 'expectation',
      detail: detail ? `${label}: ${detail}` : label,
      ok,
    });
    this.step(`${ok ? '✓' : '✗'} ${label}${ok || !detail ? '' : ` — ${detail}`}`);
    if (!ok) throw new ExpectationFailed(label, detail);
  }

  /** Passes when `value` (or what the predicate returns) is truthy. */
  async expect(label: string, value: unknown | (() => unknown | Promise<unknown>), detail = ''): Promise<void> {
    const v = typeof value === 'function' ? await (value as () => unknown)() : value;
    this.record(label, Boolean(v), v ? '' : detail || `got ${short(v)}`);
  }

  /** Deep equality. */
  expectEqual(label: string, actual: unknown, expected: unknown): void {
    const ok = isDeepStrictEqual(actual, expected);
    this.record(label, ok, ok ? '' : `expected ${short(expected)}, got ${short(actual)}`);
  }

  /** GETs the entity and compares its status (and failure_code when given); returns the entity. */
  async expectStatus<K extends Pollable>(kind: K, id: string, status: string, failure_code?: string): Promise<Entities[K]> {
    const x = await this.get(kind, id);
    const got = failureOf(x);
    const ok = x.status === status && (failure_code === undefined || got === failure_code);
    this.record(
      `${kind} ${id} is ${status}${failure_code ? ` (${failure_code})` : ''}`,
      ok,
      ok ? '' : `got ${x.status}${got ? ` (${got})` : ''}`,
    );
    return x;
  }

  /** The reply is an error envelope with this code (and HTTP status, when given). */
  expectError(reply: Reply<unknown>, code: string, status?: number): void {
    const got = errorCode(reply.body);
    const ok = got === code && (status === undefined || reply.status === status);
    this.record(`error ${code}${status ? ` (${status})` : ''}`, ok, ok ? '' : `got ${reply.status} ${got ?? short(reply.body)}`);
  }

  /** The reply has this HTTP status. */
  expectHttp(label: string, reply: Reply<unknown>, status: number): void {
    const ok = reply.status === status;
    this.record(label, ok, ok ? '' : `expected HTTP ${status}, got ${reply.status} ${reply.network_error ?? short(reply.body)}`);
  }

  /**
   * The events about `entity_id` (an account, or any id in an event's data), read from the feed, contain
   * `types` in this order (other types may come between; `exact`: nothing else of those families).
   * `absent` types must not appear at all.
   */
  async expectEvents(
    account_id: string,
    entity_id: string,
    types: readonly EventType[],
    opts: { exact?: boolean; absent?: readonly EventType[] } = {},
  ): Promise<EventEnvelope[]> {
    const all = (await this.events({ account_id })).filter((e) => entity_id === account_id || Object.values(e.data).includes(entity_id));
    const families = new Set(types.map((t) => t.split('.')[0]));
    const seen: string[] = all.map((e) => e.type).filter((t) => !opts.exact || families.has(t.split('.')[0]));
    let i = 0;
    for (const t of seen) if (i < types.length && t === types[i]) i++;
    const inOrder = opts.exact ? isDeepStrictEqual(seen, types) : i === types.length;
    const present = (opts.absent ?? []).filter((t) => seen.includes(t) || all.some((e) => e.type === t));
    const ok = inOrder && present.length === 0;
    const label = `events of ${entity_id}: ${types.join(' → ')}${opts.absent?.length ? `; never ${opts.absent.join(', ')}` : ''}`;
    this.record(label, ok, ok ? '' : `got ${seen.join(' → ') || '(none)'}${present.length ? `; unexpected ${present.join(', ')}` : ''}`);
    return all;
  }

  /**
   * Available (and, when given, pending) atoms of one asset; a missing balance counts as '0'. For an
   * existing account (`--account`) the atoms are what the case added to the balance it found.
   */
  async expectBalance(account_id: string, asset_key: string, available_atoms: string, pending_atoms?: string): Promise<void> {
    const zero = { available_atoms: '0', pending_atoms: '0' };
    const b = (await this.balances(account_id))[asset_key] ?? zero;
    const base = this.baselines.get(account_id)?.[asset_key] ?? zero;
    const plus = (x: string, y: string): string => (BigInt(x) + BigInt(y)).toString();
    const want = {
      available_atoms: plus(available_atoms, base.available_atoms),
      pending_atoms: pending_atoms === undefined ? undefined : plus(pending_atoms, base.pending_atoms),
    };
    const ok = b.available_atoms === want.available_atoms && (want.pending_atoms === undefined || b.pending_atoms === want.pending_atoms);
    const from = this.baselines.has(account_id) ? ` more than before (${base.available_atoms})` : '';
    this.record(
      `balance of ${asset_key} is ${available_atoms}${from}${pending_atoms === undefined ? '' : ` (+${pending_atoms} pending)`}`,
      ok,
      ok ? '' : `got ${b.available_atoms} (+${b.pending_atoms} pending)`,
    );
  }

  async expectCredit(account_id: string, credit_id: string, status: 'open' | 'consumed'): Promise<Credit | undefined> {
    const c = await this.credit(account_id, credit_id);
    this.record(
      `credit ${credit_id} is ${status}`,
      c?.status === status,
      c?.status === status ? '' : `got ${c?.status ?? 'no such credit'}`,
    );
    return c;
  }

  /** GET /_sim/invariants over the whole state. */
  async expectInvariants(): Promise<void> {
    const r = this.must(await this.control.call('GET', '/invariants'), 'invariants');
    this.record('invariants hold', r.ok === true, r.ok ? '' : short(r.violations.slice(0, 3)));
  }
}

/** `failure_code` of an entity that has one (trades, zaps, cancels when failed). */
function failureOf(x: object): string | undefined {
  return 'failure_code' in x && typeof x.failure_code === 'string' ? x.failure_code : undefined;
}
