// Verify's batches: which runs may share the app (runs in order up to the concurrency; a run that does
// something app-wide goes alone, right after the batch that passed it over), a batch run at once behind the hub
// (each run on its own lane, the app configured once), and the check that a failure found in a batch fails alone
// too, so it replays alone.
import { randomBytes } from 'node:crypto';
import type { Sim } from '../../lib/sim.ts';
import type { Profile } from '../../fake-provider/profile.ts';
import { WALL } from '../../sim/wall.ts';
import { startHub, type Mount } from './hub.ts';
import {
  batchCatchUp,
  closeLane,
  driveLane,
  ensureSlots,
  errorOutcome,
  openLanes,
  runOnce,
  type Connection,
  type OpenedLanes,
  type Outcome,
  type Session,
} from './lane.ts';
import * as probe from './probe.ts';
import type { VerifyScenario } from './scenario.ts';

/** A run whose scenario does something app-wide (it would reach every run sharing the app's provider) runs alone. */
export function runsAlone(s: VerifyScenario): boolean {
  return s.adversarial_profile || s.steps.some((st) => st.kind === 'rotate' || st.kind === 'restart' || st.kind === 'api_fault');
}

/**
 * Runs in order grouped up to `concurrency`; a run that must run alone is a batch of its own, right after the batch
 * that passed over it (so the two app-wide runs of every ten no longer split the others into small batches). A
 * failure is therefore reported only once every lower run has run: verify.ts confirms a batch's failure alone
 * together with the lower alone runs still to come.
 */
export function planBatches<T extends { scenario: VerifyScenario }>(plan: readonly T[], concurrency: number): T[][] {
  if (concurrency <= 1) return plan.map((p) => [p]);
  const batches: T[][] = [];
  let open: T[] = [];
  let passed_over: T[] = [];
  const flush = (): void => {
    if (open.length > 0) batches.push(open);
    for (const p of passed_over) batches.push([p]);
    [open, passed_over] = [[], []];
  };
  for (const p of plan) {
    if (runsAlone(p.scenario)) passed_over.push(p);
    else open.push(p);
    if (open.length >= concurrency) flush();
  }
  flush();
  return batches;
}

/**
 * Several runs at once behind the hub: each run keeps its own provider (lane), relay and bounds; the app is
 * configured once with the batch's hub prefix, one API key (every lane's organization holds it) and one secret
 * (each relay re-signs its provider's correctly signed deliveries with it).
 */
export async function runBatch(
  s: Session,
  batch: ReadonlyArray<{ run: number; scenario: VerifyScenario }>,
  opened?: Promise<OpenedLanes>,
): Promise<Outcome[]> {
  await ensureSlots(s, batch.length);
  s.hub ??= await startHub({ peek_key: s.verifier_key });
  const hub = s.hub;
  const started_ms = WALL.now_ms();
  let app_key = '';
  const secret = `whsec_${randomBytes(32).toString('hex')}`;
  const lanes: Array<{ sim: Sim; profile: Profile }> = [];
  const webhooks: string[] = [];
  let mount: Mount | null = null;
  let configure: Connection['configure'];
  try {
    const o = await (opened ?? openLanes(s, batch));
    app_key = o.app_key;
    lanes.push(...o.lanes);
    const m = hub.mount(lanes.map((l) => l.sim.base_url));
    mount = m;
    for (const [i, l] of lanes.entries()) {
      const relay = s.slots[i].relay;
      relay.reset();
      const hook = await l.sim.webhook(relay.url);
      relay.setSecret(hook.secret);
      relay.setAppSecret(secret);
      relay.setObserver((body) => m.learn(i, body));
      m.setGate(i, () => relay.gate());
      webhooks.push(hook.webhook_id);
    }
    configure = (next: string) => probe.configure(s.app_url, { base_url: m.base_url, api_key: app_key, webhook_secret: next });
    await configure(secret);
  } catch (err) {
    mount?.unmount();
    await Promise.all(lanes.map((l) => l.sim.close().catch(() => undefined)));
    if (err instanceof probe.AppUnreachable && !s.configured_once) throw err;
    return batch.map((b) => errorOutcome(b.run, err instanceof Error ? err.message : String(err)));
  }
  const catch_up = batchCatchUp(s, lanes.length);
  try {
    return await Promise.all(
      lanes.map((l, i) =>
        driveLane(
          s,
          {
            ...l,
            slot: s.slots[i],
            app_key,
            scenario: batch[i].scenario,
            run_no: batch[i].run,
            expect: null,
            started_ms,
            batched: true,
            sentBefore: mount!.sentBefore,
            catch_up,
          },
          async () => ({ webhook_id: webhooks[i], secret, configure }),
        ),
      ),
    );
  } finally {
    mount.unmount();
    await Promise.all(lanes.map((l) => closeLane(s, l.sim, app_key, mount!.sentBefore)));
  }
}

/** Runs each alone, in order, until one fails: that run and its outcome alone; 'passed' when none failed; 'cut' when the time limit came first. */
export async function confirmAlone(
  s: Session,
  runs: ReadonlyArray<{ run: number; scenario: VerifyScenario }>,
): Promise<{ run: number; scenario: VerifyScenario; outcome: Outcome } | 'passed' | 'cut'> {
  for (const { run, scenario } of runs) {
    if (WALL.now_ms() >= s.deadline_ms) return 'cut';
    const outcome = await runOnce(s, scenario, run, null);
    if (outcome.interrupted) return 'cut';
    if (!outcome.ok) return { run, scenario, outcome };
  }
  return 'passed';
}
