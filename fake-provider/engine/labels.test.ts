// Task labels are `kind.step` for every kind and step given, frozen, and the same string however made.
import { describe, expect, it } from 'vitest';
import { taskLabels } from './labels.ts';

describe('taskLabels', () => {
  it('names every kind and step as kind.step', () => {
    const labels = taskLabels(['trade', 'zap'], ['fill', 'settled']);
    expect(labels).toEqual({ trade: { fill: 'trade.fill', settled: 'trade.settled' }, zap: { fill: 'zap.fill', settled: 'zap.settled' } });
    expect(Object.isFrozen(labels) && Object.isFrozen(labels.trade)).toBe(true);
    expect(labels.zap.settled).toBe(['zap', 'settled'].join('.'));
  });
});
