// The example twins, second half: each caught, for its own reason stated in the first line, by the run the seed's plan
// gives an item that exposes it (twins.ts holds the map and the check; twins-shrink.test.ts shrinks and replays).
import { describe, it } from 'vitest';
import { BUG_NAMES } from '../examples/reference-integrator/bugs.ts';
import { checkTwin } from './twins.ts';

describe('swapsim verify catches each twin for its own reason', () => {
  it.each(BUG_NAMES.filter((_, i) => i % 2 === 1))('%s', (bug) => checkTwin(bug), 180_000);
});
