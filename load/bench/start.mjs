// The first-minute benchmark: wall time of `swapsim --help`, and of `swapsim serve` from spawn to its first
// 200 (GET /_sim/clock, answered by every version, polled every 10 ms). Median of N runs, one at a time.
// Run: `node load/bench/start.mjs [--runs=7] [--bin=bin/swapsim.js]`; figures go in docs/performance.md.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const runs = Number(arg('runs', '7'));
const bin = resolve(arg('bin', 'bin/swapsim.js'));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const sleep = (t) => new Promise((r) => setTimeout(r, t));

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
    s.on('error', fail);
  });
}

function helpOnce() {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
  if (r.status !== 0 || !r.stdout.includes('serve')) throw new Error(`--help failed: ${r.stderr}`);
  return ms(t0);
}

async function serveOnce() {
  const port = await freePort();
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, [bin, 'serve', '--port', String(port), '--clock', 'virtual'], { stdio: 'ignore' });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}`);
      try {
        const r = await fetch(`http://127.0.0.1:${port}/_sim/clock`);
        await r.arrayBuffer();
        if (r.status === 200) return ms(t0);
      } catch {
        /* not listening yet */
      }
      if (ms(t0) > 60_000) throw new Error('serve did not answer within 60 s');
      await sleep(10);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
  }
}

const help = [];
const serve = [];
for (let i = 0; i < runs; i++) help.push(helpOnce());
for (let i = 0; i < runs; i++) serve.push(await serveOnce());
const fmt = (xs) => `median ${median(xs).toFixed(0)} ms (runs ${xs.map((x) => x.toFixed(0)).join(', ')})`;
console.log(`swapsim --help:                 ${fmt(help)}`);
console.log(`swapsim serve to first 200:     ${fmt(serve)}`);
