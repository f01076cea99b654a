// The public library as a user gets it: imported by package name (the "exports" of package.json, i.e. the
// built dist/index.js), with exactly the pinned exports, loadable by plain Node without tsx, and doing what
// each export promises.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbitraries, createSim, type DeliveryChaos, type FaultPlan, type Journey } from 'swapsim';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PINNED = ['arbitraries', 'createSim', 'dsl'];

describe('public API', () => {
  it('exports exactly the pinned names, by package name and from the sources', async () => {
    expect(Object.keys(await import('swapsim')).sort()).toEqual(PINNED);
    expect(Object.keys(await import('../index.ts')).sort()).toEqual(PINNED);
    expect(Object.keys(arbitraries).sort()).toEqual(['deliveryChaos', 'faultPlan', 'journey', 'scenario']);
  });

  it('resolves by name to the built bundle, which plain Node loads (no tsx: what an installed package gets)', () => {
    const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8'));
    // One bundle for import and require; types per condition (dist/index.d.cts keeps fast-check's types one copy).
    expect(pkg.exports['.']).toEqual({
      import: { types: './dist/index.d.ts', default: './dist/index.js' },
      require: { types: './dist/index.d.cts', default: './dist/index.js' },
    });
    expect(existsSync(resolve(ROOT, pkg.exports['.'].import.default))).toBe(true);
    const out = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', "const m = await import('swapsim'); console.log(Object.keys(m).sort().join(','))"],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(out.trim()).toBe(PINNED.join(','));
  });

  it('createSim: a virtual-clock fake with a typed control client', async () => {
    const sim = await createSim({ seed: 'public-api', api_keys: ['sk_public_api_test'] });
    try {
      expect(sim.api_key).toBe('sk_public_api_test');
      const start = await sim.now_ms();
      const account_id: string = (await sim.api('POST', '/accounts', { body: { label: 'alice' } })).body.account.account_id;
      expect(await sim.advance(5_000)).toBe(start + 5_000);
      const da = (await sim.api('POST', `/accounts/${account_id}/deposit-addresses`, { body: { asset_key: 'native.evm:42161' } })).body
        .deposit_address;
      const rule = await sim.faults.add({ target: 'deposit', effect: { delay_ms: 60_000 }, match: { account_id }, times: 1 });
      expect((await sim.faults.list()).map((f) => f.fault_id)).toEqual([rule.fault_id]);
      const deposit = await sim.deposit({ deposit_address_id: da.deposit_address_id, atoms: '5000' });
      expect(deposit.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
      await sim.advance(30_000);
      // Still held back by the delay fault: pending, nothing available yet.
      expect((await sim.truth(account_id)).balances).toEqual([{ asset_key: 'native.evm:42161', available_atoms: '0' }]);
      await sim.settle();
      expect(await sim.truth(account_id)).toEqual({
        balances: [{ asset_key: 'native.evm:42161', available_atoms: '5000' }],
        trades: [],
        zaps: [],
        cancels: [],
        deposits: [{ deposit_address_id: da.deposit_address_id, tx_hash: deposit.tx_hash, status: 'verified', credited: true }],
        destinations: [],
        recoveries: [],
      });
      await sim.faults.clear();
      expect(await sim.faults.list()).toEqual([]);
      expect(await sim.emails(account_id)).toEqual([]);
      expect((await sim.invariants()).ok).toBe(true);
      expect((await sim.conduct()).requests.length).toBeGreaterThan(0);
      const hook = await sim.webhook('http://127.0.0.1:9/hooks');
      expect(hook.secret).toMatch(/^whsec_/);
      // @ts-expect-error -- not a failure code of trades: the type refuses it, and so does the server.
      await expect(sim.faults.add({ target: 'trade', effect: { fail: 'not_a_code' } })).rejects.toThrow(/400|invalid/);
    } finally {
      await sim.close();
    }
  });

  it('arbitraries: values print as numbered steps and shrink to the empty plan', () => {
    const [j] = fc.sample(arbitraries.journey(), { numRuns: 1, seed: 3 });
    expect(j.describe()[0]).toMatch(/^1\. setup: account #0 is created/);
    expect(String(j)).toContain('1. setup');
    const [plan] = fc.sample(arbitraries.faultPlan({ max_faults: 3 }), { numRuns: 1, seed: 3 });
    expect(plan.steps.length).toBeLessThanOrEqual(3);
    const [chaos] = fc.sample(arbitraries.deliveryChaos({ background: false }), { numRuns: 1, seed: 3 });
    expect(Object.values(chaos.background).every((p) => p === 0)).toBe(true);
    // The smallest values are the calm ones: one account, no steps, no faults, no chaos.
    const smallest = fc.check(
      fc.property(arbitraries.journey(), arbitraries.faultPlan(), arbitraries.deliveryChaos(), () => false),
      { seed: 5 },
    );
    const [sj, sf, sc] = smallest.counterexample! as [Journey, FaultPlan, DeliveryChaos];
    expect([sj.steps.length, sj.accounts.length, sf.steps.length, sc.items.length]).toEqual([0, 1, 0, 0]);
    expect(String(sc)).toBe('no delivery chaos');
  });

  it('arbitraries: a scenario prints as one numbered list, faults and chaos in place, accounts resolved', () => {
    const values = fc.sample(arbitraries.scenario({ max_faults: 3, max_items: 3 }), { numRuns: 30, seed: 11 });
    const busy = values.find((v) => v.faults.steps.length > 0 && v.chaos.items.length > 0)!;
    const lines = String(busy).trim().split('\n');
    expect(lines.map((l) => Number(l.split('.')[0]))).toEqual(lines.map((_, i) => i + 1));
    expect(lines.length).toBe(
      busy.journey.accounts.length +
        busy.journey.steps.length +
        busy.faults.steps.length +
        busy.chaos.items.length +
        (String(busy.chaos).startsWith('background') ? 1 : 0),
    );
    for (const v of values) {
      expect(String(v)).not.toContain('NaN');
      expect(String(v.faults)).not.toContain('NaN');
      expect(String(v.chaos)).not.toContain('NaN');
    }
  });
});
