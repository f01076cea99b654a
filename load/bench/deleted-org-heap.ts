// What a deleted organization's webhook deliveries still hold: on a virtual clock (deterministic, whatever the
// machine's load), a bystander organization and then a measured one, each with a webhook whose receiver answers
// 500, so every delivery waits for its retry; the live heap per account before and after the measured one is
// deleted, and the scheduler's slots still holding a closure. `node --expose-gc --import tsx
// load/bench/deleted-org-heap.ts [accounts, default 1500]`.
import { createServer } from 'node:http';
import { startTestSim } from '../../fake-provider/testing/harness.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run node with --expose-gc');
const accounts = Number(process.argv[2] ?? 1500);
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(500).end());
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
const sim = await startTestSim({ clock: 'virtual', seed: 'deleted-org-heap' });
const live = async (): Promise<number> => {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
  return process.memoryUsage().heapUsed;
};
const tenant = async (n: number, label: string): Promise<{ organization_id: string }> => {
  const org = await sim.newOrg();
  await sim.api('POST', '/webhooks', { key: org.api_key, body: { url: hook } });
  for (let i = 0; i < n; i++) await sim.api('POST', '/accounts', { key: org.api_key, body: { label: `${label}${i}` } });
  return org;
};
// The bystander's retries fall due first, so the deleted organization's cancelled ones sit behind live tasks.
await tenant(20, 'b');
await sim.advance(5_000);
const before = await live();
const org = await tenant(accounts, 'a');
// Wallets derived, first attempts and the 30 s retries failed (500): every delivery waits for its 2 min retry.
await sim.advance(45_000);
const held = await live();
await sim.control('DELETE', `/organizations/${org.organization_id}`);
await sim.advance(1_000);
const after = await live();
const scheduler = sim.running.runtime.world.sim.scheduler as unknown as {
  timers: { buckets(): Array<{ items: unknown[]; next: number }> };
};
let closures = 0;
for (const b of scheduler.timers.buckets())
  for (let i = b.next; i < b.items.length; i += 4) if ((b.items[i + 2] as { name: string }).name !== 'NOOP') closures++;
const kb = (bytes: number): number => Math.round(bytes / accounts / 102.4) / 10;
console.log(
  JSON.stringify({
    command: `node --expose-gc --import tsx load/bench/deleted-org-heap.ts ${accounts}`,
    accounts,
    live_kb_per_account: kb(held - before),
    after_delete_kb_per_account: kb(after - before),
    scheduler_closures_after_delete: closures,
  }),
);
await sim.close();
receiver.close();
