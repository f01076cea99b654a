// What a world per organization costs (issue 26): `node --expose-gc --import tsx load/bench/org-worlds.ts [orgs,
// default 500]` (`npm run bench:org-worlds`). Two servers side by side in this process, one keeping organizations
// in its own world (`org_worlds: 'shared'`) and one giving each a world of its own that follows the server clock
// (`own`, the default): the live heap and wall ms per `POST /_sim/organizations`, then the wall ms of an unscoped
// `advance` of 1 s and of a `settle` with that many idle organizations (a follower's move is a scheduler run).
// A benchmark, not a test: the figures follow the machine's load.
import { startTestSim, type TestSim } from '../../fake-provider/testing/harness.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run node with --expose-gc');
const orgs = Number(process.argv[2] ?? 500);
const live = async (): Promise<number> => {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
  return process.memoryUsage().heapUsed;
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(mode: 'own' | 'shared'): Promise<Record<string, number>> {
  const sim: TestSim = await startTestSim({ clock: 'virtual', seed: 'org-worlds', org_worlds: mode });
  // Warm the route and the world's code before measuring.
  for (let i = 0; i < 20; i++) await sim.newOrg();
  const before = await live();
  const create_ms: number[] = [];
  for (let i = 0; i < orgs; i++) {
    const t = performance.now();
    await sim.newOrg();
    create_ms.push(performance.now() - t);
  }
  const after = await live();
  const advance_ms: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await sim.advance(1_000);
    advance_ms.push(performance.now() - t);
  }
  const t = performance.now();
  await sim.settle();
  const settle_ms = performance.now() - t;
  await sim.close();
  return {
    bytes_per_org: Math.round((after - before) / orgs),
    create_ms_median: Number(median(create_ms).toFixed(2)),
    advance_ms_median: Number(median(advance_ms).toFixed(1)),
    settle_ms: Number(settle_ms.toFixed(1)),
  };
}

// Alternated, twice each, so both see the same machine.
const rows: Array<Record<string, unknown>> = [];
for (const mode of ['shared', 'own', 'shared', 'own'] as const) rows.push({ mode, orgs, ...(await measure(mode)) });
console.table(rows);
