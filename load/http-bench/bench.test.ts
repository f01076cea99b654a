// The bench harness itself (not speed: no timing assertions): every case runs briefly against real child
// servers and yields a well-formed BenchResult whose swapsim answers were all 2xx; a wrong key is counted.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { outputDir, writeReportJson } from '../../reports/output.ts';
import { bottleneck, CASE_IDS, runBench, type BenchOptions } from './bench.ts';
import { batchAvailable } from './client.ts';
import { cpusAllowed, placementFor } from './placement.ts';

const TINY: BenchOptions = {
  duration_s: 1,
  connections: 2,
  warmup_s: 0,
  rate_per_s: 50,
  fixed_connections: 2,
  repeat: 1,
  client_sched: 'batch',
  pin: true,
  cases: [...CASE_IDS],
  credits: 100,
  command: 'vitest',
};

describe('bottleneck', () => {
  it('says nothing of a server that had its CPU, and tells a client-bound case from a starved one', () => {
    expect(bottleneck([0.95, 0.97], [0.5, 0.6])).toBeUndefined();
    expect(bottleneck([0.6], [0.93])).toMatch(/^client-bound: the load generator used 0.93 of its CPU, the server 0.6/);
    expect(bottleneck([0.4], [0.45])).toMatch(/^starved: the server used 0.4 of its CPU and the load generator 0.45/);
    expect(bottleneck([], [0.9])).toBeUndefined();
  });
});

describe('npm run bench harness', () => {
  it('runs every case and reports req/s, latencies, ratios and targets, with no failed answer', async () => {
    const r = await runBench(TINY);
    expect(r.kind).toBe('bench');
    expect(r.machine.cpus).toBeGreaterThan(0);
    expect(r.cases.map((c) => c.id)).toEqual([...CASE_IDS]);
    for (const c of r.cases) {
      // A bench that measured 401s or 500s would be worthless: every answer was a 2xx, byte-exact for replays.
      expect(c.errors, `${c.name}: ${JSON.stringify(c.status_codes)} ${c.note ?? ''}`).toBe(0);
      expect(c.non_2xx).toBe(0);
      expect(c.transport_errors).toBe(0);
      expect(Object.keys(c.status_codes).every((code) => code.startsWith('2'))).toBe(true);
      expect(c.requests_per_s).toBeGreaterThan(0);
      expect(c.latency_p99_ms).toBeGreaterThanOrEqual(c.latency_p50_ms);
      // From /proc on Linux: the server's CPU and preemptions per answer, the client's CPU for closed loops.
      expect(c.server_cpu_us_per_request).toBeGreaterThan(0);
      expect(c.server_preemptions_per_request).toBeGreaterThanOrEqual(0);
      expect(Number.isFinite(c.server_preemptions_per_request)).toBe(true);
    }
    // Every closed-loop case was measured by a generator the kernel ran as asked (SCHED_BATCH where chrt exists).
    const sched = batchAvailable() ? 'batch' : 'normal';
    expect(r.client.sched).toBe(sched);
    for (const id of ['raw', 'fastify', 'express', 'read', 'replay', 'mixed'])
      expect(r.cases.find((c) => c.id === id)?.client_sched, id).toBe(sched);
    // Every server ran on one CPU and every generator on another, as the report says (where taskset exists).
    const where = placementFor(true);
    if (where.server_cpu !== undefined) {
      expect(r.placement).toBe(`pinned (taskset): every server on cpu ${where.server_cpu}, every client on cpu ${where.client_cpu}`);
      for (const c of r.cases) {
        expect(c.server_cpus, c.id).toBe(String(where.server_cpu));
        expect(c.client_cpus, c.id).toBe(String(where.client_cpu));
      }
    }
    // One round per case: the closed-loop ones back to back in one generator, the server's CPU read around each.
    expect(r.rounds).toHaveLength(1);
    expect(Object.keys(r.rounds[0]).sort()).toEqual([...CASE_IDS].sort());
    expect(r.rounds[0].read?.server_cpu_us_per_request).toBeGreaterThan(0);
    expect(r.cpu_ratio_spreads['read/raw'].n).toBe(1);
    // One round: each ratio is that round's, its spread a single value.
    expect(r.ratio_spreads['read/raw']).toMatchObject({ n: 1, median: r.ratios['read/raw'], min: r.ratios['read/raw'] });
    expect(r.cases.find((c) => c.id === 'read-fixed')?.offered_rate_per_s).toBe(50);
    expect(r.cases.find((c) => c.id === 'raw-fixed')?.offered_rate_per_s).toBe(50);
    // The fixed-rate target is read against the floor the machine allows (raw node:http at the same rate).
    expect(r.cases.find((c) => c.id === 'read-fixed')?.note).toMatch(
      /^open loop, 2 connections; raw node:http at the same rate: p99 \d+(\.\d+)? ms/,
    );
    for (const key of ['read/raw', 'read/express', 'replay/express', 'mixed/express', 'express/raw', 'fastify/raw', 'fastify/express'])
      expect(r.ratios[key]).toBeGreaterThan(0);
    expect(r.targets?.map((t) => t.label)).toEqual([
      '(a) balances read req/s vs express hello-world',
      '(a) balances read req/s vs raw node:http hello-world',
      '(a) balances read per server CPU-second vs raw node:http hello-world',
      '(a) p99 at 50 req/s (ms)',
    ]);
    for (const t of r.targets ?? []) expect(typeof t.ok).toBe('boolean');

    const path = writeReportJson(outputDir('bench', mkdtempSync(join(tmpdir(), 'swapsim-bench-'))), r);
    expect(JSON.parse(readFileSync(path, 'utf8')).cases).toHaveLength(CASE_IDS.length);
  }, 180_000);

  it('measures every round of the closed-loop cases, one ratio per round, with the read of a base checkout', async () => {
    // This checkout as its own base: the read-base case starts its server from the given folder.
    const r = await runBench({
      ...TINY,
      cases: ['raw', 'read-base'],
      repeat: 2,
      base_dir: fileURLToPath(new URL('../..', import.meta.url)),
    });
    expect(r.rounds).toHaveLength(2);
    for (const round of r.rounds) for (const id of ['raw', 'read-base'] as const) expect(round[id]?.requests_per_s).toBeGreaterThan(0);
    const spread = r.ratio_spreads['read-base/raw'];
    for (const [i, x] of r.rounds.entries())
      expect(spread.per_round[i]).toBeCloseTo(x['read-base']!.requests_per_s / x.raw!.requests_per_s, 2);
    expect(spread.n).toBe(2);
    expect(r.cpu_ratio_spreads['read-base/raw'].n).toBe(2);
    for (const c of r.cases) expect(c.errors).toBe(0);
  }, 60_000);

  it('counts every refused answer as an error (a wrong API key gives 401s, not figures)', async () => {
    const r = await runBench({ ...TINY, cases: ['read', 'mixed'], client_api_key: 'sk_bench_wrong', client_sched: 'normal', pin: false });
    for (const c of r.cases) expect(c.client_sched).toBe('normal');
    // Not pinned: server and client may run anywhere this process may.
    expect(r.placement).toBe('not pinned');
    for (const c of r.cases) expect(c.server_cpus).toBe(cpusAllowed()?.join(','));
    for (const c of r.cases) {
      expect(c.errors).toBeGreaterThan(0);
      expect(c.status_codes['401']).toBeGreaterThan(0);
    }
    expect(r.targets?.[0]).toBeUndefined();
  }, 120_000);
});
