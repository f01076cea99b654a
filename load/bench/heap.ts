// Where the engine's live heap goes: builds N settled trades (batches as in the memory benchmark), then
// writes a heap snapshot and prints self size by constructor/type, per trade. `node --expose-gc --import
// tsx load/bench/heap.ts [--trades=10000] [--out=/tmp/engine.heapsnapshot]`.
import { writeHeapSnapshot } from 'node:v8';
import { readFileSync } from 'node:fs';
import { benchWorld, installReaction, land, SETTLE_BOUND_MS } from './engine-world.ts';

const arg = (name: string, fallback: string): string => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? hit.slice(name.length + 3) : fallback;
};
const trades = Number(arg('trades', '10000'));
const out = arg('out', '/tmp/engine.heapsnapshot');

const bw = await benchWorld(200, 'bench-memory');
installReaction(bw);
for (let done = 0; done < trades; done += 5000) {
  for (let i = 0; i < Math.min(5000, trades - done); i++) land(bw);
  await bw.world.sim.scheduler.settle(SETTLE_BOUND_MS);
}
(globalThis as { gc?: () => void }).gc?.();
writeHeapSnapshot(out);

// Aggregate self sizes by (type, name) from the snapshot's flat node array.
const snap = JSON.parse(readFileSync(out, 'utf8'));
const f = snap.snapshot.meta.node_fields as string[];
const types = snap.snapshot.meta.node_types[0] as string[];
const [iType, iName, iSize, width] = [f.indexOf('type'), f.indexOf('name'), f.indexOf('self_size'), f.length];
const nodes = snap.nodes as number[];
const strings = snap.strings as string[];
const agg = new Map<string, { n: number; bytes: number }>();
let total = 0;
for (let i = 0; i < nodes.length; i += width) {
  const type = types[nodes[i + iType]];
  const name =
    type === 'string' || type === 'concatenated string' || type === 'sliced string'
      ? ''
      : type === 'number'
        ? ''
        : strings[nodes[i + iName]].slice(0, 60);
  const key = `${type} ${name}`;
  const a = agg.get(key) ?? { n: 0, bytes: 0 };
  a.n++;
  a.bytes += nodes[i + iSize];
  total += nodes[i + iSize];
  agg.set(key, a);
}
console.log(`trades ${bw.started.length}, heap snapshot total ${(total / 2 ** 20).toFixed(1)} MiB, ${(total / trades).toFixed(0)} B/trade`);
for (const [k, a] of [...agg].sort((x, y) => y[1].bytes - x[1].bytes).slice(0, 40)) {
  console.log(`${(a.bytes / trades).toFixed(0).padStart(6)} B/trade ${(a.n / trades).toFixed(2).padStart(7)} obj/trade  ${k}`);
}
