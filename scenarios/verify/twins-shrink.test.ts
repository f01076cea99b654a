// Twins shrunk and replayed (end to end): one twin per kind of finding (state, a refused delivery, a stale
// timestamp, client conduct) is caught at seed 1, shrunk to a case of at most 5 steps, and that case replays 5
// times out of 5 with the same first line, word for word. `npm run bench:verify` does this for every twin.
import { describe, it } from 'vitest';
import { checkTwin } from './twins.ts';

describe('swapsim verify shrinks each kind of finding to a case that replays', () => {
  it.each(['no-dedupe', 'latin1-body', 'no-timestamp-check', 'retries-429-at-once'] as const)('%s', (bug) => checkTwin(bug, true), 240_000);
});
