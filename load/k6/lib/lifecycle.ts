// One user journey of realistic traffic, as a well-behaved integrator runs it: account, destinations,
// a deposit (control plane only), firm RFQ polled to ready, accept, trade polled to its end, a zap, a
// cancel, event-feed pages by cursor. Writes carry an Idempotency-Key and are retried with the same
// key after a 5xx or a lost reply; 429s are retried after Retry-After (jittered backoff without it);
// polls wait poll_after_ms. Steps that need /_sim are skipped, and counted, when it is not there.
import { sleep } from 'k6';
import { Counter, Rate, Trend } from 'k6/metrics';
import { call, json, retryAfterMs, isRetryable, type Res } from './api.ts';
import { landDeposit, simWait, type ControlInfo } from './control.ts';
import { envNumber, type Env } from './config.ts';
import { creditFor, depositAddress, type Api, type Assets } from './fixtures.ts';

export interface LifeConfig {
  max_retries: number;
  max_polls: number;
  page_limit: number;
  max_pages: number;
  slippage_bps: string;
}

export function lifeConfig(env: Env): LifeConfig {
  return {
    max_retries: envNumber(env, 'MAX_RETRIES', 5),
    max_polls: envNumber(env, 'MAX_POLLS', 120),
    page_limit: envNumber(env, 'PAGE_LIMIT', 20),
    max_pages: envNumber(env, 'MAX_PAGES', 10),
    slippage_bps: String(envNumber(env, 'SLIPPAGE_BPS', 100)),
  };
}

export interface LifeMetrics {
  journey_ok: Rate;
  /** +1 when a journey starts, -1 when it ends: what is left counts the journeys the run's end cut off. */
  unfinished: Counter;
  /** Journeys that ended (ok or not); a run where none did cannot pass. */
  finished: Counter;
  step_failed: Counter;
  step_skipped: Counter;
  retries: Counter;
  retry_wait: Trend;
  duplicate_writes: Counter;
  reconciled: Counter;
  journey_duration: Trend;
}

/** Every step a journey can fail at, as `journey_step_failed{step}` tags it ('other': an error outside any step). */
const JOURNEY_STEPS = [
  'account',
  'account-unique',
  'destination',
  'destination-reconcile',
  'indicative-rfq',
  'indicative-poll',
  'deposit',
  'firm-rfq',
  'firm-rfq-poll',
  'accept',
  'trade-poll',
  'trade-settled',
  'history',
  'credits',
  'zap',
  'zap-read',
  'zap-poll',
  'cancel',
  'cancel-poll',
  'events',
  'other',
] as const;

/** Thresholds every journey script declares: each journey that starts ends, and at least one ends. */
export function journeyThresholds(env: Env): { [metric: string]: string[] } {
  const t: { [metric: string]: string[] } = {
    journey_ok: [`rate>=${envNumber(env, 'JOURNEY_OK_MIN', 0.95)}`],
    // k6 cuts off the journeys still running at the end of gracefulStop without a sample: counted here.
    journey_unfinished: [`count<=${envNumber(env, 'MAX_UNFINISHED', 0)}`],
    // journey_ok passes on no sample at all: a run where no journey ended fails here.
    journeys_finished: ['count>0'],
  };
  // Figures, not checks (k6 keeps a sub-metric only when a threshold names it): failures per step.
  for (const step of JOURNEY_STEPS) t[`journey_step_failed{step:${step}}`] = ['count>=0'];
  return t;
}

/** Gives the journey counters a sample in setup, so that their thresholds are evaluated on a run with no journey. */
export function journeyCountersZero(m: LifeMetrics): void {
  m.unfinished.add(0);
  m.finished.add(0);
  m.step_failed.add(0, { step: 'other' });
}

/** Declared in the init context (k6 requires it); every metric gets a sample in every journey. */
export function lifeMetrics(): LifeMetrics {
  return {
    journey_ok: new Rate('journey_ok'),
    unfinished: new Counter('journey_unfinished'),
    finished: new Counter('journeys_finished'),
    step_failed: new Counter('journey_step_failed'),
    step_skipped: new Counter('journey_step_skipped'),
    retries: new Counter('client_retries'),
    retry_wait: new Trend('client_retry_wait', true),
    duplicate_writes: new Counter('duplicate_writes'),
    reconciled: new Counter('client_reconciled'),
    journey_duration: new Trend('journey_duration', true),
  };
}

export interface Journey {
  api: Api;
  ctl: ControlInfo | null;
  assets: Assets;
  cfg: LifeConfig;
  m: LifeMetrics;
  /** Unique per journey: Idempotency-Keys and external_id derive from it. */
  id: string;
}

class StepFailed extends Error {}

/** Jittered exponential backoff: 250 ms · 2^attempt, ×0.5..1.5, at most 8 s. */
function backoffMs(attempt: number): number {
  return Math.min(8000, 250 * 2 ** attempt) * (0.5 + Math.random());
}

/** Sends until a reply that is not a 429, a 5xx or a lost reply, with the same Idempotency-Key each time. */
export function resilient(
  j: Journey,
  method: string,
  path: string,
  o: { body?: unknown; idem?: string; name: string; expected?: number[] },
): Res {
  let res = call(j.api.base_url, method, path, { key: j.api.key, ...o });
  for (let attempt = 0; attempt < j.cfg.max_retries && (res.status === 429 || isRetryable(res)); attempt++) {
    const cause = res.status === 429 ? '429' : res.status === 0 ? 'lost' : '5xx';
    // Retry-After is wall time (the limiter's), so it is slept even when the sim clock is virtual.
    const wait_ms = res.status === 429 ? (retryAfterMs(res) ?? backoffMs(attempt)) : backoffMs(attempt);
    j.m.retries.add(1, { cause, name: o.name });
    j.m.retry_wait.add(wait_ms, { cause });
    sleep(wait_ms / 1000);
    res = call(j.api.base_url, method, path, { key: j.api.key, ...o });
  }
  return res;
}

function expect(j: Journey, step: string, res: Res, ok: (r: Res) => boolean = (r) => r.status >= 200 && r.status < 300): any {
  const passed = ok(res);
  j.m.step_failed.add(passed ? 0 : 1, { step });
  if (!passed) throw new StepFailed(`${step}: ${res.status} ${String(res.body).slice(0, 200)}`);
  return json(res);
}

function skip(j: Journey, step: string): void {
  j.m.step_skipped.add(1, { step });
}

/**
 * Polls `path` until `done(x)`, starting from `first` (the create reply's object): before every GET it
 * waits the poll_after_ms the previous reply gave (sim time; 1 s when a reply gives none).
 */
function pollUntil(j: Journey, step: string, path: string, name: string, field: string, first: any, done: (x: any) => boolean): any {
  let x = first;
  const seen: string[] = [];
  const note = (e: any) => {
    const st = String(e?.status);
    if (seen[seen.length - 1] !== st) seen.push(st);
  };
  note(x);
  for (let i = 0; i < j.cfg.max_polls; i++) {
    if (done(x)) return { ...x, status_path: seen };
    simWait(j.ctl, typeof x.poll_after_ms === 'number' ? x.poll_after_ms : 1000);
    x = expect(j, step, resilient(j, 'GET', path, { name }))[field];
    note(x);
  }
  if (done(x)) return { ...x, status_path: seen };
  j.m.step_failed.add(1, { step });
  throw new StepFailed(`${step}: ${field} ${entityId(x, field)} not done after ${j.cfg.max_polls} polls (${seen.join(' → ')})`);
}

const entityId = (x: any, field: string): string => String(x?.[`${field}_id`] ?? '?');

/** `trade trd_1 ended failed (executing → filled → failed, failure_code settlement_failed)`: what the entity did. */
function statusStory(field: string, x: any): string {
  const code = x?.failure_code ? `, failure_code ${x.failure_code}` : '';
  const path: string[] = Array.isArray(x?.status_path) ? x.status_path : [String(x?.status)];
  return `${field} ${entityId(x, field)} ended ${String(x?.status)} (${path.join(' → ')}${code})`;
}

/** A step whose entity reached a terminal status other than the one wanted: the message tells its path. */
function expectStatus(j: Journey, step: string, field: string, x: any, want: string): void {
  const passed = x.status === want;
  j.m.step_failed.add(passed ? 0 : 1, { step });
  if (!passed) throw new StepFailed(`${step}: ${statusStory(field, x)}, not ${want}`);
}

/** The create reply (200 or 202) of a POST that may answer pending first. */
const created = (r: Res) => r.status === 200 || r.status === 202;

function createAccountOnce(j: Journey): string {
  const external_id = `${j.id}-ext`;
  const body = expect(
    j,
    'account',
    resilient(j, 'POST', '/accounts', { idem: `${j.id}-acct`, body: { label: 'k6 journey', external_id }, name: '/accounts' }),
  );
  // However many times the write went out, exactly one account may exist for it.
  const list = expect(
    j,
    'account-unique',
    resilient(j, 'GET', `/accounts?external_id=${encodeURIComponent(external_id)}&limit=100`, { name: '/accounts' }),
  );
  const n = Array.isArray(list.accounts) ? list.accounts.length : 0;
  j.m.duplicate_writes.add(Math.max(0, n - 1), { resource: 'account' });
  return body.account.account_id;
}

/**
 * Registers a destination. The route takes no Idempotency-Key (the spec marks it not IDEM), so after a
 * 5xx or a lost reply the client first looks whether the write took effect, and re-sends only if not.
 */
function destination(j: Journey, account_id: string, asset_key: string): string {
  let address = '0x';
  for (let i = 0; i < 40; i++) address += Math.floor(Math.random() * 16).toString(16);
  const path = `/accounts/${account_id}/destinations`;
  for (let attempt = 0; attempt <= j.cfg.max_retries; attempt++) {
    const res = call(j.api.base_url, 'POST', path, { key: j.api.key, body: { asset_key, address }, name: '/accounts/{id}/destinations' });
    if (res.status >= 200 && res.status < 300) return json(res).destination.destination_id;
    if (res.status !== 429 && !isRetryable(res)) break;
    const cause = res.status === 429 ? '429' : res.status === 0 ? 'lost' : '5xx';
    if (res.status !== 429) {
      const list = expect(
        j,
        'destination-reconcile',
        resilient(j, 'GET', `${path}?asset_key=${encodeURIComponent(asset_key)}&limit=100`, { name: '/accounts/{id}/destinations' }),
      );
      const mine = (list.destinations as any[]).filter((d) => d.address === address);
      j.m.duplicate_writes.add(Math.max(0, mine.length - 1), { resource: 'destination' });
      if (mine.length > 0) {
        j.m.reconciled.add(1, { cause, name: '/accounts/{id}/destinations' });
        return mine[0].destination_id;
      }
    }
    const wait_ms = res.status === 429 ? (retryAfterMs(res) ?? backoffMs(attempt)) : backoffMs(attempt);
    j.m.retries.add(1, { cause, name: '/accounts/{id}/destinations' });
    j.m.retry_wait.add(wait_ms, { cause });
    sleep(wait_ms / 1000);
  }
  j.m.step_failed.add(1, { step: 'destination' });
  throw new StepFailed(`destination: no success after ${j.cfg.max_retries} retries`);
}

function openCredit(j: Journey, account_id: string, asset_key: string, not: string[]): string | null {
  const body = expect(
    j,
    'credits',
    resilient(j, 'GET', `/accounts/${account_id}/credits?asset_key=${encodeURIComponent(asset_key)}&limit=100`, {
      name: '/accounts/{id}/credits',
    }),
  );
  const c = (body.credits as any[]).find((x) => not.indexOf(x.credit_id) < 0);
  return c ? c.credit_id : null;
}

function firmTrade(j: Journey, account_id: string, credit_id: string, destination_id: string): string {
  const a = j.assets;
  const rfqBody = {
    account_id,
    credit_id,
    destination_id,
    from_asset_key: a.from_asset_key,
    to_asset_key: a.to_asset_key,
    side: 'exact_in',
    amount_in_atoms: a.amount_in_atoms,
    mode: 'firm',
    ttl_ms: 10000,
  };
  let rfq = expect(j, 'firm-rfq', resilient(j, 'POST', '/rfqs', { idem: `${j.id}-rfq`, body: rfqBody, name: '/rfqs firm' }), created).rfq;
  rfq = pollUntil(j, 'firm-rfq-poll', `/rfqs/${rfq.rfq_id}`, '/rfqs/{id}', 'rfq', rfq, (x) => x.status === 'ready');
  const accept = resilient(j, 'POST', `/quotes/${rfq.best_quote_id}/accept`, {
    idem: `${j.id}-accept`,
    body: { slippage_bps: j.cfg.slippage_bps, client_order_id: `${j.id}-order` },
    name: '/quotes/{id}/accept',
  });
  const trade = expect(j, 'accept', accept).trade;
  const done = pollUntil(
    j,
    'trade-poll',
    `/trades/${trade.trade_id}`,
    '/trades/{id}',
    'trade',
    trade,
    (x) => x.status === 'settled' || x.status === 'failed',
  );
  // Judged on what the trade did (its polled statuses), not on the accept reply.
  expectStatus(j, 'trade-settled', 'trade', done, 'settled');
  // However often the accept went out, the account holds one trade.
  const history = expect(
    j,
    'history',
    resilient(j, 'GET', `/accounts/${account_id}/history?types=trade&limit=100`, { name: '/accounts/{id}/history' }),
  );
  j.m.duplicate_writes.add(Math.max(0, (history.records as unknown[]).length - 1), { resource: 'trade' });
  return trade.trade_id;
}

function zap(j: Journey, account_id: string, credit_id: string | null, destination_id: string): void {
  const a = j.assets;
  const body: { [k: string]: unknown } = {
    account_id,
    from_asset_key: a.from_asset_key,
    to_asset_key: a.to_asset_key,
    amount_in_atoms: a.amount_in_atoms,
    min_amount_out_atoms: '0',
    destination_id,
    client_zap_id: `${j.id}-zap`,
  };
  if (credit_id !== null) body.credit_id = credit_id;
  // A deposit-funded zap needs the chain's wallet (404 not_available until account.wallet_created);
  // that 4xx is final for its Idempotency-Key, so each wait ends in a new key.
  let res = resilient(j, 'POST', '/zaps', { idem: `${j.id}-zap-0`, body, name: '/zaps', expected: [404] });
  for (let attempt = 1; attempt < j.cfg.max_polls && res.status === 404 && json(res)?.error?.code === 'not_available'; attempt++) {
    simWait(j.ctl, 1000);
    res = resilient(j, 'POST', '/zaps', { idem: `${j.id}-zap-${attempt}`, body, name: '/zaps', expected: [404] });
  }
  const z = expect(j, 'zap', res).zap;
  if (credit_id === null) {
    // Deposit-funded: without a control plane nothing lands, so one read of its state is all there is.
    expect(j, 'zap-read', resilient(j, 'GET', `/zaps/${z.zap_id}`, { name: '/zaps/{id}' }));
    return;
  }
  pollUntil(j, 'zap-poll', `/zaps/${z.zap_id}`, '/zaps/{id}', 'zap', z, (x) => x.status === 'settled' || x.status === 'failed');
}

function cancel(j: Journey, account_id: string, credit_id: string, destination_id: string): void {
  const c = expect(
    j,
    'cancel',
    resilient(j, 'POST', '/cancels', {
      idem: `${j.id}-cancel`,
      body: { account_id, credit_id, destination_id, client_cancel_id: `${j.id}-cancel` },
      name: '/cancels',
    }),
  ).cancel;
  pollUntil(
    j,
    'cancel-poll',
    `/cancels/${c.cancel_id}`,
    '/cancels/{id}',
    'cancel',
    c,
    (x) => x.status === 'confirmed' || x.status === 'failed',
  );
}

/** Reads the account's events page by page from the cursor the previous page gave. */
function readEvents(j: Journey, account_id: string): void {
  let cursor: string | null = null;
  for (let page = 0; page < j.cfg.max_pages; page++) {
    const q: string = `/events?account_id=${account_id}&limit=${j.cfg.page_limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const body = expect(j, 'events', resilient(j, 'GET', q, { name: '/events' }));
    if (!body.has_more || !body.next_cursor) return;
    cursor = body.next_cursor;
  }
}

/** Funds a new account through a real deposit (control plane only); null when there is none. */
function fund(j: Journey, account_id: string): string | null {
  if (j.ctl === null) {
    skip(j, 'deposit');
    return null;
  }
  try {
    const da = depositAddress(j.api, j.ctl, account_id, j.assets.from_asset_key, `${j.id}-da`);
    const tx = landDeposit(j.ctl, da.deposit_address_id, j.assets.deposit_atoms);
    const credit = creditFor(j.api, j.ctl, account_id, j.assets.from_asset_key, tx);
    j.m.step_failed.add(0, { step: 'deposit' });
    return credit;
  } catch (e) {
    j.m.step_failed.add(1, { step: 'deposit' });
    throw new StepFailed(`deposit: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function indicative(j: Journey): void {
  const a = j.assets;
  const body = {
    from_asset_key: a.from_asset_key,
    to_asset_key: a.to_asset_key,
    side: 'exact_in',
    amount_in_atoms: a.amount_in_atoms,
    mode: 'indicative',
    ttl_ms: 10000,
  };
  const rfq = expect(
    j,
    'indicative-rfq',
    resilient(j, 'POST', '/rfqs', { idem: `${j.id}-irfq`, body, name: '/rfqs indicative' }),
    created,
  ).rfq;
  pollUntil(j, 'indicative-poll', `/rfqs/${rfq.rfq_id}`, '/rfqs/{id}', 'rfq', rfq, (x) => x.status === 'ready');
}

export function runJourney(j: Journey): void {
  const started = Date.now();
  // Taken back when the journey ends, whatever way: one the end of the run cuts off stays counted.
  j.m.unfinished.add(1);
  let ok = true;
  try {
    const account_id = createAccountOnce(j);
    const dest_out = destination(j, account_id, j.assets.to_asset_key);
    indicative(j);
    const credit = fund(j, account_id);
    if (credit === null) {
      for (const s of ['firm-rfq', 'accept', 'cancel']) skip(j, s);
      zap(j, account_id, null, dest_out);
    } else {
      firmTrade(j, account_id, credit, dest_out);
      // The trade's change stays on from_asset: zap part of it, then cancel what the trade bought.
      const change = openCredit(j, account_id, j.assets.from_asset_key, []);
      if (change !== null) zap(j, account_id, change, dest_out);
      else skip(j, 'zap');
      const bought = openCredit(j, account_id, j.assets.to_asset_key, []);
      if (bought !== null) cancel(j, account_id, bought, dest_out);
      else skip(j, 'cancel');
    }
    readEvents(j, account_id);
  } catch (e) {
    // A failed step (or a fixture that gave up waiting) ends this journey, not the run: it is counted.
    ok = false;
    if (!(e instanceof StepFailed)) j.m.step_failed.add(1, { step: 'other' });
    console.warn(`journey ${j.id}: ${e instanceof Error ? e.message : String(e)}`);
  }
  j.m.journey_ok.add(ok);
  j.m.unfinished.add(-1);
  j.m.finished.add(1);
  j.m.journey_duration.add(Date.now() - started);
}
