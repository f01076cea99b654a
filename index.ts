// swapsim's public library, pinned (lib/public-api.test.ts checks the export list): `createSim()` for an in-process
// fake with a typed control client, `arbitraries` to generate journeys, fault plans and delivery chaos in
// fast-check properties, and `dsl`, the scenario DSL the named scenarios are written in.
import { createSim as createSimImpl, type CreateSimOptions, type Sim } from './lib/sim.ts';
import { deliveryChaos, faultPlan, journey, scenario } from './scenarios/arbitraries/index.ts';

export type {
  AccountTruth,
  ConductReport,
  CreateSimOptions,
  FaultRule,
  FaultRuleInput,
  FaultTarget,
  Reply,
  Sim,
  SimEmail,
} from './lib/sim.ts';
export type { DeliveryChaos, FaultPlan, Journey, JourneyRun, Scenario, WebhookTarget } from './scenarios/arbitraries/index.ts';
// Resource and event types, and the reply type of any call, from the zod schemas that validate and document them.
export type {
  Account,
  ApiError,
  Asset,
  AssetSymbol,
  Balance,
  Cancel,
  Candle,
  Credit,
  Delivery,
  DepositAddress,
  Destination,
  ErrorEnvelope,
  Event,
  EventOf,
  EventType,
  HistoryRecord,
  Market,
  Quote,
  Recovery,
  ResolvedAsset,
  Rfq,
  SimDeposit,
  Trade,
  Webhook,
  Zap,
  ZapListItem,
} from './lib/types.ts';
export type { ControlBody, HttpMethod, V1Body } from './lib/api-types.ts';

/**
 * Starts swapsim in this process on an ephemeral port with a virtual clock (nothing moves until you
 * `advance` or `settle`), one organization, and a typed client for `/v1` and the control plane.
 *
 * @example
 * ```ts
 * import { createSim } from 'swapsim';
 *
 * const sim = await createSim({ seed: 7 });
 * const { account } = (await sim.api('POST', '/accounts', { body: { label: 'alice' } })).body;
 * await sim.advance(5_000); // wallets are derived a few sim-seconds after creation
 * const { deposit_address } = (await sim.api('POST', `/accounts/${account.account_id}/deposit-addresses`, { body: { asset_key: 'native.evm:42161' } })).body;
 * await sim.deposit({ deposit_address_id: deposit_address.deposit_address_id, atoms: '1000000000000000000' });
 * await sim.faults.add({ target: 'webhook', effect: { webhook: 'duplicate' }, probability: 0.5 });
 * await sim.settle();
 * const truth = await sim.truth(account.account_id); // balances, trades, zaps, cancels
 * await sim.close();
 * ```
 */
export function createSim(options?: CreateSimOptions): Promise<Sim> {
  return createSimImpl(options);
}

/**
 * fast-check arbitraries to combine in your own properties. `scenario()` is the whole thing as one value:
 * fresh accounts and what their users do (`journey()`: deposits, trades, zaps, cancels, clock moves), with
 * provider-side failures, reorgs and delays (`faultPlan()`) and webhook chaos (`deliveryChaos()`: swarm-style
 * background probabilities, duplicates, reorders, drops, delays, outages past the 72 h retry window, forged
 * deliveries). When a property fails it prints as one numbered list of steps, faults and chaos in place;
 * `scenario.run(sim, { webhook })` plays it, then removes its rules and settles.
 *
 * @example
 * ```ts
 * import fc from 'fast-check';
 * import { arbitraries, createSim } from 'swapsim';
 *
 * const sim = await createSim();
 * const hook = await sim.webhook('http://127.0.0.1:3000/webhooks'); // your consumer
 * await fc.assert(
 *   fc.asyncProperty(arbitraries.scenario(), async (scenario) => {
 *     const run = await scenario.run(sim, { webhook: { url: 'http://127.0.0.1:3000/webhooks', secret: hook.secret } });
 *     for (const account_id of run.account_ids) expect(await myBalances(account_id)).toEqual((await sim.truth(account_id)).balances);
 *   }),
 *   { numRuns: 25 },
 * );
 * ```
 */
export const arbitraries = Object.freeze({ scenario, journey, faultPlan, deliveryChaos });

/**
 * The scenario DSL (`t.account()`, `t.deposit()`, `t.rfq()`, `t.accept()`, `t.zap()`, `t.cancel()`, `t.fault()`,
 * `t.advance('5m')`, `t.settle()`, `t.expect…`) and its runner, for scripted scenarios of your own.
 *
 * @example
 * ```ts
 * import { dsl } from 'swapsim';
 *
 * const run = await dsl.runScenario({
 *   name: 'deposit-verifies', summary: 'a deposit becomes a credit', tags: ['deposit'],
 *   async run(t) {
 *     const account_id = await t.account();
 *     const { credit_id } = await t.deposit(account_id, dsl.ETH, dsl.ONE_ETH);
 *     await t.expect('the deposit became a credit', credit_id);
 *   },
 * });
 * console.log(dsl.formatRun(run));
 * ```
 */
export * as dsl from './scenarios/dsl/index.ts';
