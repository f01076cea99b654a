// `npm run bench:tenants`: a benchmark, not a test. One swapsim (virtual server clock) in a child process, a
// bystander tenant with a clock of its own, measured alone and then beside --hostile tenants (64 by default):
// hanging, slow and failing receivers, wrong keys from the bystander's address, oversized and unfinished
// bodies, clock jumps (own clocks and the server's), churn with deletes. Prints the bystander's delivery
// latency, advance and settle times (alone vs crowd), 429s it did not earn, deliveries after a delete, 5xx,
// and the server's RSS over time.
import { fork } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startReceiver, type ReceiverAnswer } from './receiver.ts';
import { startSampledServer } from './sampled-server.ts';

interface Options {
  hostile: number;
  /** Wall time the bystander is measured beside the hostile tenants. */
  duration_s: number;
  /** Bystander rounds measured alone first. */
  rounds_alone: number;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { hostile: 64, duration_s: 60, rounds_alone: 15 };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    if (argv[i] === '--hostile') {
      o.hostile = Number(v);
      i++;
    } else if (argv[i] === '--duration') {
      o.duration_s = Number(/^([0-9.]+)s?$/.exec(v ?? '')?.[1] ?? NaN);
      i++;
    } else if (argv[i] === '--rounds-alone') {
      o.rounds_alone = Number(v);
      i++;
    } else throw new Error(`unknown option ${argv[i]} (--hostile 64, --duration 60s, --rounds-alone 15)`);
  }
  if (!(o.duration_s > 0) || !(o.hostile >= 0)) throw new Error('--duration and --hostile must be positive numbers');
  return o;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = (): number => performance.now();
const pct = (xs: number[], p: number): number => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const r1 = (x: number): number => Math.round(x * 10) / 10;

interface Sample {
  t_s: number;
  rss_mb: number;
  heap_mb: number;
  eld_p99_ms: number;
  eld_max_ms: number;
  org_worlds?: number;
}

/** Statuses seen, by who: the bystander's are judged, the hostile tenants' only counted. */
const statuses = { bystander: new Map<number, number>(), hostile: new Map<number, number>() };
/** The bystander's 429s, each with its call and message: none is earned (it stays far under its limits). */
const unearned: string[] = [];
const count = (who: 'bystander' | 'hostile', status: number): void => void statuses[who].set(status, (statuses[who].get(status) ?? 0) + 1);

async function call(
  base: string,
  who: 'bystander' | 'hostile',
  method: string,
  path: string,
  o: { key?: string; body?: unknown } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (method !== 'GET') headers['idempotency-key'] = `t-${Math.random().toString(36).slice(2)}`;
  try {
    const res = await fetch(base + path, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
    const body = (await res.json().catch(() => null)) as any;
    count(who, res.status);
    if (who === 'bystander' && res.status === 429) unearned.push(`${method} ${path}: ${body?.error?.message ?? ''}`);
    return { status: res.status, body };
  } catch {
    count(who, 0);
    return { status: 0, body: null };
  }
}

interface Arrival {
  /** Wall ms when the POST's headers were in (the receiver's Date.now(): same machine, same clock). */
  at_ms: number;
  /** Its Svc-Timestamp: the server's wall time of the attempt. */
  stamp_ms: number;
  webhook_id: string;
  path: string;
}

/**
 * A recording receiver in a process of its own (recording-receiver.mjs): the bystander's delivery latency, and
 * churned tenants' deliveries after their delete, read at the end.
 */
async function recordingReceiver(): Promise<{ url: string; arrivals(): Promise<Arrival[]>; close(): Promise<void> }> {
  const child = fork(fileURLToPath(new URL('./recording-receiver.mjs', import.meta.url)), [], {
    execArgv: [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const next = <T>(key: string): Promise<T> =>
    new Promise((ok) => {
      const on = (m: Record<string, unknown>) => {
        if (!(key in m)) return;
        child.off('message', on);
        ok(m[key] as T);
      };
      child.on('message', on);
    });
  const port = await next<number>('port');
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals: () => {
      const got = next<Arrival[]>('arrivals');
      child.send('dump');
      return got;
    },
    close: () =>
      new Promise<void>((r) => {
        child.once('exit', () => r());
        child.disconnect();
      }),
  };
}

interface Tenant {
  organization_id: string;
  api_key: string;
  webhook_id?: string;
}

async function tenant(
  base: string,
  who: 'bystander' | 'hostile',
  clock: 'virtual' | 'realtime' | null,
  hook: string | null,
): Promise<Tenant> {
  const org = await call(base, who, 'POST', '/_sim/organizations', { body: clock ? { clock: { mode: clock } } : {} });
  if (org.status !== 200) throw new Error(`create organization: ${org.status} ${JSON.stringify(org.body)}`);
  const t: Tenant = { organization_id: org.body.organization.organization_id, api_key: org.body.organization.api_key };
  if (hook) {
    const w = await call(base, who, 'POST', '/v1/webhooks', { key: t.api_key, body: { url: hook } });
    t.webhook_id = w.body?.webhook?.webhook_id;
  }
  return t;
}

interface Round {
  /** Wall ms (Date.now()) the round's advance was sent: its deliveries' latency is counted from there. */
  t0_ms: number;
  advance_ms: number;
  settle_ms: number;
}

/**
 * A round takes at least this long: the bystander sends 1 write and 1 read a round, 4 a second at most, far
 * under its limits (20 writes/s, 100 reads/s), so any 429 it gets is one it did not earn.
 */
const ROUND_MIN_MS = 250;

/**
 * A hostile tenant's pause between its rounds of work (an account, a clock jump; a churn). The hostility is in
 * what they do, not in CPU: one process serves every tenant, so a flood of account creations (five wallet keys
 * each) would measure the machine, not the isolation (docs/shared-server.md, worlds over several processes).
 */
const PACE_MS = 2_000;

/** One bystander round: an account (6 events), its clock advanced 3 s, then settled; each call timed. */
async function bystanderRound(base: string, b: Tenant): Promise<Round> {
  const start = now();
  await call(base, 'bystander', 'POST', '/v1/accounts', { key: b.api_key, body: {} });
  const t0_ms = Date.now();
  const t0 = now();
  await call(base, 'bystander', 'POST', '/_sim/clock/advance', { body: { ms: 3_000, organization_id: b.organization_id } });
  const advance_ms = now() - t0;
  const t1 = now();
  await call(base, 'bystander', 'POST', '/_sim/clock/settle', { body: { max_ms: 60_000, organization_id: b.organization_id } });
  const settle_ms = now() - t1;
  await call(base, 'bystander', 'GET', '/v1/accounts?limit=5', { key: b.api_key });
  await sleep(Math.max(0, start + ROUND_MIN_MS - now()));
  return { t0_ms, advance_ms, settle_ms };
}

/** A raw request: `head` then `body`; resolves with the status line's code, or 0 when the server closed first. */
function raw(url: string, head: string, body: string, hold_ms = 0): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((ok) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', () => undefined);
    socket.on('close', () => ok(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
    socket.write(head + body);
    if (hold_ms > 0) setTimeout(() => socket.destroy(), hold_ms).unref();
  });
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const samples: Sample[] = [];
  const server = await startSampledServer(samples, ['--clock', 'virtual']);
  const base = server.url;
  const receivers = {} as Record<'hang' | 'fail' | 'slow', { url: string; close(): Promise<void>; received(): Promise<number> }>;
  for (const [k, answer] of [
    ['hang', 'hang'],
    ['fail', 500],
    ['slow', 'slow'],
  ] as Array<['hang' | 'fail' | 'slow', ReceiverAnswer]>)
    receivers[k] = await startReceiver('process', answer);
  const rx = await recordingReceiver();
  const churn_rx = await recordingReceiver();
  const bystander = await tenant(base, 'bystander', 'virtual', `${rx.url}/bystander`);

  // Alone (after two rounds unmeasured: the first ones pay for compiling the paths they take).
  for (let i = 0; i < 2; i++) await bystanderRound(base, bystander);
  const alone: Round[] = [];
  for (let i = 0; i < o.rounds_alone; i++) alone.push(await bystanderRound(base, bystander));

  // The crowd.
  let running = true;
  const deletes = new Map<string, number>();
  let deletes_done = 0;
  const hostile: Array<Promise<void>> = [];
  const loop = (fn: () => Promise<void>) =>
    hostile.push(
      (async () => {
        while (running) await fn().catch(() => sleep(100));
      })(),
    );
  const kinds = ['hang', 'slow', 'fail', 'wrong-keys', 'oversized', 'unfinished', 'churn', 'server-clock'] as const;
  const BIG = String(100 * 1024 * 1024);
  for (let i = 0; i < o.hostile; i++) {
    const kind = kinds[i % kinds.length]!;
    if (kind === 'hang' || kind === 'slow' || kind === 'fail') {
      const t = await tenant(base, 'hostile', kind === 'fail' ? 'realtime' : 'virtual', receivers[kind].url);
      loop(async () => {
        await call(base, 'hostile', 'POST', '/v1/accounts', { key: t.api_key, body: {} });
        // Clock jumps of an hour on its own clock (the realtime one jumps too).
        await call(base, 'hostile', 'POST', '/_sim/clock/advance', { body: { ms: 3_600_000, organization_id: t.organization_id } });
        await sleep(PACE_MS);
      });
    } else if (kind === 'wrong-keys') {
      loop(async () => {
        await call(base, 'hostile', 'GET', '/v1/accounts', { key: `sk_wrong_${Math.random().toString(36).slice(2)}` });
        await sleep(50);
      });
    } else if (kind === 'oversized') {
      loop(async () => {
        const s = await raw(
          base,
          `POST /v1/accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${BIG}\r\n\r\n`,
          '{"label":',
        );
        count('hostile', s);
        await sleep(200);
      });
    } else if (kind === 'unfinished') {
      loop(async () => {
        // Held until the server's body timeout answers 408 (request_body_timeout_ms, 20 s by default).
        const s = await raw(
          base,
          'POST /v1/accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
          '{"label":"never',
          60_000,
        );
        count('hostile', s);
      });
    } else if (kind === 'churn') {
      loop(async () => {
        const t = await tenant(base, 'hostile', 'virtual', `${churn_rx.url}/churn`);
        await call(base, 'hostile', 'POST', '/v1/accounts', { key: t.api_key, body: {} });
        // Deliveries queued, then the tenant goes while its clock is being moved.
        const moving = call(base, 'hostile', 'POST', '/_sim/clock/advance', { body: { ms: 3_000, organization_id: t.organization_id } });
        await sleep(50);
        const d = await call(base, 'hostile', 'DELETE', `/_sim/organizations/${t.organization_id}`);
        // The wall time the 200 was read: an attempt the server stamped later was made after it answered.
        if (d.status === 200 && t.webhook_id) deletes.set(t.webhook_id, Date.now());
        deletes_done++;
        await moving;
        await sleep(PACE_MS);
      });
    } else {
      const t = await tenant(base, 'hostile', null, receivers.hang.url);
      loop(async () => {
        await call(base, 'hostile', 'POST', '/v1/accounts', { key: t.api_key, body: {} });
        // Jumps the server's clock (shared by tenants without a clock of their own; not the bystander's).
        await call(base, 'hostile', 'POST', '/_sim/clock/advance', { body: { ms: 3_600_000 } });
        await sleep(PACE_MS);
      });
    }
  }
  await sleep(3_000);
  const crowd: Round[] = [];
  const until = now() + o.duration_s * 1000;
  while (now() < until) crowd.push(await bystanderRound(base, bystander));
  running = false;
  await Promise.race([Promise.all(hostile), sleep(30_000)]);
  await sleep(2_000);

  // Judged by the attempt's own stamp (Svc-Timestamp, the server's wall time), not by arrival: a POST the server
  // sent before its 200 may be read here after the 200 (they cross), and that is no delivery after a delete.
  const churned = (await churn_rx.arrivals()).filter((a) => deletes.has(a.webhook_id));
  const after_delete = churned.filter((a) => a.stamp_ms > deletes.get(a.webhook_id)!).length;
  const crossed = churned.length - after_delete;
  // Each bystander delivery belongs to the last round whose advance was sent before it arrived.
  const arrived = (await rx.arrivals()).map((a) => a.at_ms);
  const all = [...alone, ...crowd];
  const latencies = (rounds: Round[]): number[] => {
    const out: number[] = [];
    for (const r of rounds) {
      const i = all.indexOf(r);
      const end = i + 1 < all.length ? all[i + 1]!.t0_ms : Number.POSITIVE_INFINITY;
      for (const at of arrived) if (at >= r.t0_ms && at < end) out.push(at - r.t0_ms);
    }
    return out;
  };
  const summary = (rounds: Round[]) => {
    const lat = latencies(rounds);
    return {
      rounds: rounds.length,
      deliveries: lat.length,
      delivery_p50_ms: r1(pct(lat, 50)),
      delivery_p99_ms: r1(pct(lat, 99)),
      advance_median_ms: r1(
        pct(
          rounds.map((r) => r.advance_ms),
          50,
        ),
      ),
      advance_p99_ms: r1(
        pct(
          rounds.map((r) => r.advance_ms),
          99,
        ),
      ),
      settle_median_ms: r1(
        pct(
          rounds.map((r) => r.settle_ms),
          50,
        ),
      ),
      settle_p99_ms: r1(
        pct(
          rounds.map((r) => r.settle_ms),
          99,
        ),
      ),
    };
  };
  const a = summary(alone);
  const c = summary(crowd);
  const rss = samples.map((s) => s.rss_mb);
  const half = samples.slice(Math.floor(samples.length / 2));
  const fivexx = (m: Map<number, number>) => [...m].filter(([s]) => s >= 500).reduce((n, [, k]) => n + k, 0);
  const report = {
    hostile_tenants: o.hostile,
    duration_s: o.duration_s,
    alone: a,
    crowd: c,
    advance_crowd_over_alone: r1(c.advance_median_ms / a.advance_median_ms),
    settle_crowd_over_alone: r1(c.settle_median_ms / a.settle_median_ms),
    bystander_429s: statuses.bystander.get(429) ?? 0,
    bystander_statuses: Object.fromEntries(statuses.bystander),
    hostile_statuses: Object.fromEntries(statuses.hostile),
    server_5xx: fivexx(statuses.bystander) + fivexx(statuses.hostile),
    churned_deleted: deletes_done,
    deliveries_after_delete: after_delete,
    deleted_tenants_deliveries_stamped_before_their_delete: crossed,
    bystander_unearned_429s: unearned.slice(0, 5),
    server_event_loop_p99_ms: {
      median: r1(
        pct(
          samples.map((s) => s.eld_p99_ms),
          50,
        ),
      ),
      max: r1(Math.max(...samples.map((s) => s.eld_p99_ms))),
    },
    server_event_loop_max_ms: r1(Math.max(...samples.map((s) => s.eld_max_ms))),
    rss_mb: {
      start: r1(rss[0] ?? 0),
      max: r1(Math.max(...rss)),
      end: r1(rss.at(-1) ?? 0),
      second_half_min: r1(Math.min(...half.map((s) => s.rss_mb))),
      second_half_max: r1(Math.max(...half.map((s) => s.rss_mb))),
    },
    rss_every_10s_mb: samples.filter((_, i) => i % 10 === 0).map((s) => Math.round(s.rss_mb)),
    org_worlds_at_end: samples.at(-1)?.org_worlds ?? null,
  };
  console.log(JSON.stringify(report, null, 2));
  console.log(
    `bystander delivery p99 ${c.delivery_p99_ms} ms (alone ${a.delivery_p99_ms}); advance median ${c.advance_median_ms} ms vs ${a.advance_median_ms} alone (×${report.advance_crowd_over_alone}); ` +
      `settle median ${c.settle_median_ms} ms vs ${a.settle_median_ms} (×${report.settle_crowd_over_alone}); bystander 429s ${report.bystander_429s}; ` +
      `deliveries after a delete ${after_delete} (of ${deletes_done} deletes); 5xx ${report.server_5xx}; RSS ${report.rss_mb.start} → ${report.rss_mb.end} MB (max ${report.rss_mb.max})`,
  );
  await rx.close();
  await churn_rx.close();
  for (const r of Object.values(receivers)) await r.close();
  await server.stop();
}

await main();
