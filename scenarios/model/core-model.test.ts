// Model-based property test over the service core: random sequences of account creation, deposit
// addresses, clean and flagged deposits, destination registration and suspension, webhook outages and
// clock advances, with the invariants checked after every step; then a settling phase after which every
// clean deposit is credited and every event was either delivered or is marked failed after 72 h.
// Runs: SWAPSIM_MODEL_RUNS (default 200); SWAPSIM_MODEL_SEED (+ SWAPSIM_MODEL_PATH) reruns a seed. A failure prints seed,
// path and the replayPath of the commands. SWAPSIM_PROGRESS_FILE: progress lines for scripts/soak.ts.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../../fake-provider/testing/harness.ts';
import { soakProgress } from '../../scripts/soak-progress.ts';
import { acceptedEventIds, startReceiver, type Receiver } from '../dsl/webhook-receiver.ts';
import { coreCommands, initialModel, type CoreModel, type CoreReal } from './index.ts';

const RUNS = Number(process.env.SWAPSIM_MODEL_RUNS ?? 200);
const SEED = process.env.SWAPSIM_MODEL_SEED ? Number(process.env.SWAPSIM_MODEL_SEED) : undefined;
/** With the seed, replays one failing case directly (the `path` a failure prints). */
const PATH = process.env.SWAPSIM_MODEL_PATH;

let sim: TestSim;
let receiver: Receiver;
beforeAll(async () => {
  sim = await startTestSim({ seed: 'model' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await sim.close();
  await receiver.close();
});

async function freshWorld(): Promise<CoreModel> {
  const reset = await sim.control('POST', '/reset');
  expect(reset.status).toBe(200);
  receiver.answer = (x) => (x.signature_valid ? 200 : 401);
  receiver.received = [];
  const hook = await sim.api('POST', '/webhooks', { body: { url: receiver.url } });
  expect(hook.status, JSON.stringify(hook.body)).toBe(200);
  receiver.secret = hook.body.webhook.secret;
  return initialModel(reset.body.clock.now_ms);
}

async function settleAndCompare(m: CoreModel, r: CoreReal): Promise<void> {
  r.receiver.answer = (x) => (x.signature_valid ? 200 : 401);
  await r.sim.settle(80 * 3_600_000);
  for (const a of m.accounts) {
    const res = await r.sim.api('GET', `/accounts/${a.account_id}/balances?limit=100`);
    for (const row of res.body.balances) {
      const clean = m.deposits
        .filter((d) => d.account_id === a.account_id && d.asset_key === row.asset_key && !d.flagged)
        .reduce((s, d) => s + d.atoms, 0n);
      expect(BigInt(row.available_atoms), `${a.account_id} ${row.asset_key}`).toBe(clean);
      expect(row.pending_atoms).toBe('0');
    }
  }
  // Every event was delivered (valid signature, 2xx) or its delivery is marked failed (exhausted).
  const feed: string[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await r.sim.api('GET', `/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    feed.push(...page.body.events.map((e: { event_id: string }) => e.event_id));
    cursor = page.body.next_cursor;
  } while (cursor);
  const hooks = (await r.sim.api('GET', '/webhooks')).body.webhooks;
  const failed = new Set<string>();
  for (const h of hooks) {
    let c: string | null = null;
    do {
      const page: any = await r.sim.api('GET', `/webhooks/${h.webhook_id}/deliveries?status=failed&limit=100${c ? `&cursor=${c}` : ''}`);
      for (const d of page.body.deliveries) failed.add(d.event_id);
      c = page.body.next_cursor;
    } while (c);
  }
  const accepted = acceptedEventIds(r.receiver);
  for (const id of feed) expect(accepted.has(id) || failed.has(id), `event ${id} neither delivered nor failed`).toBe(true);
  for (const id of accepted) expect(feed, `receiver got ${id}, not in the feed`).toContain(id);
  expect(
    r.receiver.received.every((x) => x.signature_valid),
    'every delivery carries a valid signature',
  ).toBe(true);
  const inv = await r.sim.invariants();
  expect(inv.violations).toEqual([]);
}

describe('service core model', () => {
  it(`keeps every invariant over random command sequences (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands(coreCommands(), { maxCommands: 25 }),
        soakProgress('core', async (cmds) => {
          const model = await freshWorld();
          const real: CoreReal = { sim, receiver };
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          await settleAndCompare(model, real);
        }),
      ),
      { numRuns: RUNS, seed: SEED, path: PATH, verbose: 1, includeErrorInReport: true },
    );
  });
});
