// `npm run bench:soak -- --duration 10m`: a benchmark, not a test. A realtime swapsim in a child process, several
// organization slots each with a webhook receiver in a process of its own (one hangs, one answers 500, the rest
// 200), a mixed load for the given duration (autocannon: reads, idempotent writes with fresh keys, account
// creations that each publish an event, indicative RFQs; plus on-chain deposits through the control plane),
// tenants churning (each slot's organization is replaced and deleted every --org-lifetime), sampling the
// server's RSS, event-loop delay and clock lag every second; prints the figures.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { startReceiver as startReceiverProcess, type ReceiverAnswer } from './receiver.ts';
import { startSampledServer } from './sampled-server.ts';
import { HEAP_GROWTH_PERCENT_DEFAULT } from '../../cli/heap.ts';

interface Options {
  duration_s: number;
  orgs: number;
  connections: number;
  /** On-chain deposits landed per second over all orgs (each one publishes pending, verified, credit events). */
  deposits_per_s: number;
  /** A directory: the server runs with `--cpu-prof` and writes its profile there when stopped. */
  cpu_prof_dir: string | null;
  /** How long an organization lives before a new one takes its slot and it is deleted; 0: no churn. */
  org_lifetime_s: number;
  /** Profile settings for the server (JSON), e.g. retention limits. */
  profile_json: string | null;
  /** The server collects fully every 20 s (`--expose-gc`) and the report gives the live heap per entity held. */
  live_heap: boolean;
  /** Extra flags for the server's `node` (`--node-arg --trace-gc`, repeatable); its tracing goes to stderr. */
  node_args: string[];
  /** A file: every per-second server sample, one JSON line each (for plotting RSS against its parts). */
  samples_file: string | null;
  /** A file: the server's sampling profile of what survives young-generation collections (soak-server.ts). */
  promoted_prof: string | null;
  /** The server's `--heap-growth-percent` (cli/heap.ts); null: `swapsim serve`'s default. 0: V8's own factor. */
  heap_growth_percent: number | null;
}

function parseDuration(text: string): number {
  const m = /^([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)?$/.exec(text);
  if (!m) throw new Error(`--duration: ${text} is not a duration (60s, 10m, 1h)`);
  const unit = { ms: 0.001, s: 1, m: 60, h: 3600 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Number(m[1]) * unit;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    duration_s: 60,
    orgs: 4,
    connections: 32,
    deposits_per_s: 20,
    cpu_prof_dir: null,
    org_lifetime_s: 60,
    profile_json: null,
    live_heap: false,
    node_args: [],
    samples_file: null,
    promoted_prof: null,
    heap_growth_percent: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    if (argv[i] === '--duration') {
      o.duration_s = parseDuration(v);
      i++;
    } else if (argv[i] === '--orgs') {
      o.orgs = Math.max(3, Number(v));
      i++;
    } else if (argv[i] === '--connections') {
      o.connections = Number(v);
      i++;
    } else if (argv[i] === '--deposits-per-s') {
      o.deposits_per_s = Number(v);
      i++;
    } else if (argv[i] === '--cpu-prof') {
      o.cpu_prof_dir = v;
      i++;
    } else if (argv[i] === '--org-lifetime') {
      o.org_lifetime_s = parseDuration(v);
      i++;
    } else if (argv[i] === '--profile') {
      o.profile_json = v;
      i++;
    } else if (argv[i] === '--node-arg') {
      o.node_args.push(v);
      i++;
    } else if (argv[i] === '--heap-growth-percent') {
      o.heap_growth_percent = Number(v);
      i++;
    } else if (argv[i] === '--promoted-prof') {
      o.promoted_prof = resolve(v);
      i++;
    } else if (argv[i] === '--samples') {
      o.samples_file = v;
      i++;
    } else if (argv[i] === '--live-heap') o.live_heap = true;
    else
      throw new Error(
        `unknown option ${argv[i]} (--duration 10m, --orgs 4, --connections 32, --deposits-per-s 20, --org-lifetime 60s (0: none), --profile JSON, --cpu-prof DIR, --live-heap, --node-arg FLAG, --samples FILE, --promoted-prof FILE, --heap-growth-percent N)`,
      );
  }
  return o;
}

interface Receiver {
  url: string;
  answer: ReceiverAnswer;
  received(): Promise<number>;
  close(): Promise<void>;
}

/** A receiver in its own process, so the load generator's CPU never slows its answers (and the server's is measured alone). */
async function startReceiver(answer: ReceiverAnswer): Promise<Receiver> {
  const r = await startReceiverProcess('process', answer);
  return { ...r, answer };
}

interface Sample {
  t_s: number;
  rss_mb: number;
  heap_mb: number;
  /** After a full collection (`--live-heap`); null in the other samples. */
  live_heap_mb: number | null;
  heap_total_mb: number;
  external_mb: number;
  array_buffers_mb: number;
  /** Committed MB per V8 space: old, new, large_object, code, … */
  spaces_mb: Record<string, number>;
  eld_p99_ms: number;
  eld_max_ms: number;
  lag_ms: number;
  webhook_in_flight: number;
  webhook_queued: number;
  idempotency_records: number;
  events: number;
  transitions: number;
  held: Record<string, number>;
}

function startServer(samples: Sample[], o: Options): Promise<{ url: string; stop(): Promise<void> }> {
  const prof = o.cpu_prof_dir === null ? [] : ['--cpu-prof', '--cpu-prof-dir', resolve(o.cpu_prof_dir)];
  const node_args = [...prof, ...(o.live_heap ? ['--expose-gc'] : []), ...o.node_args];
  const args = [
    ...(o.profile_json === null ? [] : ['--profile', o.profile_json]),
    ...(o.promoted_prof ? ['--promoted-prof', o.promoted_prof] : []),
    ...(o.heap_growth_percent === null ? [] : ['--heap-growth-percent', String(o.heap_growth_percent)]),
  ];
  return startSampledServer(samples, args, node_args);
}

/**
 * The live heap (after full collections) over the run, and what it costs per delivery and per account held:
 * the growth over the first collection, divided by what the world holds then. A ratio the machine's load
 * (and so the request rate) moves little, unlike RSS.
 */
function liveHeap(samples: Sample[]): Record<string, unknown> | undefined {
  const live = samples.filter((s) => s.live_heap_mb !== null);
  if (live.length < 2) return undefined;
  const [first, last] = [live[0], live.at(-1)!];
  const grown_bytes = (last.live_heap_mb! - first.live_heap_mb!) * 2 ** 20;
  const per = (name: string): number | null => {
    const held = last.held[name] - first.held[name];
    return held > 0 ? round(grown_bytes / held, 0) : null;
  };
  return {
    mb: live.map((s) => round(s.live_heap_mb!)),
    max_mb: round(max(live.map((s) => s.live_heap_mb!))),
    bytes_per_delivery_held: per('webhooks'),
    bytes_per_account_held: per('accounts'),
    held_at_last: last.held,
  };
}

/** What RSS was made of where it peaked, and each part's own maximum over the run. */
function rssParts(samples: Sample[]): Record<string, unknown> | undefined {
  if (samples.length === 0) return undefined;
  const peak = samples.reduce((a, s) => (s.rss_mb > a.rss_mb ? s : a));
  const parts = (s: Sample): Record<string, number> => ({
    ...Object.fromEntries(Object.entries(s.spaces_mb).map(([k, v]) => [k, round(v)])),
    external: round(s.external_mb),
    array_buffers: round(s.array_buffers_mb),
  });
  const maxima: Record<string, number> = {};
  for (const s of samples) for (const [k, v] of Object.entries(parts(s))) maxima[k] = Math.max(maxima[k] ?? 0, v);
  return {
    at_rss_peak: { t_s: round(peak.t_s, 0), rss: round(peak.rss_mb), heap_total: round(peak.heap_total_mb), ...parts(peak) },
    max: maxima,
  };
}

async function call(url: string, method: string, path: string, key: string | null, body?: unknown, idem?: string): Promise<any> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  if (idem) headers['idempotency-key'] = idem;
  const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`soak setup: ${method} ${path} answered ${res.status} ${JSON.stringify(json)}`);
  return json;
}

interface Org {
  organization_id: string;
  api_key: string;
  account_id: string;
  deposit_address_id: string;
}

const RAISED = { reads: 1_000_000, writes: 1_000_000, indicative_rfqs: 1_000_000, firm_rfqs: 1_000_000 };
const ETH = 'native.evm:42161';
const USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';

/** A new organization with a webhook to the slot's receiver, an account and a deposit address (wallets are derived on the realtime clock within seconds). */
async function setupOrg(url: string, receiver: Receiver, label: string): Promise<Org> {
  const { organization } = await call(url, 'POST', '/_sim/organizations', null, { rate_limits: RAISED });
  const key = organization.api_key as string;
  await call(url, 'POST', '/v1/webhooks', key, { url: receiver.url });
  const { account } = await call(url, 'POST', '/v1/accounts', key, { label }, `setup-acct-${label}`);
  for (let tries = 0; ; tries++) {
    try {
      const { deposit_address } = await call(
        url,
        'POST',
        `/v1/accounts/${account.account_id}/deposit-addresses`,
        key,
        { asset_key: ETH },
        `setup-da-${account.account_id}-${tries}`,
      );
      return {
        organization_id: organization.organization_id,
        api_key: key,
        account_id: account.account_id,
        deposit_address_id: deposit_address.deposit_address_id,
      };
    } catch (e) {
      if (tries > 40) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/**
 * Tenants churn: each slot's organization lives `lifetime_s`, then a new one (same receiver) takes the slot
 * and the old one is deleted 2 s later (requests already sent with its key finish first: a request with a
 * deleted key would be a 401, and 401s count against the address's failed-authentication budget). Slots are
 * staggered evenly over the lifetime.
 */
function churn(
  url: string,
  orgs: Org[],
  receivers: Receiver[],
  lifetime_s: number,
  stats: { churned: number; errors: number; delete_ms: number[] },
): () => Promise<void> {
  let stopped = false;
  const timers: NodeJS.Timeout[] = [];
  const running: Promise<void>[] = [];
  const replace = async (slot: number, generation: number): Promise<void> => {
    if (stopped) return;
    try {
      const fresh = await setupOrg(url, receivers[slot], `soak ${slot}.${generation}`);
      if (stopped) return;
      const old = orgs[slot];
      orgs[slot] = fresh;
      await new Promise((r) => setTimeout(r, 2_000));
      const t0 = performance.now();
      const res = await fetch(`${url}/_sim/organizations/${old.organization_id}`, { method: 'DELETE' });
      await res.arrayBuffer();
      stats.delete_ms.push(performance.now() - t0);
      if (res.status !== 200) stats.errors++;
      else stats.churned++;
    } catch {
      stats.errors++;
    }
    if (!stopped) timers.push(setTimeout(() => running.push(replace(slot, generation + 1)), lifetime_s * 1000));
  };
  orgs.forEach((_, slot) => timers.push(setTimeout(() => running.push(replace(slot, 1)), ((slot + 1) * lifetime_s * 1000) / orgs.length)));
  return async () => {
    stopped = true;
    for (const t of timers) clearTimeout(t);
    await Promise.allSettled(running);
  };
}

/** The mixed load: per request, an org in turn and one of eight steps (5 reads, 3 writes). */
function mixedRequests(orgs: Org[]): autocannon.Request[] {
  let n = 0;
  const org = (): Org => orgs[n++ % orgs.length];
  const auth = (o: Org, write: boolean): Record<string, string> => ({
    authorization: `Bearer ${o.api_key}`,
    ...(write ? { 'content-type': 'application/json', 'idempotency-key': `soak-${n}-${Math.random().toString(36).slice(2)}` } : {}),
  });
  const step = (build: (o: Org) => { method: string; path: string; body?: unknown }): autocannon.Request => ({
    setupRequest: (req) => {
      const o = org();
      const b = build(o);
      return {
        ...req,
        method: b.method as 'GET',
        path: b.path,
        headers: auth(o, b.method !== 'GET'),
        body: b.body === undefined ? undefined : JSON.stringify(b.body),
      };
    },
  });
  return [
    step((o) => ({ method: 'GET', path: `/v1/accounts/${o.account_id}/balances` })),
    // A write with a fresh Idempotency-Key that is refused (404): the idempotency store's worst case.
    step(() => ({ method: 'POST', path: '/v1/accounts/acct_missing/deposit-addresses', body: { asset_key: ETH } })),
    step(() => ({ method: 'GET', path: '/v1/events?limit=20' })),
    step(() => ({
      method: 'POST',
      path: '/v1/rfqs',
      body: {
        from_asset_key: ETH,
        to_asset_key: USDC,
        side: 'exact_in',
        amount_in_atoms: '10000000000000000',
        mode: 'indicative',
        wait_ms: 0,
      },
    })),
    step((o) => ({ method: 'GET', path: `/v1/accounts/${o.account_id}` })),
    step(() => ({ method: 'GET', path: '/v1/assets?limit=10' })),
    // An account: one event, so one webhook delivery to the org's receiver.
    step(() => ({ method: 'POST', path: '/v1/accounts', body: { label: 'soak' } })),
    step((o) => ({ method: 'GET', path: `/v1/accounts/${o.account_id}/credits?limit=20` })),
  ];
}

/** How the server runs, in the banner and the report (sampled-server.ts). */
const SERVER_AS = 'compiled as dist/cli.js is and run by plain node, as `swapsim serve` runs';

const growthNote = (o: Options): string =>
  o.heap_growth_percent === null
    ? `heap growth ${HEAP_GROWTH_PERCENT_DEFAULT}%, serve's default`
    : o.heap_growth_percent === 0
      ? "heap growth V8's own"
      : `heap growth ${o.heap_growth_percent}%`;

const round = (x: number, d = 1): number => Math.round(x * 10 ** d) / 10 ** d;
const max = (xs: number[]): number => xs.reduce((a, b) => Math.max(a, b), 0);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Least-squares slope of RSS over time, MB per minute. */
function slopePerMin(s: Sample[]): number {
  if (s.length < 2) return 0;
  const mx = s.reduce((a, x) => a + x.t_s, 0) / s.length;
  const my = s.reduce((a, x) => a + x.rss_mb, 0) / s.length;
  const num = s.reduce((a, x) => a + (x.t_s - mx) * (x.rss_mb - my), 0);
  const den = s.reduce((a, x) => a + (x.t_s - mx) ** 2, 0);
  return den === 0 ? 0 : (num / den) * 60;
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const samples: Sample[] = [];
  const server = await startServer(samples, o);
  const receivers = await Promise.all(Array.from({ length: o.orgs }, (_, i) => startReceiver(i === 0 ? 'hang' : i === 1 ? 500 : 200)));
  const orgs: Org[] = [];
  for (let i = 0; i < o.orgs; i++) orgs.push(await setupOrg(server.url, receivers[i], `soak ${i}`));
  const churned = { churned: 0, errors: 0, delete_ms: [] as number[] };
  const stopChurn = o.org_lifetime_s > 0 ? churn(server.url, orgs, receivers, o.org_lifetime_s, churned) : async () => undefined;
  // Deposits through the control plane at a steady rate, round robin over the orgs.
  let deposits = 0;
  let deposit_errors = 0;
  const depositTimer = setInterval(() => {
    const org = orgs[deposits++ % orgs.length];
    call(server.url, 'POST', '/_sim/deposits', null, { deposit_address_id: org.deposit_address_id, atoms: '1000000000000000' }).catch(
      () => deposit_errors++,
    );
  }, 1000 / o.deposits_per_s);
  const measured_from_s = samples.at(-1)?.t_s ?? 0;
  console.log(
    `soak: ${o.orgs} org slots (receivers in their own processes: hang, 500, ${o.orgs - 2} x 200), ${o.connections} connections, ${o.deposits_per_s} deposits/s, ` +
      `${o.duration_s} s, server ${SERVER_AS} (${growthNote(o)}), ${o.org_lifetime_s > 0 ? `each org replaced and deleted every ${o.org_lifetime_s} s` : 'no churn'}${o.profile_json ? `, profile ${o.profile_json}` : ''}`,
  );
  const statuses: Record<string, number> = {};
  let finished: (r: autocannon.Result) => void = () => undefined;
  const done = new Promise<autocannon.Result>((ok) => (finished = ok));
  const instance = autocannon(
    { url: server.url, connections: o.connections, duration: o.duration_s, requests: mixedRequests(orgs) },
    (err, r) => {
      if (err) throw err;
      finished(r);
    },
  );
  instance.on('response', (_client: unknown, status: number) => {
    statuses[status] = (statuses[status] ?? 0) + 1;
  });
  const progress = setInterval(() => {
    const s = samples.at(-1);
    if (s)
      console.log(
        `  t=${round(s.t_s - measured_from_s, 0)} s  rss ${round(s.rss_mb)} MB  heap ${round(s.heap_mb)} MB (old ${round(s.spaces_mb.old ?? 0)}, new ${round(s.spaces_mb.new ?? 0)}, large ${round(s.spaces_mb.large_object ?? 0)}, external ${round(s.external_mb)})  eld p99 ${round(s.eld_p99_ms)} ms  lag ${round(s.lag_ms, 0)} ms  webhooks in flight ${s.webhook_in_flight}, queued ${s.webhook_queued}`,
      );
  }, 30_000);
  const result = await done;
  clearInterval(progress);
  clearInterval(depositTimer);
  await stopChurn();
  const during = samples.filter((s) => s.t_s >= measured_from_s);
  const last5 = during.filter((s) => s.t_s >= (during.at(-1)?.t_s ?? 0) - 300);
  const fivexx = Object.entries(statuses)
    .filter(([k]) => Number(k) >= 500)
    .reduce((a, [, v]) => a + v, 0);
  const report = {
    server: `${SERVER_AS} (${growthNote(o)})`,
    command: `npm run bench:soak -- ${process.argv.slice(2).join(' ')}`.trim(),
    duration_s: o.duration_s,
    requests: result.requests.total,
    req_per_s: round(result.requests.average, 0),
    latency_p99_ms: result.latency.p99,
    statuses,
    status_5xx: fivexx,
    errors: result.errors,
    timeouts: result.timeouts,
    deposits,
    deposit_errors,
    rss_mb: { start: round(during[0]?.rss_mb ?? 0), end: round(during.at(-1)?.rss_mb ?? 0), max: round(max(during.map((s) => s.rss_mb))) },
    rss_last_5min_mb: {
      min: round(Math.min(...last5.map((s) => s.rss_mb))),
      max: round(max(last5.map((s) => s.rss_mb))),
      slope_mb_per_min: round(slopePerMin(last5), 2),
    },
    eld_p99_ms: { median: round(median(during.map((s) => s.eld_p99_ms))), max: round(max(during.map((s) => s.eld_p99_ms))) },
    eld_max_ms: round(max(during.map((s) => s.eld_max_ms))),
    clock_lag_ms: { median: round(median(during.map((s) => s.lag_ms)), 0), max: round(max(during.map((s) => s.lag_ms)), 0) },
    webhook_queued_max: max(during.map((s) => s.webhook_queued)),
    idempotency_records_end: during.at(-1)?.idempotency_records ?? 0,
    events_end: during.at(-1)?.events ?? 0,
    orgs_churned: churned.churned,
    churn_errors: churned.errors,
    delete_org_ms: { median: round(median(churned.delete_ms)), max: round(max(churned.delete_ms)) },
    transitions_end: during.at(-1)?.transitions ?? 0,
    heap_mb: {
      start: round(during[0]?.heap_mb ?? 0),
      end: round(during.at(-1)?.heap_mb ?? 0),
      max: round(max(during.map((s) => s.heap_mb))),
    },
    live_heap_mb: liveHeap(during),
    // RSS split: V8's spaces (committed) and off-heap memory, each at the sample where RSS peaked and its max.
    rss_parts_mb: rssParts(during),
    held_mid: during[Math.floor(during.length / 2)]?.held,
    held_end: during.at(-1)?.held,
    received: Object.fromEntries(await Promise.all(receivers.map(async (r, i) => [`slot${i}:${r.answer}`, await r.received()] as const))),
  };
  if (o.samples_file) writeFileSync(o.samples_file, `${during.map((s) => JSON.stringify(s)).join('\n')}\n`);
  console.log(JSON.stringify(report, null, 2));
  await Promise.all(receivers.map((r) => r.close()));
  await server.stop();
}

await main();
