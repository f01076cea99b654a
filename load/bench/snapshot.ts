// `npm run bench:snapshot -- --trades 10000 [--after 1000]`: a benchmark, not a test. Fills a served world with N
// settled trades in process (the engine bench's client, as bench:ui does), then over HTTP: takes a snapshot
// (POST /_sim/snapshots: a structured copy of the world), sends the next --after requests (keyed account
// creations, account lists, trade reads, the event feed), restores the snapshot, sends them again and compares
// the answers byte for byte. Issue 31's target: snapshot and restore ≤ 1 s each at 10,000 trades. Also times
// the mechanisms the copy was chosen over, side by side on the same world: `structuredClone` and `v8.serialize`
// of the trades' table (they refuse the world as a whole: it holds functions and class instances).
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { deserialize, serialize } from 'node:v8';
import { serve } from '../../fake-provider/server.ts';
import { deepCopy } from '../../fake-provider/engine/copy.ts';
import { tradeStore } from '../../fake-provider/resources/trades/index.ts';
import { benchWorld, installReaction, land, SETTLE_BOUND_MS, tradeOutcomes } from './engine-world.ts';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

const BATCH = 1_000;

async function main(): Promise<void> {
  const trades = arg('trades', 10_000);
  const after = arg('after', 1_000);
  const running = await serve({ clock: 'virtual', seed: 'bench-snapshot', seed_orgs: [] });
  const t0 = performance.now();
  const bw = await benchWorld(200, 'bench-snapshot', running.runtime.world);
  // Rate limits are wall time: lifted, so that the answers after the snapshot and after the restore can match.
  bw.org.rate_limits = { reads: 1_000_000, writes: 1_000_000, indicative_rfqs: 1_000_000, firm_rfqs: 1_000_000 };
  installReaction(bw);
  for (let done = 0; done < trades; done += BATCH) {
    for (let i = 0; i < Math.min(BATCH, trades - done); i++) land(bw);
    await bw.world.sim.scheduler.settle(SETTLE_BOUND_MS);
  }
  const outcomes = tradeOutcomes(bw, bw.started);
  if (outcomes.settled !== trades) throw new Error(`world: ${JSON.stringify(outcomes)} of ${trades}`);
  const world = running.runtime.world;
  console.log(
    `world: ${trades} settled trades, ${world.events.all.length} events, ${world.transitions.length} transitions (filled in ${(
      (performance.now() - t0) / 1000
    ).toFixed(1)} s)`,
  );

  // Wall time, and this process's CPU time over the same call (client and server share the process): on a
  // shared machine the wall time moves with the load, the CPU time much less.
  const post = async (path: string): Promise<{ ms: number; cpu_ms: number; body: { snapshot_id?: string } }> => {
    const start = performance.now();
    const cpu = process.cpuUsage();
    const res = await fetch(running.control_url + path, { method: 'POST' });
    if (res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { snapshot_id?: string };
    const used = process.cpuUsage(cpu);
    return { ms: performance.now() - start, cpu_ms: (used.user + used.system) / 1000, body };
  };
  const headers = { authorization: 'Bearer sk_bench' };
  const next = async (): Promise<string[]> => {
    const answers: string[] = [];
    for (let i = 0; i < after; i++) {
      let res: Response;
      if (i % 4 === 0)
        res = await fetch(`${running.base_url}/accounts`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `after-${i}` },
          body: JSON.stringify({ label: `after-${i}` }),
        });
      else if (i % 4 === 1) res = await fetch(`${running.base_url}/accounts?limit=5`, { headers });
      else if (i % 4 === 2) res = await fetch(`${running.base_url}/trades/${bw.started[(i * 7919) % bw.started.length]}`, { headers });
      else res = await fetch(`${running.base_url}/events?limit=5`, { headers });
      answers.push(`${res.status} ${await res.text()}`);
    }
    return answers;
  };

  const taken = await post('/snapshots');
  const first = await next();
  const restored = await post(`/snapshots/${taken.body.snapshot_id}/restore`);
  const again = await next();
  const identical = first.filter((a, i) => a === again[i]).length;
  const ok = first.filter((a) => a.startsWith('200 ')).length;

  // The mechanisms the copy was chosen over, on the trades' table (plain objects, BigInts, nested settlements).
  const table = tradeStore(running.runtime.world).list;
  const timed = (fn: () => unknown): number => {
    const start = performance.now();
    fn();
    return performance.now() - start;
  };
  const copy_ms = timed(() => deepCopy(table));
  const clone_ms = timed(() => structuredClone(table));
  const serialize_ms = timed(() => deserialize(serialize(table)));
  await running.close();

  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  console.log(`load average: ${load} (${new Date().toISOString()})`);
  console.log(
    `snapshot (POST /_sim/snapshots, a copy of the world):  ${taken.ms.toFixed(0)} ms (CPU ${taken.cpu_ms.toFixed(0)} ms; target 1000)`,
  );
  console.log(
    `restore (POST …/restore, a copy of the snapshot):      ${restored.ms.toFixed(0)} ms (CPU ${restored.cpu_ms.toFixed(0)} ms; target 1000)`,
  );
  console.log(
    `the ${after} requests after the snapshot (${ok} answered 200), sent again after the restore: ${identical} of ${after} byte-identical`,
  );
  console.log(
    `the trades' table alone (${table.length} trades): deepCopy ${copy_ms.toFixed(0)} ms, structuredClone ${clone_ms.toFixed(0)} ms, v8 serialize+deserialize ${serialize_ms.toFixed(0)} ms`,
  );
  if (identical !== after || taken.ms > 1_000 || restored.ms > 1_000) process.exitCode = 1;
}

await main();
