// The DSL and runner themselves: durations, a failed step and a silent scenario reported as failures,
// expectations that fail on wrong values, and the same seed giving the same run.
import { describe, expect, it } from 'vitest';
import { formatOffset, parseDuration, runScenario, type Scenario } from './index.ts';

const scenario = (name: string, run: Scenario['run']): Scenario => ({
  name,
  summary: 'a test scenario of the runner',
  tags: ['test'],
  run,
});

describe('durations', () => {
  it('parses units, compounds and ms numbers, and refuses anything else', () => {
    expect([
      parseDuration('250ms'),
      parseDuration('30s'),
      parseDuration('5m'),
      parseDuration('72h'),
      parseDuration('2d'),
      parseDuration('1h30m'),
      parseDuration(42),
      parseDuration('1500'),
    ]).toEqual([250, 30_000, 300_000, 259_200_000, 172_800_000, 5_400_000, 42, 1500]);
    for (const bad of ['5 minutes', '', 'm5', '5x', '-1s']) expect(() => parseDuration(bad), bad).toThrow(/bad duration/);
    expect(() => parseDuration(-1)).toThrow();
    expect(formatOffset(90_061_001)).toBe('+1d 01:01:01.001');
  });
});

describe('runner', () => {
  it('reports a failed step (a 404 where 200 was needed) as a failed run', async () => {
    const run = await runScenario(scenario('bad-step', async (t) => void (await t.get('trade', 'trd_nope'))));
    expect(run.ok).toBe(false);
    expect(run.error).toMatch(/^step failed: GET trade trd_nope: expected 200, got 404/);
  });

  it('fails a scenario that checked nothing', async () => {
    const run = await runScenario(scenario('silent', async (t) => void (await t.account())));
    expect(run).toMatchObject({ ok: false, error: 'the scenario checked nothing (no expectation ran)' });
  });

  it('each expectation kind fails on a wrong value and stops the scenario there', async () => {
    const cases: Array<[string, Scenario['run'], RegExp]> = [
      ['expect', async (t) => t.expect('truthy', 0), /truthy/],
      ['expect-predicate', async (t) => t.expect('predicate', async () => false), /predicate/],
      ['equal', async (t) => t.expectEqual('equal', { a: 1 }, { a: 2 }), /expected \{"a":2\}, got \{"a":1\}/],
      ['error', async (t) => t.expectError(await t.call('GET', '/accounts'), 'account_not_found'), /error account_not_found.*got 200/],
      ['balance', async (t) => t.expectBalance(await t.account(), 'native.evm:42161', '1'), /got 0/],
      [
        'status',
        async (t) => {
          const r = await t.cancel({ account_id: 'acct_nope', credit_id: 'c', destination_id: 'd' });
          t.expectHttp('cancel refused', r, 200);
        },
        /expected HTTP 200, got 404/,
      ],
    ];
    for (const [name, run, message] of cases) {
      const result = await runScenario(
        scenario(name, async (t) => {
          await run(t);
          t.note('after');
        }),
      );
      expect(result.ok, name).toBe(false);
      expect(result.error, name).toMatch(message);
      expect(result.steps.includes('after'), name).toBe(false);
    }
  });

  it('gives the same timeline for the same seed', async () => {
    const s = scenario('repeat', async (t) => {
      const a = await t.account();
      await t.deposit(a, 'native.evm:42161', '1000');
      await t.expectBalance(a, 'native.evm:42161', '1000');
    });
    const [x, y] = [await runScenario(s, { seed: '9' }), await runScenario(s, { seed: '9' })];
    expect(x.ok).toBe(true);
    expect(y.timeline).toEqual(x.timeline);
    expect(y.steps).toEqual(x.steps);
  });
});
