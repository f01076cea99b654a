// The HTTP self-benchmark: baselines (raw node:http, also at the fixed rate as the latency floor; fastify 5 and
// express 5 hello-world) and swapsim's cases (a) balances read, (a) at a fixed rate, (b) idempotent replay, (c) mixed
// lifecycle, each against a server in its own child process, measured by a load generator in a process of its
// own, started alike for every case (client.ts): autocannon (closed-loop.ts), or for the fixed-rate cases an
// open-loop generator (open-loop.ts). Servers are pinned to one CPU and clients to the other (placement.ts);
// rounds interleave the cases, and each ratio is taken within a round (pairs.ts). Returns the BenchResult with
// the ratios' medians and spreads, and the targets.
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { BenchCase, BenchResult } from '../../reports/types.ts';
import { startServer, type ServerChild, type ServerKind } from './children.ts';
import { driveClock, fundAccounts, type FundedAccount, type Target } from './setup.ts';
import { openLoopInChild } from './open-loop.ts';
import { closedLoopInChild, type ClosedLoopOptions, type RunFigures } from './closed-loop.ts';
import { effectiveSched, type ClientLaunch, type ClientSched, type MeasuringLine } from './client.ts';
import { describePlacement, placementFor, type Placement } from './placement.ts';
import { pairedRatios, roundOrder, type RatioSpread } from './pairs.ts';

export const CASE_IDS = ['raw', 'raw-fixed', 'fastify', 'express', 'read', 'read-fixed', 'replay', 'mixed'] as const;
/** The read served by another checkout's swapsim (`base_dir`), to measure a change against it in pairs. */
export const BASE_CASE = 'read-base';
export type CaseId = (typeof CASE_IDS)[number] | typeof BASE_CASE;
/** Every case `--cases` may name; the default is CASE_IDS (read-base needs a base checkout). */
export const KNOWN_CASES: readonly CaseId[] = [...CASE_IDS, BASE_CASE];

export interface BenchOptions {
  duration_s: number;
  connections: number;
  warmup_s: number;
  /** The fixed offered rate of case read-fixed. */
  rate_per_s: number;
  /** Keep-alive connections of the fixed-rate cases' open-loop generator (a request due while all are busy waits). */
  fixed_connections: number;
  /** Rounds, each measuring every case once (pairs.ts orders them); figures are the medians over rounds. */
  repeat: number;
  cases: CaseId[];
  /** How the load generators are scheduled (client.ts); `batch` falls back to `normal` where chrt is missing. */
  client_sched: ClientSched;
  /** Pin every server to one CPU and every load generator to another (placement.ts); off where it cannot. */
  pin: boolean;
  /** A checkout of swapsim (with its node_modules) whose server the read-base case runs. */
  base_dir?: string;
  /** Profile each swapsim child with `node --cpu-prof` into this folder. */
  cpu_prof_dir?: string;
  /** Size of the mixed case's credit pool (default: enough for MIXED_CYCLES_PER_S over every run). */
  credits?: number;
  /** The key the load sends (default: the bench org's). Tests send a wrong one to see failures counted. */
  client_api_key?: string;
  command: string;
  onCaseDone?: (done: number, total: number, name: string) => void;
}

export const DEFAULT_OPTIONS: Omit<BenchOptions, 'command'> = {
  duration_s: 10,
  connections: 50,
  warmup_s: 2,
  rate_per_s: 2_000,
  fixed_connections: 10,
  repeat: 1,
  client_sched: 'batch',
  pin: true,
  cases: [...CASE_IDS],
};

/** What the JSON carries per case beyond BenchCase: the raw counts behind `errors`. */
export interface BenchCaseDetail extends BenchCase {
  id: CaseId;
  non_2xx: number;
  status_codes: Record<string, number>;
  /** Socket errors + timeouts + body mismatches (replay answers that differ from the stored reply). */
  transport_errors: number;
  /** Server CPU time per answered request (median over runs), from /proc: steadier than req/s on a shared machine. */
  server_cpu_us_per_request?: number;
  /**
   * Times the kernel took a CPU from the server's threads while they could run, per answer (median over runs):
   * on loopback, mostly the client its answers woke (docs/performance.md).
   */
  server_preemptions_per_request?: number;
  /** The closed-loop generator's own CPU time per answer (median over runs). */
  client_cpu_us_per_request?: number;
  /**
   * The share of one CPU the server used over the measured run (CPU µs/req × req/s, median over runs): near 1
   * when it was the bottleneck; well below when the scheduler gave its CPU to others, or its client was slower.
   */
  server_busy?: number;
  /** The same for the closed-loop generator: near 1, the figure measures the client, not the server. */
  client_busy?: number;
  /** The scheduling every closed-loop generator of the case ran under, as its kernel reported it (else 'mixed'). */
  client_sched?: string;
  /** The CPUs the case's server may run on (its affinity as /proc reported it), e.g. "0" when pinned. */
  server_cpus?: string;
  /** The CPUs every generator of the case reported it may run on (else 'mixed'). */
  client_cpus?: string;
  note?: string;
}

const API_KEY = 'sk_bench_0123456789abcdef0123456789';
const NAMES: Record<CaseId, string> = {
  raw: 'raw node:http hello-world',
  'raw-fixed': 'raw node:http hello-world, fixed rate',
  fastify: 'fastify 5 hello-world',
  express: 'express 5 hello-world',
  read: 'swapsim (a) balances read',
  'read-base': 'swapsim (a) balances read, base checkout',
  'read-fixed': 'swapsim (a) balances read, fixed rate',
  replay: 'swapsim (b) idempotent write replay',
  mixed: 'swapsim (c) mixed lifecycle',
};
const SERVER: Record<CaseId, ServerKind> = {
  raw: 'raw',
  'raw-fixed': 'raw',
  fastify: 'fastify',
  express: 'express',
  read: 'swapsim',
  'read-base': 'swapsim',
  'read-fixed': 'swapsim',
  replay: 'swapsim',
  mixed: 'swapsim',
};
/** Cycles per second the mixed case is sized for (credit pool); a run that drains it says so in its note. */
const MIXED_CYCLES_PER_S = 1_500;

/** The mixed case's pool across runs: each run's generator starts from what the last one left. */
interface MixedPool {
  api_key: string;
  accounts: FundedAccount[];
  exhausted: number;
  cycles: number;
}

interface Prepared {
  /** Appended to the server's URL (autocannon takes the path in the URL). */
  path?: string;
  /** The closed-loop request (none for the mixed case, which sends its lifecycle). */
  request?: ClosedLoopOptions['request'];
  /** The mixed case's credit pool, handed to each run's generator and taken back from it. */
  mixed?: MixedPool;
  /** Offered at a constant arrival rate by the open-loop generator instead of autocannon (GETs of `path`). */
  fixed_rate?: { rate_per_s: number; connections: number; headers?: Record<string, string> };
  /** Runs around each measured (and warm-up) run, e.g. the sim-clock driver. */
  during?: () => () => Promise<void>;
  note?: () => string | undefined;
}

async function prepare(id: CaseId, server: ServerChild, o: BenchOptions): Promise<Prepared> {
  const t: Target = { url: server.url, api_key: API_KEY };
  const client_key = o.client_api_key ?? API_KEY;
  const auth = { authorization: `Bearer ${client_key}` };
  if (id === 'raw' || id === 'fastify' || id === 'express') return { path: '/' };
  // The latency floor of the fixed-rate target: the load generator and the machine with the cheapest server.
  if (id === 'raw-fixed') return { path: '/', fixed_rate: { rate_per_s: o.rate_per_s, connections: o.fixed_connections } };
  if (id === 'read' || id === 'read-base' || id === 'read-fixed') {
    const [a] = await fundAccounts(t, 1, 3);
    const path = `/v1/accounts/${a.account_id}/balances`;
    if (id === 'read-fixed') return { path, fixed_rate: { rate_per_s: o.rate_per_s, connections: o.fixed_connections, headers: auth } };
    return { path, request: { headers: auth } };
  }
  if (id === 'replay') {
    const headers = { ...auth, 'content-type': 'application/json', 'idempotency-key': 'bench-replay-1' };
    const body = JSON.stringify({ label: 'bench replay', external_id: 'bench-ext-1' });
    const first = await fetch(`${server.url}/v1/accounts`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${API_KEY}` },
      body,
    });
    const stored = await first.text();
    if (first.status !== 200) throw new Error(`bench setup: replay's first write answered ${first.status} ${stored}`);
    // Every replay must return the stored reply byte for byte; anything else counts as a mismatch.
    return { path: '/v1/accounts', request: { method: 'POST', headers, body, expectBody: stored } };
  }
  const accounts = Math.min(o.connections, 50);
  const cycles = o.credits ?? Math.ceil((o.duration_s + o.warmup_s) * o.repeat * MIXED_CYCLES_PER_S);
  const pool: MixedPool = {
    api_key: client_key,
    accounts: await fundAccounts(t, accounts, Math.ceil(cycles / accounts)),
    exhausted: 0,
    cycles: 0,
  };
  return {
    mixed: pool,
    during: () => driveClock(t, 250),
    note: () =>
      pool.exhausted > 0 ? `credit pool ran dry: ${pool.exhausted} of ${pool.cycles} cycles ran reads in place of the trade` : undefined,
  };
}

interface Measured {
  result: RunFigures;
  cpu_us_per_request?: number;
  preemptions_per_request?: number;
  client_cpu_us_per_request?: number;
  client_sched?: string | null;
  client_cpus?: string;
}

/** Seconds of the fixed rate the generator's own process offers before measuring (its JIT warming up). */
const GENERATOR_WARMUP_S = 1;

/** The server's CPU time and preemptions so far (sampled when the measured part starts and when it ends). */
interface ServerSample {
  cpu_ms?: number;
  preemptions?: number;
}
const sample = (server: ServerChild): ServerSample => ({ cpu_ms: server.cpu_ms(), preemptions: server.preemptions() });

/** The server's CPU time and preemptions per answer since `before`. */
function perAnswer(
  server: ServerChild,
  before: ServerSample | undefined,
  answered: number,
): Pick<Measured, 'cpu_us_per_request' | 'preemptions_per_request'> {
  const after = sample(server);
  const per = (a: number | undefined, b: number | undefined, scale: number): number | undefined =>
    a !== undefined && b !== undefined && answered > 0 ? ((b - a) * scale) / answered : undefined;
  return {
    cpu_us_per_request: per(before?.cpu_ms, after.cpu_ms, 1000),
    preemptions_per_request: per(before?.preemptions, after.preemptions, 1),
  };
}

/** A fixed-rate run (open loop), its warm-up a run of its own. */
async function openLoopRun(server: ServerChild, how: ClientLaunch, p: Prepared, duration_s: number): Promise<Measured> {
  const fixed = p.fixed_rate!;
  let before: ServerSample | undefined;
  let client_cpus: string | undefined;
  const r = await openLoopInChild(
    { url: server.url + (p.path ?? ''), duration_s, warmup_s: GENERATOR_WARMUP_S, ...fixed },
    (line) => {
      before = sample(server);
      client_cpus = cpuList(line);
    },
    how,
  );
  const result: RunFigures = {
    requests_per_s: r.requests_per_s,
    p50_ms: r.latency_ms.p50,
    p99_ms: r.latency_ms.p99,
    answered: r.answered,
    non_2xx: r.non_2xx,
    transport_errors: r.errors,
    status_codes: r.status_codes,
  };
  return { result, ...perAnswer(server, before, r.answered), ...(client_cpus ? { client_cpus } : {}) };
}

const cpuList = (line: MeasuringLine | { cpus?: number[] }): string | undefined => line.cpus?.join(',');

/**
 * Closed-loop runs in one generator process (its JIT warms with the servers'): every case's warm-up, then the
 * measured runs back to back in the group's order (a case may come back, one run per round), so the two sides
 * of a pair are milliseconds apart.
 */
async function closedLoopGroup(group: RunningCase[], o: BenchOptions, how: ClientLaunch): Promise<void> {
  let client_cpus: string | undefined;
  // Each case warms up once, before its first measured run (the generator's JIT and the server's).
  const first = new Set(group.map((c) => group.indexOf(c)));
  const results = await closedLoopInChild(
    group.map((c, i) => ({
      url: c.server.url + (c.p.path ?? ''),
      connections: o.connections,
      duration_s: o.duration_s,
      warmup_s: first.has(i) ? o.warmup_s : 0,
      server_pid: c.server.pid,
      ...(c.p.request ? { request: c.p.request } : {}),
      ...(c.p.mixed ? { mixed: { accounts: c.p.mixed.accounts, api_key: c.p.mixed.api_key } } : {}),
    })),
    how,
    (line) => (client_cpus = cpuList(line)),
  );
  for (const [i, c] of group.entries()) {
    const r = results[i];
    const pool = c.p.mixed;
    if (pool && r.mixed) {
      pool.accounts = r.mixed.accounts;
      pool.exhausted += r.mixed.exhausted;
      pool.cycles += r.mixed.cycles;
    }
    const per = (x: number | undefined, scale: number): number | undefined =>
      x !== undefined && r.run.answered > 0 ? (x * scale) / r.run.answered : undefined;
    if (r.warm) c.warmups.push({ result: r.warm });
    c.runs.push({
      result: r.run,
      cpu_us_per_request: per(r.server_cpu_ms, 1000),
      preemptions_per_request: per(r.server_preemptions, 1),
      client_cpu_us_per_request: r.client_cpu_us_per_request,
      client_sched: r.sched,
      ...(client_cpus ? { client_cpus } : {}),
    });
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (x: number, digits = 2): number => Number(x.toFixed(digits));

/** One value if every run agreed, else 'mixed'; undefined if none said. */
const agreed = (values: Array<string | null | undefined>): string | undefined => {
  const seen = new Set(values.filter((v) => v !== undefined).map(String));
  return seen.size === 0 ? undefined : seen.size === 1 ? [...seen][0] : 'mixed';
};

function summarize(c: RunningCase, o: BenchOptions): BenchCaseDetail {
  const { id, runs: measured, warmups: warm } = c;
  const note = c.p.note?.();
  const status_codes: Record<string, number> = {};
  let non_2xx = 0;
  let transport_errors = 0;
  const runs = measured.map((m) => m.result);
  const cpu = measured.map((m) => m.cpu_us_per_request).filter((x): x is number => x !== undefined);
  const preempted = measured.map((m) => m.preemptions_per_request).filter((x): x is number => x !== undefined);
  const client_cpu = measured.map((m) => m.client_cpu_us_per_request).filter((x): x is number => x !== undefined);
  const busy = (us: number | undefined, m: Measured): number[] => (us === undefined ? [] : [(us * m.result.requests_per_s) / 1e6]);
  const server_busy = measured.flatMap((m) => busy(m.cpu_us_per_request, m));
  const client_busy = measured.flatMap((m) => busy(m.client_cpu_us_per_request, m));
  const sched = agreed(measured.map((m) => m.client_sched));
  const client_cpus = agreed(measured.map((m) => m.client_cpus));
  const server_cpus = c.server.cpus()?.join(',');
  for (const { result: r } of [...warm, ...measured]) {
    non_2xx += r.non_2xx;
    transport_errors += r.transport_errors;
    for (const [code, n] of Object.entries(r.status_codes)) status_codes[code] = (status_codes[code] ?? 0) + n;
  }
  return {
    id,
    name: NAMES[id],
    requests_per_s: Math.round(median(runs.map((r) => r.requests_per_s))),
    latency_p50_ms: round(median(runs.map((r) => r.p50_ms))),
    latency_p99_ms: round(median(runs.map((r) => r.p99_ms))),
    errors: non_2xx + transport_errors,
    ...(id === 'read-fixed' || id === 'raw-fixed' ? { offered_rate_per_s: o.rate_per_s } : {}),
    non_2xx,
    status_codes,
    transport_errors,
    ...(cpu.length > 0 ? { server_cpu_us_per_request: Math.round(median(cpu)) } : {}),
    ...(preempted.length > 0 ? { server_preemptions_per_request: round(median(preempted), 3) } : {}),
    ...(client_cpu.length > 0 ? { client_cpu_us_per_request: Math.round(median(client_cpu)) } : {}),
    ...(server_busy.length > 0 ? { server_busy: round(median(server_busy)) } : {}),
    ...(client_busy.length > 0 ? { client_busy: round(median(client_busy)) } : {}),
    ...(sched !== undefined ? { client_sched: sched } : {}),
    ...(server_cpus !== undefined ? { server_cpus } : {}),
    ...(client_cpus !== undefined ? { client_cpus } : {}),
    ...((note ?? bottleneck(server_busy, client_busy)) ? { note: note ?? bottleneck(server_busy, client_busy) } : {}),
  };
}

/** A side that used at least this share of its CPU had it to itself and was the bottleneck. */
const SATURATED = 0.9;

/**
 * A note when the server was not the bottleneck of its case: its generator saturated its own CPU (the req/s
 * are the client's ceiling), or neither side got its CPU (other work on the machine decided the req/s).
 */
export function bottleneck(server_busy: number[], client_busy: number[]): string | undefined {
  if (server_busy.length === 0 || client_busy.length === 0) return undefined;
  const s = round(median(server_busy));
  const c = round(median(client_busy));
  if (s >= SATURATED) return undefined;
  if (c >= SATURATED)
    return `client-bound: the load generator used ${c} of its CPU, the server ${s} of its own; these req/s are the client's ceiling`;
  return `starved: the server used ${s} of its CPU and the load generator ${c} of its own; the machine's other work decided these req/s`;
}

interface RunningCase {
  id: CaseId;
  server: ServerChild;
  p: Prepared;
  warmups: Measured[];
  runs: Measured[];
}

async function startCase(id: CaseId, o: BenchOptions, where: Placement): Promise<RunningCase> {
  const kind = SERVER[id];
  if (id === BASE_CASE && !o.base_dir) throw new Error(`case ${BASE_CASE} needs a base checkout (--base DIR)`);
  const server = await startServer(kind, {
    ...(id === BASE_CASE ? { servers_dir: join(o.base_dir!, 'load', 'http-bench', 'servers') } : {}),
    env: { BENCH_API_KEY: API_KEY },
    cpu_prof_dir: kind === 'swapsim' ? o.cpu_prof_dir : undefined,
    cpu: where.server_cpu,
  });
  try {
    return { id, server, p: await prepare(id, server, o), warmups: [], runs: [] };
  } catch (e) {
    await server.stop();
    throw e;
  }
}

/** A fixed-rate case (open loop) or one with something running beside it (the mixed case's clock), alone. */
async function measureAlone(c: RunningCase, o: BenchOptions, how: ClientLaunch): Promise<void> {
  const stop = c.p.during?.();
  try {
    // The warm-up lets the JIT settle; it is not timed, but its answers count (never quietly measure failures).
    if (c.p.fixed_rate) {
      if (o.warmup_s > 0) c.warmups.push(await openLoopRun(c.server, how, c.p, o.warmup_s));
      c.runs.push(await openLoopRun(c.server, how, c.p, o.duration_s));
      return;
    }
    await closedLoopGroup([c], o, how);
  } finally {
    await stop?.();
  }
}

/** Closed-loop cases with nothing running beside them: measured together, round after round, by one generator. */
const pairable = (c: RunningCase): boolean => c.p.fixed_rate === undefined && c.p.during === undefined;

/**
 * Every case's server starts (and is set up) first. The closed-loop cases are then measured by one generator,
 * `repeat` rounds back to back, each round in the order pairs.ts gives (the read between raw and express, the
 * order reversed every other round), so both sides of a ratio see the same seconds of a shared machine; the
 * others (fixed rate, mixed) round by round after. Returns the cases and each round's figures by case.
 */
async function runCases(o: BenchOptions, where: Placement): Promise<{ cases: BenchCaseDetail[]; rounds: Round[] }> {
  const running: RunningCase[] = [];
  const how: ClientLaunch = { sched: o.client_sched, cpu: where.client_cpu };
  try {
    for (const id of o.cases) running.push(await startCase(id, o, where));
    const byId = new Map(running.map((c) => [c.id, c]));
    const order = (r: number, f: (c: RunningCase) => boolean): RunningCase[] =>
      roundOrder(o.cases, r)
        .map((id) => byId.get(id)!)
        .filter(f);
    let done = 0;
    const together = Array.from({ length: o.repeat }, (_, r) => order(r, pairable)).flat();
    if (together.length > 0) await closedLoopGroup(together, o, how);
    for (const c of running.filter(pairable)) o.onCaseDone?.(++done, running.length, NAMES[c.id]);
    for (let r = 0; r < o.repeat; r++) {
      for (const c of order(r, (c) => !pairable(c))) {
        await measureAlone(c, o, how);
        if (r === o.repeat - 1) o.onCaseDone?.(++done, running.length, NAMES[c.id]);
      }
    }
    const rounds = Array.from({ length: o.repeat }, (_, r): Round => {
      const figures: Round = {};
      for (const c of running) {
        const m = c.runs[r];
        figures[c.id] = {
          requests_per_s: Math.round(m.result.requests_per_s),
          ...(m.cpu_us_per_request !== undefined ? { server_cpu_us_per_request: round(m.cpu_us_per_request, 1) } : {}),
          ...(m.client_cpu_us_per_request !== undefined ? { client_cpu_us_per_request: round(m.client_cpu_us_per_request, 1) } : {}),
        };
      }
      return figures;
    });
    return { cases: running.map((c) => summarize(c, o)), rounds };
  } finally {
    await Promise.all(running.map((c) => c.server.stop()));
  }
}

/** One round's figures by case, in the report so any round can be looked at again. */
export type Round = Partial<
  Record<CaseId, { requests_per_s: number; server_cpu_us_per_request?: number; client_cpu_us_per_request?: number }>
>;

/** A figure of each case in each round, for pairedRatios. */
const perRound = (rounds: Round[], f: (x: NonNullable<Round[CaseId]>) => number | undefined): Array<Partial<Record<string, number>>> =>
  rounds.map((r) => Object.fromEntries(Object.entries(r).flatMap(([id, x]) => (x && f(x) !== undefined ? [[id, f(x)!]] : []))));

/** The ratios the bench reports: every swapsim case and framework against raw and express. */
const RATIO_KEYS = [
  ...(['read', 'replay', 'mixed', 'fastify', 'express', BASE_CASE] as const).flatMap((id) =>
    (['raw', 'express'] as const).filter((base) => base !== id).map((base) => `${id}/${base}`),
  ),
  `read/${BASE_CASE}`,
];

function targetsOf(
  cases: BenchCaseDetail[],
  ratios: Record<string, number>,
  cpu_ratios: Record<string, RatioSpread>,
  o: BenchOptions,
): NonNullable<BenchResult['targets']> {
  const targets: NonNullable<BenchResult['targets']> = [];
  const read = cases.find((c) => c.id === 'read');
  if (read && ratios['read/express'] !== undefined) {
    targets.push({
      label: '(a) balances read req/s vs express hello-world',
      ok: ratios['read/express'] >= 1.5 && read.errors === 0,
      value: ratios['read/express'],
      target: '>= 1.5',
    });
  }
  if (read && ratios['read/raw'] !== undefined) {
    targets.push({
      label: '(a) balances read req/s vs raw node:http hello-world',
      ok: ratios['read/raw'] >= 0.5 && read.errors === 0,
      value: ratios['read/raw'],
      target: '>= 0.5',
    });
  }
  // The same target per server CPU-second: raw's req/s can be its client's ceiling (autocannon costs about
  // what raw's server does per request), which flatters a ratio to it; CPU per answer does not depend on that.
  const cpu = cpu_ratios['read/raw'];
  if (read && cpu) {
    targets.push({
      label: '(a) balances read per server CPU-second vs raw node:http hello-world',
      ok: cpu.median >= 0.5 && read.errors === 0,
      value: cpu.median,
      target: '>= 0.5',
    });
  }
  const fixed = cases.find((c) => c.id === 'read-fixed');
  if (fixed) {
    // A server that cannot sustain the offered rate fails the target whatever its p99 says.
    const sustained = fixed.requests_per_s >= 0.95 * o.rate_per_s;
    targets.push({
      label: `(a) p99 at ${o.rate_per_s} req/s (ms)`,
      ok: fixed.latency_p99_ms < 10 && sustained && fixed.errors === 0,
      value: fixed.latency_p99_ms,
      target: '< 10',
    });
  }
  return targets;
}

/** The BenchResult `npm run bench` writes: per-case detail and the options it ran with. */
export type BenchReport = Omit<BenchResult, 'cases'> & {
  cases: BenchCaseDetail[];
  /** Each req/s ratio taken within each round, summarized over rounds; `ratios` holds the medians. */
  ratio_spreads: Record<string, RatioSpread>;
  /**
   * The same ratios of requests per second of server CPU (1e6 ÷ CPU µs/req), each taken within a round: what
   * the servers would serve with a CPU each to themselves; steadier than req/s when others share the machine.
   */
  cpu_ratio_spreads: Record<string, RatioSpread>;
  rounds: Round[];
  /** Where servers and clients ran (placement.ts), in words. */
  placement: string;
  options: Omit<BenchOptions, 'onCaseDone' | 'command'>;
  /** How the load was generated: the generators' scheduling as it was (batch falls back to normal without chrt). */
  client: { sched: ClientSched; generator: string };
};

export async function runBench(o: BenchOptions): Promise<BenchReport> {
  const started_at = new Date().toISOString();
  const where = placementFor(o.pin);
  const { cases, rounds } = await runCases(o, where);
  const ratio_spreads = pairedRatios(
    perRound(rounds, (x) => x.requests_per_s),
    RATIO_KEYS,
  );
  const cpu_ratio_spreads = pairedRatios(
    perRound(rounds, (x) => (x.server_cpu_us_per_request ? 1e6 / x.server_cpu_us_per_request : undefined)),
    RATIO_KEYS,
  );
  const ratios = Object.fromEntries(Object.entries(ratio_spreads).map(([k, s]) => [k, s.median]));
  const floor = cases.find((c) => c.id === 'raw-fixed');
  const fixed = cases.find((c) => c.id === 'read-fixed');
  if (floor && fixed)
    fixed.note = `open loop, ${o.fixed_connections} connections; raw node:http at the same rate: p99 ${floor.latency_p99_ms} ms (the floor the load generator and this machine allow)`;
  const { onCaseDone: _cb, command: _cmd, ...options } = o;
  return {
    kind: 'bench',
    started_at,
    command: o.command,
    machine: { cpus: cpus().length, node: process.version },
    client: {
      sched: effectiveSched(o.client_sched),
      generator:
        'autocannon, one process for every round of the closed-loop cases (open loop for the fixed-rate cases, one process per run)',
    },
    cases,
    ratios,
    ratio_spreads,
    cpu_ratio_spreads,
    rounds,
    placement: describePlacement(where),
    targets: targetsOf(cases, ratios, cpu_ratio_spreads, o),
    options,
  };
}
