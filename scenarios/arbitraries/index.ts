// The public arbitraries: `scenario()` (a journey with its fault plan and delivery chaos, printed as one
// numbered list with faults and chaos in place), and its parts `journey()`, `faultPlan()` and
// `deliveryChaos()`, which run against a sim (`journey.run(sim, { faults, chaos, webhook })`). `swapsim verify`
// builds its own scenarios from the same steps (scenarios/verify/scenario.ts: faults tied to their operations).
import fc from 'fast-check';
import type { Sim } from '../../lib/sim.ts';
import { accountSetup, backgroundChaos, chaosStep, faultStep, journeyStep } from './arbitraries.ts';
import { runScenario, scenarioLines, type ScenarioParts, type JourneyRun, type WebhookTarget } from './run.ts';
import {
  describeBackground,
  describeStep,
  type AccountSetup,
  type BackgroundChaos,
  type ChaosStep,
  type FaultStep,
  type JourneyStep,
} from './steps.ts';

export type { AccountSetup, BackgroundChaos, ChaosStep, FaultStep, JourneyStep, JourneyRun, WebhookTarget };
export { mergeSteps, type ScenarioParts } from './run.ts';

const NO_CHAOS: BackgroundChaos = { duplicate: 0, reorder: 0, drop: 0, bad_signature: 0, delay: 0 };

/** Provider-side faults to interleave with a journey. */
export class FaultPlan {
  constructor(readonly steps: FaultStep[]) {}
  toString(): string {
    // describeStep's second parameter is an account count: map's index must not reach it.
    return this.steps.length === 0 ? 'no faults' : this.steps.map((step) => describeStep(step)).join('; ');
  }
}

/** Webhook-delivery chaos: background probabilities plus targeted effects, outages and forgeries. */
export class DeliveryChaos {
  constructor(
    readonly background: BackgroundChaos,
    readonly items: ChaosStep[],
  ) {}
  toString(): string {
    const parts = [describeBackground(this.background), ...this.items.map((step) => describeStep(step))].filter(
      (p): p is string => p !== null,
    );
    return parts.length === 0 ? 'no delivery chaos' : parts.join('; ');
  }
}

/** Fresh accounts and what their users do. */
export class Journey {
  constructor(
    readonly accounts: AccountSetup[],
    readonly steps: JourneyStep[],
  ) {}
  parts(faults?: FaultPlan, chaos?: DeliveryChaos): ScenarioParts {
    return {
      accounts: this.accounts,
      steps: this.steps,
      faults: faults?.steps ?? [],
      chaos: { background: chaos?.background ?? NO_CHAOS, items: chaos?.items ?? [] },
    };
  }
  /** The whole scenario as numbered lines (setup, background chaos, steps with faults and chaos interleaved). */
  describe(faults?: FaultPlan, chaos?: DeliveryChaos): string[] {
    return scenarioLines(this.parts(faults, chaos));
  }
  /**
   * Runs it: creates and funds the accounts, adds the chaos and fault rules (scoped to these accounts), runs
   * each step, then removes the rules and settles the clock so everything ends. Forged deliveries need `webhook`.
   */
  run(sim: Sim, opts: { faults?: FaultPlan; chaos?: DeliveryChaos; webhook?: WebhookTarget } = {}): Promise<JourneyRun> {
    return runScenario(sim, this.parts(opts.faults, opts.chaos), { target: opts.webhook, label: 'journey' });
  }
  toString(): string {
    return this.describe().join('\n');
  }
}

/** A journey with its fault plan and delivery chaos, printed (when a property fails) as one numbered list. */
export class Scenario {
  constructor(
    readonly journey: Journey,
    readonly faults: FaultPlan,
    readonly chaos: DeliveryChaos,
  ) {}
  /** Plays the journey with its faults and chaos (see Journey.run). */
  run(sim: Sim, opts: { webhook?: WebhookTarget } = {}): Promise<JourneyRun> {
    return this.journey.run(sim, { faults: this.faults, chaos: this.chaos, webhook: opts.webhook });
  }
  describe(): string[] {
    return this.journey.describe(this.faults, this.chaos);
  }
  toString(): string {
    return `\n${this.describe().join('\n')}\n`;
  }
}

export function journey(opts: { max_steps?: number; max_accounts?: number } = {}): fc.Arbitrary<Journey> {
  return fc
    .record({
      // One account mostly: runs stay short; two now and then, so per-account scoping is exercised too.
      accounts: fc.oneof(
        { weight: 3, arbitrary: fc.array(accountSetup(), { minLength: 1, maxLength: 1 }) },
        { weight: 1, arbitrary: fc.array(accountSetup(), { minLength: 1, maxLength: opts.max_accounts ?? 2 }) },
      ),
      steps: fc.array(journeyStep(), { maxLength: opts.max_steps ?? 8 }),
    })
    .map(({ accounts, steps }) => new Journey(accounts, steps));
}

export function faultPlan(opts: { max_faults?: number } = {}): fc.Arbitrary<FaultPlan> {
  return fc.array(faultStep(), { maxLength: opts.max_faults ?? 3 }).map((steps) => new FaultPlan(steps));
}

export function deliveryChaos(opts: { max_items?: number; background?: boolean } = {}): fc.Arbitrary<DeliveryChaos> {
  const background = opts.background === false ? fc.constant(NO_CHAOS) : backgroundChaos();
  return fc
    .record({ background, items: fc.array(chaosStep(), { maxLength: opts.max_items ?? 4 }) })
    .map(({ background: b, items }) => new DeliveryChaos(b, items));
}

/** `journey()`, `faultPlan()` and `deliveryChaos()` together: one value, one numbered list of steps when it fails. */
export function scenario(
  opts: { max_steps?: number; max_accounts?: number; max_faults?: number; max_items?: number; background?: boolean } = {},
): fc.Arbitrary<Scenario> {
  return fc.tuple(journey(opts), faultPlan(opts), deliveryChaos(opts)).map(([j, f, c]) => new Scenario(j, f, c));
}
