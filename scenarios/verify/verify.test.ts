// The seven outcomes: `verify` passes the reference integrator and catches each deliberately buggy variant
// within the default 100 runs, naming the entity that diverged. Seeds are fixed, so the runs are the same
// every time; shrinking is time-boxed here (the README's figures come from the CLI with its defaults).
import { afterEach, describe, expect, it } from 'vitest';
import { BUG_NAMES, type Bug } from '../examples/reference-integrator/bugs.ts';
import { startIntegrator, type RunningIntegrator } from '../examples/reference-integrator/app.ts';
import { verify, type VerifyReport } from './verify.ts';

const SEED = 1;
const SIM_SEED = 'verify-test';
let app: RunningIntegrator | null = null;

afterEach(async () => {
  await app?.close();
  app = null;
});

async function verifyVariant(bugs: Bug[], runs: number): Promise<VerifyReport> {
  app = await startIntegrator({ bugs });
  return verify({ app_url: app.url, runs, seed: SEED, sim_seed: SIM_SEED, shrink_time_limit_ms: 15_000 });
}

describe('swapsim verify', () => {
  it('passes the reference integrator', async () => {
    const r = await verifyVariant([], 100);
    expect(r.failure, JSON.stringify(r.failure, null, 2)).toBeUndefined();
    expect(r.runs).toBe(100);
    expect(r.passed).toBe(100);
    expect(r.failed).toBe(0);
    expect(r.cases.every((c) => c.ok && c.steps.length > 0)).toBe(true);
    // The reference reads lists to their end, never re-polls early, never retries writes: a clean record.
    expect(r.conduct).toEqual([]);
    console.log(`reference: 100 runs passed in ${(r.wall_ms / 1000).toFixed(1)}s`);
  }, 180_000);

  /** What the first divergence must show for the bugs whose symptom is certain. */
  const SYMPTOM: Partial<Record<Bug, (d: NonNullable<VerifyReport['failure']>['divergence']) => void>> = {
    'no-signature-check': (d) => expect(d).toMatchObject({ entity_type: 'forged_delivery', field: 'http_status', provider: 401 }),
    'no-dedupe': (d) => {
      expect(d).toMatchObject({ entity_type: 'balance', field: 'available_atoms' });
      expect(BigInt(d.app as string)).toBeGreaterThan(BigInt(d.provider as string));
    },
    'orphan-as-failed': (d) => expect(d).toMatchObject({ field: 'status', app: 'failed', provider: 'settled' }),
  };

  it.each(BUG_NAMES)('catches the %s variant within 100 runs', async (bug) => {
    const r = await verifyVariant([bug], 100);
    expect(r.failure, `${bug} was not caught in ${r.runs} runs`).toBeDefined();
    const f = r.failure!;
    expect(r.runs_to_catch).toBeGreaterThanOrEqual(1);
    expect(r.runs_to_catch).toBeLessThanOrEqual(100);
    expect(r.failed).toBe(1);
    expect(f.shrunk_steps.length).toBeGreaterThanOrEqual(1);
    expect(f.shrunk_steps[0]).toMatch(/^1\. setup: account #0 is created/);
    expect(f.replay_command).toBe(`npx swapsim verify --app ${app!.url} --seed ${SEED} --path ${f.path}`);
    SYMPTOM[bug]?.(f.divergence);
    console.log(`${bug}: caught at run ${r.runs_to_catch}, shrunk to ${f.shrunk_steps.length} steps (${r.num_shrinks} shrinks${r.shrink_cut ? ', cut' : ''}): ${JSON.stringify(f.divergence)}`);
  }, 180_000);
});
