// Model-based property test over the whole trading surface: random sequences of funded accounts, deposits
// (clean, flagged), destinations, indicative and firm RFQs, accepts (also of expired and indicative quotes),
// zaps from credits and from deposits (also mismatched and flagged), cancels, fault rules, price shocks,
// destination suspension and clock advances, with `/_sim/invariants` after every step; then a settling phase
// after which every operation is terminal, each credit was consumed by at most one of them (and is open
// when none succeeded), and available balances equal the open credits.
// Runs: SWAPSIM_TRADING_RUNS (default 300); SWAPSIM_TRADING_SEED (+ SWAPSIM_TRADING_PATH) reruns a seed. A failure prints seed, path
// and the replayPath of the commands. SWAPSIM_PROGRESS_FILE: progress lines for scripts/soak.ts.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../../fake-provider/testing/harness.ts';
import { soakProgress } from '../../scripts/soak-progress.ts';
import { creditsOf, initialModel, tradingCommands, tradingPrelude, type OpKind, type TradingModel, type TradingReal } from './index.ts';

const RUNS = Number(process.env.SWAPSIM_TRADING_RUNS ?? 300);
const SEED = process.env.SWAPSIM_TRADING_SEED ? Number(process.env.SWAPSIM_TRADING_SEED) : undefined;
/** With the seed, replays one failing case directly (the `path` a failure prints). */
const PATH = process.env.SWAPSIM_TRADING_PATH;

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim({ seed: 'trading-model' });
});
afterAll(() => sim.close());

async function freshWorld(): Promise<TradingModel> {
  const reset = await sim.control('POST', '/reset');
  expect(reset.status).toBe(200);
  return initialModel(reset.body.clock.now_ms);
}

const SUCCESS: Record<OpKind, string> = { trade: 'settled', zap: 'settled', cancel: 'confirmed' };
const path = (kind: OpKind, id: string): string => `/${kind}s/${id}`;

async function settleAndCompare(m: TradingModel, r: TradingReal): Promise<void> {
  await r.sim.settle(80 * 3_600_000);
  // Every operation the model started is terminal; count, per source credit, the ones that succeeded.
  const succeededOn = new Map<string, string[]>();
  for (const op of m.ops) {
    const res = await r.sim.api('GET', path(op.kind, op.id));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const status: string = res.body[op.kind].status;
    expect([SUCCESS[op.kind], 'failed'], `${op.kind} ${op.id} is ${status} after settling`).toContain(status);
    if (status === 'failed') expect(res.body[op.kind].failure_code, `${op.kind} ${op.id} failed without a code`).toBeTruthy();
    if (op.credit_id === null) continue;
    const list = succeededOn.get(op.credit_id) ?? [];
    if (status === SUCCESS[op.kind]) list.push(`${op.kind} ${op.id}`);
    succeededOn.set(op.credit_id, list);
  }
  for (const a of m.accounts) {
    const open = await creditsOf(r, a.account_id, 'open');
    const consumed = await creditsOf(r, a.account_id, 'consumed');
    const openIds = new Set(open.map((c) => c.credit_id));
    const consumedIds = new Set(consumed.map((c) => c.credit_id));
    expect(open.length + consumed.length, 'a credit is listed both open and consumed').toBe(new Set([...openIds, ...consumedIds]).size);
    for (const op of m.ops.filter((o) => o.account_id === a.account_id && o.credit_id !== null)) {
      const winners = succeededOn.get(op.credit_id!)!;
      expect(winners.length, `credit ${op.credit_id} consumed by ${winners.join(', ')}`).toBeLessThanOrEqual(1);
      // A credit no operation of the model consumed stays open (failures release it); one that was consumed is consumed.
      if (winners.length === 0) expect(openIds.has(op.credit_id!), `credit ${op.credit_id} of failed ${op.kind} ${op.id} is not open`).toBe(true);
      else expect(consumedIds.has(op.credit_id!), `credit ${op.credit_id} of ${winners[0]} is not consumed`).toBe(true);
    }
    // Available balance = sum of open credits, per asset; nothing is pending once everything settled.
    const sums = new Map<string, bigint>();
    for (const c of open) sums.set(c.asset_key, (sums.get(c.asset_key) ?? 0n) + BigInt(c.atoms));
    const balances = await r.sim.api('GET', `/accounts/${a.account_id}/balances?limit=100`);
    expect(balances.status).toBe(200);
    for (const row of balances.body.balances) {
      expect(BigInt(row.available_atoms), `${a.account_id} ${row.asset_key} available`).toBe(sums.get(row.asset_key) ?? 0n);
      expect(row.pending_atoms, `${a.account_id} ${row.asset_key} pending`).toBe('0');
      sums.delete(row.asset_key);
    }
    expect([...sums.entries()].filter(([, v]) => v > 0n), 'open credits without a balance row').toEqual([]);
  }
  const inv = await r.sim.invariants();
  expect(inv.violations, JSON.stringify(inv.violations)).toEqual([]);
}

describe('trading model', () => {
  it(`keeps every invariant over random trading sequences (${RUNS} runs)`, { timeout: Math.max(600_000, RUNS * 2_000) }, async () => {
    await fc.assert(
      fc.asyncProperty(tradingPrelude(), fc.commands(tradingCommands(), { maxCommands: 20, size: 'max' }), soakProgress('trading', async (prelude, cmds) => {
        const model = await freshWorld();
        const real: TradingReal = { sim };
        // The prelude (a funded account and its destinations) gives the random commands something to trade.
        for (const c of prelude) if (c.check(model)) await c.run(model, real);
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        await settleAndCompare(model, real);
      })),
      { numRuns: RUNS, seed: SEED, path: PATH, verbose: 1 },
    );
  });
});
