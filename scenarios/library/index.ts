// The scenario registry: every named scenario `swapsim scenario list|run` knows, in a stable order, and the
// triggers (`swapsim trigger`): the same edge cases, run in the caller's organization.
import { isTrigger, type Scenario } from '../dsl/index.ts';
import { canaryScenarios } from './canary.ts';
import { cancelScenarios } from './cancels.ts';
import { depositScenarios } from './deposits.ts';
import { exportScenarios } from './exports.ts';
import { failureScenarios } from './failures.ts';
import { httpScenarios } from './http.ts';
import { recoveryScenarios } from './recoveries.ts';
import { tradingScenarios } from './trading.ts';
import { webhookScenarios } from './webhooks.ts';
import { zapScenarios } from './zaps.ts';

export { CANARY_LABEL } from './canary.ts';

export const SCENARIOS: readonly Scenario[] = Object.freeze([
  ...tradingScenarios,
  ...zapScenarios,
  ...cancelScenarios,
  ...depositScenarios,
  ...failureScenarios,
  ...recoveryScenarios,
  ...exportScenarios,
  ...webhookScenarios,
  ...httpScenarios,
  ...canaryScenarios,
]);

export const isCanary = (s: Scenario): boolean => s.tags.includes('canary');

/** The edge cases `swapsim trigger` runs in the caller's organization: the same definitions, minus scenario-only ones. */
export const TRIGGERS: readonly Scenario[] = Object.freeze(SCENARIOS.filter(isTrigger));

export function scenarioByName(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}

/** Registered names closest to a mistyped one (edit distance, then shared prefix), for the error message. */
export function closeNames(name: string, max = 3, among: readonly Scenario[] = SCENARIOS): string[] {
  const distance = (a: string, b: string): number => {
    let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const cur = [i];
      for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
    return prev[b.length];
  };
  const scored = among.map((s) => ({ name: s.name, d: s.name.includes(name) || name.includes(s.name) ? 0 : distance(name, s.name) }));
  return scored
    .filter((s) => s.d <= Math.max(3, Math.floor(name.length / 2)))
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
    .slice(0, max)
    .map((s) => s.name);
}
