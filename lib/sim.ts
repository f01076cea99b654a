// The in-process sim integrators (and `swapsim verify`) drive: a real swapsim server on an ephemeral port
// with a virtual clock, one organization whose keys the caller may name, and a typed client for /v1 and
// the control plane (/_sim), typed from the route declarations (lib/api-types.ts). Nothing here reaches into
// the world: every call is HTTP, as from any language.
import { randomUUID } from 'node:crypto';
import { serve, type RunningServer } from '../fake-provider/server.ts';
import { copyJournalPrefix, readJournal, reopenJournal } from '../fake-provider/persistence/reopen.ts';
import { createJournal } from '../sim/journal.ts';
import { request } from './http-client.ts';
import type { Profile } from '../fake-provider/profile.ts';
import type { FaultRuleInput } from '../fake-provider/control/faults.ts';
import type { ControlBody, HttpMethod, V1Body } from './api-types.ts';
import type { SimDeposit } from './types.ts';

export type { FaultRuleInput };

export interface CreateSimOptions {
  /** Seed of every provider-side draw (ids, spreads, latencies, fault probabilities). Default 1. */
  seed?: string | number;
  /** Behaviour profile (default: the documented default profile). */
  profile?: Profile;
  /** API keys of the sim's organization; the first is `sim.api_key`. Default one generated key. */
  api_keys?: string[];
  /** Requests per second per key. Default: raised far above the spec's limits, so tests never trip them by accident. */
  rate_limits?: { reads?: number; writes?: number; indicative_rfqs?: number; firm_rfqs?: number };
  /** The organization's settings, as `POST /_sim/organizations` takes them (default: recovery on, partner screening off). */
  organization?: { recovery_enabled?: boolean; partner_screening?: boolean };
  /**
   * Reopen a run journaled by `swapsim serve --journal FILE` (a CI failure) instead of starting afresh: the
   * journal's header decides seed, clock, profile and keys (the options above are ignored), and the sim serves
   * the world as it stood at `until_line` (default: the journal's last line). See docs/persistence.md.
   */
  from?: string;
  until_line?: number;
  /**
   * Journal the sim to this file (as `swapsim serve --journal`): it can then be replayed or reopened with `from`,
   * as one run, snapshots and restores included. Holds the keys and secrets of the run.
   */
  journal_path?: string;
}

/** A snapshot of the whole sim: a copy of its world (docs/persistence.md#snapshots). */
interface SimSnapshot {
  snapshot_id: string;
  request_id: string;
  created_at_ms: number;
}

/** The reopened server, or a fresh one with the caller's organization. */
async function startServer(options: CreateSimOptions, api_keys: string[]): Promise<RunningServer> {
  if (options.from === undefined) {
    return serve({
      clock: 'virtual',
      seed: options.seed ?? 1,
      profile: options.profile,
      port: 0,
      seed_orgs: [{ ...options.organization, api_keys, rate_limits: { ...UNTHROTTLED, ...options.rate_limits } }],
      journal_path: options.journal_path ?? null,
    });
  }
  let sink = null;
  if (options.journal_path !== undefined) {
    // The reopened run goes on in a journal of its own: a copy up to the line, then what the sim does.
    copyJournalPrefix(options.from, options.until_line, options.journal_path);
    sink = createJournal(options.journal_path);
  }
  return reopenJournal(readJournal(options.from), { until_line: options.until_line, sink });
}

/**
 * An HTTP answer. `body` is typed as the route's success body (its response schema); on an error status it
 * is the error envelope (`ErrorEnvelope`), so check `status` first.
 */
export interface Reply<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

export type FaultTarget = 'trade' | 'zap' | 'cancel' | 'deposit' | 'recovery' | 'webhook' | 'http';

/** A stored fault rule: what was posted, with `fault_id` and its defaults (`times: null` is unlimited). */
export type FaultRule = FaultRuleInput & { fault_id: string; probability: number; times: number | null; created_at_ms: number };

export interface SimEmail {
  account_id: string;
  email: string;
  purpose: string;
  otp_code: string;
  sent_at_ms: number;
}

export interface ConductReport {
  /** Masked to its last four characters. */
  api_key: string;
  /** The key's most recent requests (up to 1,000), as the recorder saw them. */
  requests: Array<Record<string, unknown>>;
  findings: Array<{ kind: string; api_key_suffix: string; request_ids: string[]; message: string }>;
}

/** What the provider holds for one account, in the probe contract's shape (`GET /probe/state`). */
export interface AccountTruth {
  balances: Array<{ asset_key: string; available_atoms: string }>;
  trades: Array<{ trade_id: string; status: string }>;
  zaps: Array<{ zap_id: string; status: string }>;
  cancels: Array<{ cancel_id: string; status: string }>;
  /** Optional members (an app that tracks them reports them; `swapsim verify` compares what is present). */
  /** `status`: pending, verified, flagged, or dropped (before finality: no event ends it, so no app is compared on it). */
  deposits?: Array<{ deposit_address_id: string; tx_hash?: string; status: string; credited: boolean }>;
  destinations?: Array<{ destination_id: string; suspended: boolean }>;
  /** A recovery's status as its events tell it (`created`, `claimed`, `failed`; activation sends no event). */
  recoveries?: Array<{ recovery_id: string; status: string }>;
}

export interface Sim {
  /** `http://127.0.0.1:<port>/v1` */
  readonly base_url: string;
  /** `http://127.0.0.1:<port>/_sim` */
  readonly control_url: string;
  /** The organization's first API key. */
  readonly api_key: string;
  readonly api_keys: readonly string[];
  /**
   * A /v1 call with `api_key` (or `key`); POST, PUT and PATCH get a fresh Idempotency-Key unless one is given.
   * The reply body is typed by method and path (`sim.api('GET', `/trades/${id}`)` gives `{ trade: Trade }`);
   * a path no route declares gives `unknown`, and `sim.api<T>(…)` names the type yourself.
   */
  api<M extends HttpMethod, P extends string>(
    method: M,
    path: P,
    opts?: { body?: unknown; key?: string; idempotency_key?: string },
  ): Promise<Reply<V1Body<M, P>>>;
  api<T>(method: string, path: string, opts?: { body?: unknown; key?: string; idempotency_key?: string }): Promise<Reply<T>>;
  /** A control-plane call (`/_sim` + path), typed like `api` where the route declares its response. */
  control<M extends HttpMethod, P extends string>(method: M, path: P, body?: unknown): Promise<Reply<ControlBody<M, P>>>;
  control<T>(method: string, path: string, body?: unknown): Promise<Reply<T>>;
  /** Sim time in ms since epoch. */
  now_ms(): Promise<number>;
  /** Runs everything due within `ms` of sim time (webhook attempts included, each awaited); returns the new sim time. */
  advance(ms: number): Promise<number>;
  /** Advances until no scheduled work remains (or `max_ms`, default 80 h); returns the new sim time. */
  settle(max_ms?: number): Promise<number>;
  /** An on-chain transfer lands on a deposit address (`POST /_sim/deposits`). */
  deposit(input: { deposit_address_id: string; atoms: string; asset_key?: string; source_address?: string }): Promise<SimDeposit>;
  faults: {
    add(rule: FaultRuleInput): Promise<FaultRule>;
    list(): Promise<FaultRule[]>;
    remove(fault_id: string): Promise<void>;
    /** Removes every rule. */
    clear(): Promise<void>;
  };
  /** The OTP inbox (recovery and export OTPs). */
  emails(account_id?: string): Promise<SimEmail[]>;
  /** The fake's own invariant check over the whole state. */
  invariants(): Promise<{ ok: boolean; checked: string[]; violations: Array<{ invariant: string; entity_id?: string; message: string }> }>;
  /** Client-conduct findings for one API key (default `api_key`). */
  conduct(api_key?: string): Promise<ConductReport>;
  /** Registers the organization's active webhook; the secret is shown once, here. */
  webhook(url: string): Promise<{ webhook_id: string; secret: string }>;
  /**
   * Takes a snapshot of the whole sim (a copy of its world; no journal needed): build an expensive
   * world once, then `restore` it before each test.
   */
  snapshot(): Promise<SimSnapshot>;
  /** Puts the world as it was at the snapshot back; later snapshots go with the world that held them. */
  restore(snapshot: SimSnapshot | string): Promise<void>;
  /** The provider's truth for one account: balances, every trade, zap and cancel with its status, its deposits, destinations and recoveries. */
  truth(account_id: string): Promise<AccountTruth>;
  close(): Promise<void>;
}

const UNTHROTTLED = { reads: 100_000, writes: 100_000, indicative_rfqs: 100_000, firm_rfqs: 100_000 };

/** One HTTP call through the scenario DSL's client; a connection failure throws here (the DSL reports status 0). */
async function call(url: string, method: string, headers: Record<string, string>, body: unknown): Promise<Reply> {
  const r = await request(url, method, body, headers);
  if (r.status === 0) throw new Error(`swapsim ${method} ${url}: ${r.network_error}`);
  return { status: r.status, body: r.body, headers: r.headers };
}

function must<T>(r: Reply, what: string): T {
  if (r.status < 200 || r.status > 299) throw new Error(`swapsim ${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as T;
}

/** Every item of a /v1 list, following `next_cursor`. */
export async function listAll<T>(sim: Pick<Sim, 'api'>, path: string, field: string, key?: string): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page: Reply = await sim.api('GET', `${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
    const body = must<Record<string, unknown>>(page, `GET ${path}`);
    out.push(...(body[field] as T[]));
    cursor = body.next_cursor as string | null;
  } while (cursor);
  return out;
}

/** Ids of every trade or cancel the account ever had, from its activity stream (the first event of each). */
async function idsFromActivity(sim: Sim, account_id: string, type: string, field: string): Promise<string[]> {
  const events = await listAll<{ data: Record<string, string> }>(sim, `/accounts/${account_id}/activity?types=${type}`, 'events');
  return [...new Set(events.map((e) => e.data[field]))];
}

async function truthOf(sim: Sim, account_id: string): Promise<AccountTruth> {
  const balances = await listAll<{ asset_key: string; available_atoms: string }>(sim, `/accounts/${account_id}/balances`, 'balances');
  const trade_ids = await idsFromActivity(sim, account_id, 'trade.executing', 'trade_id');
  const cancel_ids = await idsFromActivity(sim, account_id, 'cancel.created', 'cancel_id');
  const trades = [];
  for (const id of trade_ids)
    trades.push({ trade_id: id, status: must<{ trade: { status: string } }>(await sim.api('GET', `/trades/${id}`), 'trade').trade.status });
  const cancels = [];
  for (const id of cancel_ids)
    cancels.push({
      cancel_id: id,
      status: must<{ cancel: { status: string } }>(await sim.api('GET', `/cancels/${id}`), 'cancel').cancel.status,
    });
  const zaps = (await listAll<{ zap_id: string; status: string }>(sim, `/zaps?account_id=${account_id}`, 'zaps')).map((z) => ({
    zap_id: z.zap_id,
    status: z.status,
  }));
  const landed = must<{ deposits: Array<{ deposit_address_id: string; tx_hash: string; status: string }> }>(
    await sim.control('GET', `/deposits?account_id=${encodeURIComponent(account_id)}`),
    'deposits',
  ).deposits;
  const deposits = landed.map((d) => ({
    deposit_address_id: d.deposit_address_id,
    tx_hash: d.tx_hash,
    status: d.status,
    credited: d.status === 'verified',
  }));
  const destinations = (
    await listAll<{ destination_id: string; suspended_at_ms: number | null }>(sim, `/accounts/${account_id}/destinations`, 'destinations')
  ).map((d) => ({ destination_id: d.destination_id, suspended: d.suspended_at_ms !== null }));
  const recovery_status = new Map<string, string>();
  // Oldest first whatever order the profile lists activity in (`activity_order`): the latest event names the status.
  const recovery_events = await listAll<{ type: string; created_at_ms: number; data: Record<string, string> }>(
    sim,
    `/accounts/${account_id}/activity?types=recovery.*`,
    'events',
  );
  for (const e of [...recovery_events].sort((a, b) => a.created_at_ms - b.created_at_ms))
    recovery_status.set(e.data.recovery_id, e.type.split('.')[1]);
  const recoveries = [...recovery_status].map(([recovery_id, status]) => ({ recovery_id, status }));
  return {
    balances: balances.map((b) => ({ asset_key: b.asset_key, available_atoms: b.available_atoms })),
    trades,
    zaps,
    cancels,
    deposits,
    destinations,
    recoveries,
  };
}

export async function createSim(options: CreateSimOptions = {}): Promise<Sim> {
  const given = options.api_keys && options.api_keys.length > 0 ? options.api_keys : [`sk_sim_${randomUUID().replace(/-/g, '')}`];
  const running = await startServer(options, given);
  // A reopened world's keys are its first organization's (those of its header's `seed_orgs`).
  const api_keys = options.from === undefined ? given : ([...running.runtime.world.orgs.values()][0]?.api_keys ?? given);
  const control = (method: string, path: string, body?: unknown): Promise<Reply<never>> =>
    call(running.control_url + path, method.toUpperCase(), {}, body) as Promise<Reply<never>>;
  const sim: Sim = {
    base_url: running.base_url,
    control_url: running.control_url,
    api_key: api_keys[0],
    api_keys,
    // One implementation for both overloads: the body is whatever the server sent (typed by the overload).
    api(method: string, path: string, opts: { body?: unknown; key?: string; idempotency_key?: string } = {}): Promise<Reply<never>> {
      const upper = method.toUpperCase();
      const headers: Record<string, string> = { authorization: `Bearer ${opts.key ?? api_keys[0]}` };
      if (opts.idempotency_key !== undefined) headers['idempotency-key'] = opts.idempotency_key;
      else if (upper === 'POST' || upper === 'PUT' || upper === 'PATCH') headers['idempotency-key'] = randomUUID();
      return call(running.base_url + path, upper, headers, opts.body) as Promise<Reply<never>>;
    },
    control,
    async now_ms() {
      return must<{ clock: { now_ms: number } }>(await control('GET', '/clock'), 'clock').clock.now_ms;
    },
    async advance(ms) {
      return must<{ clock: { now_ms: number } }>(await control('POST', '/clock/advance', { ms }), 'advance').clock.now_ms;
    },
    async settle(max_ms) {
      return must<{ clock: { now_ms: number } }>(await control('POST', '/clock/settle', max_ms === undefined ? {} : { max_ms }), 'settle')
        .clock.now_ms;
    },
    async deposit(input) {
      return must<{ deposit: SimDeposit }>(await control('POST', '/deposits', input), 'deposit').deposit;
    },
    faults: {
      async add(rule) {
        return must<{ fault: FaultRule }>(await control('POST', '/faults', rule), 'add fault').fault;
      },
      async list() {
        return must<{ faults: FaultRule[] }>(await control('GET', '/faults'), 'list faults').faults;
      },
      async remove(fault_id) {
        const r = await control('DELETE', `/faults/${fault_id}`);
        if (r.status !== 404) must(r, 'remove fault');
      },
      async clear() {
        for (const rule of await sim.faults.list()) await sim.faults.remove(rule.fault_id);
      },
    },
    async emails(account_id) {
      return must<{ emails: SimEmail[] }>(await control('GET', `/emails${account_id ? `?account_id=${account_id}` : ''}`), 'emails').emails;
    },
    async invariants() {
      return must(await control('GET', '/invariants'), 'invariants');
    },
    async conduct(api_key) {
      return must<{ conduct: ConductReport }>(
        await control('GET', `/conduct?api_key=${encodeURIComponent(api_key ?? api_keys[0])}`),
        'conduct',
      ).conduct;
    },
    async webhook(url) {
      const hook = must<{ webhook: { webhook_id: string; secret: string } }>(
        await sim.api('POST', '/webhooks', { body: { url, active: true } }),
        'webhook',
      ).webhook;
      return { webhook_id: hook.webhook_id, secret: hook.secret };
    },
    async snapshot() {
      return must<{ snapshot: SimSnapshot }>(await control('POST', '/snapshots'), 'snapshot').snapshot;
    },
    async restore(snapshot) {
      const id = typeof snapshot === 'string' ? snapshot : snapshot.snapshot_id;
      must(await control('POST', `/snapshots/${encodeURIComponent(id)}/restore`), 'restore');
    },
    truth: (account_id) => truthOf(sim, account_id),
    close: () => running.close(),
  };
  return sim;
}
