// `npm run bench`: runs the HTTP self-benchmark, prints the table and the targets, and writes the
// BenchResult to reports/out/<stamp>-bench/report.json. Flags (or env) size the runs; see --help.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { mkdirSync } from 'node:fs';
import { outputDir, writeReportJson } from '../../reports/output.ts';
import { createProgress } from '../../reports/progress.ts';
import { writeReport } from '../../reports/index.ts';
import {
  BASE_CASE,
  CASE_IDS,
  DEFAULT_OPTIONS,
  KNOWN_CASES,
  runBench,
  type BenchCaseDetail,
  type BenchOptions,
  type CaseId,
} from './bench.ts';
import { describeSpread } from './pairs.ts';

const HELP = `npm run bench -- [options]
  --duration <s>     measured seconds per case (env BENCH_DURATION_S, default ${DEFAULT_OPTIONS.duration_s})
  --connections <n>  autocannon connections (env BENCH_CONNECTIONS, default ${DEFAULT_OPTIONS.connections})
  --warmup <s>       untimed warm-up per case (env BENCH_WARMUP_S, default ${DEFAULT_OPTIONS.warmup_s})
  --rate <n>         offered req/s of the fixed-rate case (env BENCH_RATE, default ${DEFAULT_OPTIONS.rate_per_s})
  --fixed-connections <n>  connections of the fixed-rate cases (env BENCH_FIXED_CONNECTIONS, default ${DEFAULT_OPTIONS.fixed_connections})
  --repeat <n>       rounds, each measuring every case once, the read between raw and express, the order reversed
                     every other round; req/s are medians over rounds, ratios the median of each round's ratio
                     with its spread (env BENCH_REPEAT, default ${DEFAULT_OPTIONS.repeat})
  --credits <n>      credit pool of the mixed case (default: 1,500 per second of load, over every round)
  --client-sched <batch|normal>  how the load generators are scheduled (env BENCH_CLIENT_SCHED, default ${DEFAULT_OPTIONS.client_sched}):
                     batch (chrt -b) never preempts the server it measures when an answer wakes it; see docs/performance.md
  --pin <on|off>     every server on one CPU, every load generator on another (taskset -c; env BENCH_PIN,
                     default on; nothing is pinned where taskset or a second CPU is missing, and the report says so)
  --cases <list>     comma list of ${CASE_IDS.join(', ')} (default all), or ${BASE_CASE} (needs --base)
  --base <dir>       another swapsim checkout (with its node_modules): adds case ${BASE_CASE}, the same read served
                     by that checkout, measured in the same rounds right after the read (read/${BASE_CASE}: a change's effect)
  --cpu-prof <dir>   profile each swapsim server child with node --cpu-prof into <dir>`;

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got ${raw}`);
  return n;
}

function options(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string' },
      connections: { type: 'string' },
      warmup: { type: 'string' },
      rate: { type: 'string' },
      'fixed-connections': { type: 'string' },
      repeat: { type: 'string' },
      credits: { type: 'string' },
      cases: { type: 'string' },
      'client-sched': { type: 'string' },
      pin: { type: 'string' },
      base: { type: 'string' },
      'cpu-prof': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const env = process.env;
  const cases = (values.cases ?? CASE_IDS.join(',')).split(',').map((s) => s.trim()) as CaseId[];
  const base_dir = values.base ? resolve(values.base) : undefined;
  if (base_dir && !cases.includes(BASE_CASE)) cases.push(BASE_CASE);
  const unknown = cases.filter((c) => !KNOWN_CASES.includes(c));
  if (unknown.length > 0) throw new Error(`unknown case(s) ${unknown.join(', ')}; known: ${KNOWN_CASES.join(', ')}`);
  const cpu_prof_dir = values['cpu-prof'] ? resolve(values['cpu-prof']) : undefined;
  if (cpu_prof_dir) mkdirSync(cpu_prof_dir, { recursive: true });
  const warmup = values.warmup ?? env.BENCH_WARMUP_S;
  const client_sched = values['client-sched'] ?? env.BENCH_CLIENT_SCHED ?? DEFAULT_OPTIONS.client_sched;
  if (client_sched !== 'batch' && client_sched !== 'normal') throw new Error(`--client-sched must be batch or normal, got ${client_sched}`);
  const pin = values.pin ?? env.BENCH_PIN ?? (DEFAULT_OPTIONS.pin ? 'on' : 'off');
  if (pin !== 'on' && pin !== 'off') throw new Error(`--pin must be on or off, got ${pin}`);
  return {
    duration_s: positive('duration', values.duration ?? env.BENCH_DURATION_S, DEFAULT_OPTIONS.duration_s),
    connections: Math.round(positive('connections', values.connections ?? env.BENCH_CONNECTIONS, DEFAULT_OPTIONS.connections)),
    warmup_s: warmup === '0' ? 0 : positive('warmup', warmup, DEFAULT_OPTIONS.warmup_s),
    rate_per_s: positive('rate', values.rate ?? env.BENCH_RATE, DEFAULT_OPTIONS.rate_per_s),
    fixed_connections: Math.round(
      positive('fixed-connections', values['fixed-connections'] ?? env.BENCH_FIXED_CONNECTIONS, DEFAULT_OPTIONS.fixed_connections),
    ),
    repeat: Math.round(positive('repeat', values.repeat ?? env.BENCH_REPEAT, DEFAULT_OPTIONS.repeat)),
    cases,
    client_sched,
    pin: pin === 'on',
    ...(base_dir ? { base_dir } : {}),
    ...(values.credits !== undefined ? { credits: Math.round(positive('credits', values.credits, 0)) } : {}),
    cpu_prof_dir,
    command: `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`,
  };
}

const pad = (s: string | number, n: number, left = false): string => (left ? String(s).padEnd(n) : String(s).padStart(n));

export function table(cases: BenchCaseDetail[], ratios: Record<string, number>): string {
  const lines = [
    `${pad('case', 42, true)} ${pad('req/s', 8)} ${pad('p50 ms', 8)} ${pad('p99 ms', 8)} ${pad('errors', 7)} ${pad('÷ express', 9)} ${pad('÷ raw', 7)} ${pad('cpu µs/req', 10)} ${pad('preempt/req', 11)} ${pad('client µs/req', 13)} ${pad('busy srv/cli', 12)}`,
  ];
  for (const c of cases) {
    const name = c.offered_rate_per_s ? `${c.name} @ ${c.offered_rate_per_s}/s` : c.name;
    const key = c.offered_rate_per_s ? undefined : c.id;
    const vsExpress = key && ratios[`${key}/express`] !== undefined ? ratios[`${key}/express`].toFixed(2) : '';
    const vsRaw = key && ratios[`${key}/raw`] !== undefined ? ratios[`${key}/raw`].toFixed(2) : '';
    lines.push(
      `${pad(name, 42, true)} ${pad(c.requests_per_s, 8)} ${pad(c.latency_p50_ms, 8)} ${pad(c.latency_p99_ms, 8)} ${pad(c.errors, 7)} ${pad(vsExpress, 9)} ${pad(vsRaw, 7)} ${pad(c.server_cpu_us_per_request ?? '', 10)} ${pad(c.server_preemptions_per_request ?? '', 11)} ${pad(c.client_cpu_us_per_request ?? '', 13)} ${pad(c.server_busy !== undefined ? `${c.server_busy.toFixed(2)}/${c.client_busy?.toFixed(2) ?? '-'}` : '', 12)}`,
    );
    if (c.note) lines.push(`  note: ${c.note}`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const o = options(process.argv.slice(2));
  const progress = createProgress({ label: 'bench', total: o.cases.length, every_ms: 0 });
  progress.tick({ done: 0, note: `${o.duration_s}s × ${o.repeat} per case, c=${o.connections}` });
  const result = await runBench({ ...o, onCaseDone: (done, _total, name) => progress.tick({ done, note: name }) });
  progress.done();
  const dir = outputDir('bench');
  const path = writeReportJson(dir, result);
  console.log(table(result.cases, result.ratios));
  for (const [key, s] of Object.entries(result.ratio_spreads)) {
    if (!key.startsWith('read/')) continue;
    console.log(`${key} req/s, per round: ${describeSpread(s)} [${s.per_round.join(', ')}]`);
    const cpu = result.cpu_ratio_spreads[key];
    if (cpu) console.log(`${key} per server CPU-second, per round: ${describeSpread(cpu)} [${cpu.per_round.join(', ')}]`);
  }
  for (const t of result.targets ?? []) console.log(`target ${t.ok ? 'MET   ' : 'MISSED'} ${t.label}: ${t.value} (${t.target})`);
  console.log(`machine: ${result.machine.cpus} cpus, node ${result.machine.node}`);
  console.log(`client: ${result.client.generator}, scheduled ${result.client.sched}`);
  console.log(`placement: ${result.placement}`);
  console.log(`report: ${path}`);
  console.log(`page:   ${await writeReport(dir)}`);
  if (o.cpu_prof_dir) console.log(`cpu profiles: ${o.cpu_prof_dir}`);
  // Errors make the run worthless as a measurement: say so in the exit status.
  if (result.cases.some((c) => c.errors > 0)) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
