// Issue 26: a /_sim body is exact. A field the control plane does not know (a misspelt `where` for `match`, a
// nested typo) is 400 invalid_parameter naming it, and nothing is done; /v1 bodies keep ignoring unknown fields.
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, startTestSim } from '../testing/harness.ts';

const opened = closeAfterEach(afterEach);

describe('strict control-plane bodies', () => {
  it('refuses an unknown field at any depth, naming it, and adds nothing', async () => {
    const s = opened(await startTestSim());
    const misspelt = await s.control('POST', '/faults', {
      target: 'trade',
      effect: { fail: 'execution_failed' },
      where: { account_id: 'acct_x' },
    });
    expect(misspelt.status).toBe(400);
    expect(misspelt.body.error).toMatchObject({ code: 'invalid_parameter', param: 'where' });
    expect(misspelt.body.error.message).toContain('where');
    expect((await s.control('GET', '/faults')).body.faults).toEqual([]);
    const nested = await s.control('POST', '/organizations', { rate_limits: { reads: 5, writez: 1 } });
    expect(nested.status).toBe(400);
    expect(nested.body.error).toMatchObject({ code: 'invalid_parameter', param: 'rate_limits.writez' });
    const before_ms = (await s.control('GET', '/clock')).body.clock.now_ms;
    const clock = await s.control('POST', '/clock/advance', { ms: 1_000, max_ms: 5 });
    expect(clock.body.error).toMatchObject({ code: 'invalid_parameter', param: 'max_ms' });
    expect((await s.control('GET', '/clock')).body.clock.now_ms).toBe(before_ms);
    // Known fields still pass, and /v1 still ignores unknown ones.
    expect(
      (await s.control('POST', '/faults', { target: 'trade', effect: { fail: 'execution_failed' }, match: { account_id: 'acct_x' } }))
        .status,
    ).toBe(200);
    expect((await s.api('POST', '/accounts', { body: { label: 'x', x_future_field: 1 } })).status).toBe(200);
  });
});
