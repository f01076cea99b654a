// The trigger runner `swapsim serve` hands its server (fake-provider/ui/trigger-runner.ts): the dashboard's Run
// button runs a trigger of the scenario library as `swapsim trigger NAME --api-key KEY` would, against the same
// server over HTTP. The server cannot import the library (it sits above the app); this file, in cli/, can.
import type { TriggerOutcome, TriggerRunner } from '../fake-provider/ui/trigger-runner.ts';

const dsl = () => import('../scenarios/dsl/index.ts');
const library = () => import('../scenarios/library/index.ts');

export function triggerRunner(): TriggerRunner {
  return {
    names: async () => (await library()).TRIGGERS.map((s) => s.name),
    async run(name, target, onLine): Promise<TriggerOutcome> {
      const [{ SCENARIOS }, { formatTrigger, runTrigger, TriggerRefused }] = await Promise.all([library(), dsl()]);
      const s = SCENARIOS.find((x) => x.name === name);
      if (!s) return { ok: false, failure: `unknown trigger '${name}'`, output: '', run: null };
      try {
        const run = await runTrigger(s, { ...target, onStep: onLine });
        return { ok: run.ok, failure: run.error ?? null, output: formatTrigger(run), run };
      } catch (err) {
        // Refused before it started (a setting the organization lacks, no active webhook): what `swapsim trigger` prints.
        const why = err instanceof TriggerRefused ? err.message : `the run failed: ${err instanceof Error ? err.message : String(err)}`;
        return { ok: false, failure: why, output: '', run: null };
      }
    },
  };
}
