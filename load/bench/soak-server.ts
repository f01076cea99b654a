// The soak bench's server: swapsim on a realtime clock (no organizations: the driver creates them), in its
// own process, printing `{"port"}` once listening and then one JSON sample per second: RSS, heap, event-loop
// delay (p99 and max since the last sample), clock lag (wall time elapsed minus sim time elapsed) and the
// webhook lanes' in-flight and queued POSTs, events and transitions held. `--profile JSON` sets profile keys.
// Run with `node --expose-gc` (soak.ts `--live-heap`), it collects fully every 20 s and samples the live heap.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { serve } from '../../fake-provider/server.ts';
import { boundHeapGrowth, HEAP_GROWTH_PERCENT_DEFAULT } from '../../cli/heap.ts';
import { webhookStore } from '../../fake-provider/resources/webhooks/index.ts';
import { idempotencyRecords } from '../../fake-provider/http/idempotency.ts';
import { idempotencyLedgerSize } from '../../fake-provider/oracle/idempotency-ledger.ts';
import { announce, closeOnSignal } from '../http-bench/servers/ready.ts';
import { profileFromJson } from '../../fake-provider/profiles/index.ts';
import { accountStore } from '../../fake-provider/resources/accounts/model.ts';
import { creditStore } from '../../fake-provider/resources/credits/model.ts';
import { depositStore } from '../../fake-provider/resources/deposits/model.ts';
import { rfqStore } from '../../fake-provider/resources/rfqs/model.ts';
import type { World } from '../../fake-provider/world.ts';

const at = process.argv.indexOf('--profile');
const profile = at >= 0 ? profileFromJson(JSON.parse(process.argv[at + 1]), 'soak') : undefined;
// `--clock virtual`: the tenants bench (tenants.ts), whose tenants have clocks of their own.
const clock = process.argv.includes('--clock') ? (process.argv[process.argv.indexOf('--clock') + 1] as 'virtual' | 'realtime') : 'realtime';
// `--promoted-prof FILE`: a sampling allocation profile of what survives young-generation collections (what
// scavenges promote, whether it dies later in old space or lives on), written to FILE on SIGTERM; read it with
// `node load/bench/alloc-sites.mjs FILE`. Objects that die young are left out: they cost RSS nothing.
const prof_at = process.argv.indexOf('--promoted-prof');
if (prof_at >= 0) startPromotedProfile(process.argv[prof_at + 1]);
// As `swapsim serve` does (cli/main.ts): its heap growth bound, the CLI's default unless `--heap-growth-percent N`.
const growth_at = process.argv.indexOf('--heap-growth-percent');
boundHeapGrowth(growth_at >= 0 ? Number(process.argv[growth_at + 1]) : HEAP_GROWTH_PERCENT_DEFAULT);
const running = await serve({ clock, seed: 'soak', port: 0, profile });
announce(running.server);
closeOnSignal(() => running.close());

/** `--expose-gc`: a full collection every 20 s, so that sample's `live_heap_mb` is what the world holds. */
const gc = (globalThis as { gc?: () => void }).gc;
let samples_taken = 0;

const eld = monitorEventLoopDelay({ resolution: 10 });
eld.enable();
const wall_start_ms = Date.now();
const sim_start_ms = running.runtime.world.sim.now_ms();
setInterval(() => {
  const world = running.runtime.world;
  // Every organization lives in a world of its own (worlds.ts): what the server holds is every world's sum.
  const worlds = [world, ...[...running.runtime.worlds.values()].map((h) => h.world)];
  const sum = (f: (w: World) => number): number => worlds.reduce((n, w) => n + f(w), 0);
  const collected = gc !== undefined && samples_taken++ % 20 === 0;
  if (collected) gc();
  const mem = process.memoryUsage();
  const outbox = (w: World) => (w.stores.has('webhooks') ? webhookStore(w).transport.outbox.stats() : { in_flight: 0, queued: 0 });
  const lanes = { in_flight: sum((w) => outbox(w).in_flight), queued: sum((w) => outbox(w).queued) };
  const sample = {
    t_s: (Date.now() - wall_start_ms) / 1000,
    rss_mb: mem.rss / 2 ** 20,
    heap_mb: mem.heapUsed / 2 ** 20,
    live_heap_mb: collected ? mem.heapUsed / 2 ** 20 : null,
    // What RSS is made of: V8's spaces (committed, MB) and memory outside the heap (Buffers, ArrayBuffers).
    heap_total_mb: mem.heapTotal / 2 ** 20,
    external_mb: mem.external / 2 ** 20,
    array_buffers_mb: mem.arrayBuffers / 2 ** 20,
    spaces_mb: spaces(),
    eld_p99_ms: eld.percentile(99) / 1e6,
    eld_max_ms: eld.max / 1e6,
    lag_ms: Date.now() - wall_start_ms - (world.sim.now_ms() - sim_start_ms),
    webhook_in_flight: lanes.in_flight,
    webhook_queued: lanes.queued,
    idempotency_records: sum(idempotencyRecords),
    // Organizations in worlds of their own (worlds.ts): every one created at run time.
    org_worlds: running.runtime.worlds.size,
    events: sum((w) => w.events.all.length),
    transitions: sum((w) => w.transitions.length),
    held: sumHeld(worlds.map(held)),
  };
  eld.reset();
  process.stdout.write(`${JSON.stringify({ sample })}\n`);
}, 1_000).unref();

function startPromotedProfile(file: string): void {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.enable');
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 32 * 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: false,
  });
  // Registered before closeOnSignal's handler, so the profile is written before the server closes.
  process.once('SIGTERM', () =>
    session.post('HeapProfiler.stopSampling', (err, res) => {
      if (!err) writeFileSync(file, JSON.stringify(res.profile));
    }),
  );
}

/** Each V8 heap space's committed size in MB (old, new, large objects, code…): which of them RSS follows. */
function spaces(): Record<string, number> {
  return Object.fromEntries(
    getHeapSpaceStatistics().map((s) => [s.space_name.replace(/_space$/, ''), Math.round(s.physical_space_size / 2 ** 16) / 16]),
  );
}

/** Several worlds' holdings added up, store by store. */
function sumHeld(each: Array<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const h of each) for (const [k, n] of Object.entries(h)) out[k] = (out[k] ?? 0) + n;
  return out;
}

/** Entities the world holds, store by store: what a growing RSS is made of (or not). */
function held(world: World): Record<string, number> {
  const size = (name: string, f: () => number): [string, number] => [name, world.stores.has(name) ? f() : 0];
  return Object.fromEntries([
    ['orgs', world.orgs.size],
    size('accounts', () => accountStore(world).list.length),
    size('credits', () => creditStore(world).list.length),
    size('deposits', () => depositStore(world).list.length),
    size('rfqs', () => rfqStore(world).rfqs.size),
    size('quotes', () => rfqStore(world).quotes.size),
    size('webhooks', () => webhookStore(world).deliveryList.length),
    size('conduct', () => (world.stores.get('conduct') as Map<string, unknown>).size),
    ['idempotency-ledger', idempotencyLedgerSize(world)],
    ['scheduler_pending', world.sim.scheduler.pending()],
  ]);
}
