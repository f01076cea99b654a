// Profiles the engine's hot path only (world setup excluded): `node --expose-gc --import tsx
// load/bench/profile.ts [batch|lifecycle] [--n=2000] [--runs=5] [--out=file.cpuprofile]` writes a V8 CPU
// profile of the measured part (`--no-prof`: none) and prints wall and CPU throughput.
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { benchWorld, installReaction, land, lifecycle, SETTLE_BOUND_MS } from './engine-world.ts';

const arg = (name: string, fallback: string): string => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? hit.slice(name.length + 3) : fallback;
};
const mode = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : 'batch';
const n = Number(arg('n', '2000'));
const runs = Number(arg('runs', '5'));
const out = arg('out', `/tmp/engine-${mode}.cpuprofile`);

const bw = await benchWorld(200, `profile-${mode}`);
if (mode === 'batch') installReaction(bw);
const profiling = !process.argv.includes('--no-prof');
const session = new Session();
if (profiling) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
}
const t0 = performance.now();
const cpu0 = process.cpuUsage();
for (let r = 0; r < runs; r++) {
  if (mode === 'batch') {
    for (let i = 0; i < n; i++) land(bw);
    await bw.world.sim.scheduler.settle(SETTLE_BOUND_MS);
  } else {
    for (let i = 0; i < n; i++) await lifecycle(bw);
  }
}
const wall_ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const cpu_ms = (cpu.user + cpu.system) / 1000;
if (profiling) {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(out, JSON.stringify(profile));
}
const total = runs * n;
console.log(
  `${mode}: ${total} lifecycles, wall ${wall_ms.toFixed(0)} ms = ${((total * 1000) / wall_ms).toFixed(0)}/s, ` +
    `cpu ${cpu_ms.toFixed(0)} ms = ${((total * 1000) / cpu_ms).toFixed(0)}/s of cpu${profiling ? `; profile ${out}` : ''}`,
);
