// What garbage collection costs a bench server at a fixed rate: `node --import tsx load/http-bench/gc-probe.ts
// <raw|express|swapsim> [--rate=2000] [--duration=8] [node flags…]` runs the server under --trace-gc-nvp, offers the
// open-loop rate (2 s warm-up, then the measured run) and prints latencies, young-generation collections (count,
// MB allocated and promoted, pauses) and full collections during the measured run.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fundAccounts } from './setup.ts';
import { openLoop } from './open-loop.ts';

const SERVERS = resolve(fileURLToPath(import.meta.url), '../servers');
const API_KEY = 'sk_bench_gc_probe_0123456789';
const kind = process.argv[2];
if (!['raw', 'express', 'swapsim'].includes(kind))
  throw new Error('usage: gc-probe.ts <raw|express|swapsim> [--rate=N] [--duration=S] [node flags…]');
const opt = (name: string, fallback: number): number =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const nodeFlags = process.argv.slice(3).filter((a) => !a.startsWith('--rate=') && !a.startsWith('--duration='));

const child = spawn(process.execPath, [...nodeFlags, '--trace-gc-nvp', '--import', 'tsx', resolve(SERVERS, `${kind}.ts`)], {
  env: { ...process.env, BENCH_API_KEY: API_KEY },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const gcLines: string[] = [];
let recording = false;
// The server announces its port as a JSON line among V8's trace lines.
const port = await new Promise<number>((done) =>
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line.startsWith('{')) done((JSON.parse(line) as { port: number }).port);
    else if (recording) gcLines.push(line);
  }),
);
const url = `http://127.0.0.1:${port}`;
let path = '/';
if (kind === 'swapsim') {
  const [a] = await fundAccounts({ url, api_key: API_KEY }, 1, 3);
  path = `/v1/accounts/${a.account_id}/balances`;
}
const load = { url: url + path, headers: { authorization: `Bearer ${API_KEY}` }, rate_per_s: opt('rate', 2000), connections: 10 };
await openLoop({ ...load, duration_s: 2 });
recording = true;
const r = await openLoop({ ...load, duration_s: opt('duration', 8) });
recording = false;
child.kill();

const young = gcLines.filter((l) => / gc=s /.test(l));
const field = (lines: string[], name: string): number[] => lines.map((l) => Number(new RegExp(` ${name}=([\\d.]+)`).exec(l)?.[1] ?? 0));
const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);
const pauses = field(young, 'pause');
console.log(
  `${kind} at ${load.rate_per_s} req/s: latency ms ${JSON.stringify(r.latency_ms)}, ${r.answered} answered, ${r.non_2xx} non-2xx`,
);
console.log(
  `young-generation collections: ${young.length}, allocated ${mb(sum(field(young, 'allocated')))} MB, promoted ${mb(sum(field(young, 'promoted')))} MB, ` +
    `pause max ${Math.max(0, ...pauses)} ms, total ${sum(pauses).toFixed(0)} ms; full collections: ${gcLines.filter((l) => / gc=m/.test(l)).length}`,
);
