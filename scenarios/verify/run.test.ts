// A verify run cut short (a slow handler, the run's wall-time limit) skips its play-out, but takes its API faults
// off: they match the feed's paths, which verify reads next to judge the run, on a key of the app's organization.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSim, listAll, type Sim } from '../../lib/sim.ts';
import { NO_BACKGROUND, type VerifyScenario } from './scenario.ts';
import { runVerifyScenario, type RunHooks } from './run.ts';

let sim: Sim | null = null;
let receiver: Server | null = null;
afterEach(async () => {
  await sim?.close();
  await new Promise((r) => (receiver ? receiver.close(r) : r(undefined)));
  sim = null;
  receiver = null;
});

describe('runVerifyScenario, cut', () => {
  it('takes its API faults off when cut, so the feed verify reads next answers', async () => {
    sim = await createSim({ seed: 'run-cut' });
    receiver = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
    const hook = await sim.webhook(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
    const scenario: VerifyScenario = {
      theme: 'api.429',
      adversarial_profile: false,
      accounts: [{ asset: 0, usd: 150 }],
      background: NO_BACKGROUND,
      steps: [{ kind: 'api_fault', fault: '429', times: 5 }, { kind: 'probe' }, { kind: 'probe' }],
    };
    const cutting = new AbortController();
    let probes = 0;
    const hooks = {
      cut_signal: cutting.signal,
      webhook_id: hook.webhook_id,
      answer_slot_ms: 0,
      // The first probe step is where the run is cut (as a slow handler cuts it); the second is never run.
      probe: async (): Promise<string> => {
        probes++;
        cutting.abort();
        return 'cut here';
      },
    } as unknown as RunHooks;
    const run = await runVerifyScenario(sim, scenario, hooks);
    expect(probes).toBe(1);
    expect(run.api_rule_ids).toHaveLength(4);
    expect(run.notes.at(-1)).toMatch(/not run: the run was cut/);
    expect((await sim.faults.list()).filter((r) => r.target === 'http')).toEqual([]);
    // verify's own read of the feed, on the key the faults would have matched (times: 5 left each).
    const events = await listAll<{ type: string }>(sim, `/events?account_id=${run.account_ids[0]}`, 'events');
    expect(events.map((e) => e.type)).toContain('credit.created');
  });
});
