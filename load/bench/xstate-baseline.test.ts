// The yardstick drives the engine's lifecycle: the same 17 transitions, in the same order, ending in the
// same states as one engine lifecycle of the bench world.
import { describe, expect, it } from 'vitest';
import { benchWorld, lifecycle } from './engine-world.ts';
import { plainLifecycle, plainWorld } from './xstate-baseline.ts';

describe('xstate baseline', () => {
  it('takes the engine lifecycle’s transitions, state for state', async () => {
    const bw = await benchWorld(1, 'baseline-test');
    const before = bw.world.transitions.records.length;
    await lifecycle(bw);
    const engine = bw.world.transitions.records.slice(before).map((r) => `${r.kind}:${r.from}>${r.to}`);

    const w = plainWorld();
    plainLifecycle(w);
    expect(w.transitions).toBe(engine.length);
    const kinds = [...w.entities.values()].map(
      (e) => `${(e.snapshot as { machine: { id: string } }).machine.id}:${(e.snapshot as { value: string }).value}`,
    );
    // Each entity's final state in the baseline is the one the engine's log ends it in.
    const last = new Map<string, string>();
    for (const r of bw.world.transitions.records.slice(before)) last.set(r.entity_id, `${r.kind}:${r.to}`);
    expect(kinds.sort()).toEqual([...last.values()].sort());
  });
});
