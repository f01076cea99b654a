// The example twins, first half: each caught within 10 runs at seed 1 for its own reason, stated in the first
// line (twins.ts holds the check; twins-b.test.ts the other half; twins-shrink.test.ts shrinks and replays).
import { describe, it } from 'vitest';
import { BUG_NAMES } from '../examples/reference-integrator/bugs.ts';
import { checkTwin } from './twins.ts';

describe('swapsim verify catches each twin for its own reason', () => {
  it.each(BUG_NAMES.filter((_, i) => i % 2 === 0))('%s', (bug) => checkTwin(bug), 180_000);
});
