// The library's types stay tight (checked by `npm run typecheck`, which compiles this file, and by vitest's
// expectTypeOf): a reply body follows from method and path, a misspelt field does not compile, events narrow
// by `type`, fault rules narrow by `target`. Each `@ts-expect-error` fails the typecheck if the line compiles.
// The checks sit in functions that never run (`sim` and `t` are declared, not made): only their types matter.
import { describe, expectTypeOf, it } from 'vitest';
import type { Account, Event, EventOf, FaultRuleInput, Sim, Trade, V1Body } from 'swapsim';
import type { ScenarioDsl } from '../scenarios/dsl/index.ts';

declare const sim: Sim;
declare const t: ScenarioDsl;
declare const id: string;

describe('library types', () => {
  it('a /v1 reply body follows from the method and path', () => {
    const check = async (): Promise<void> => {
      const created = await sim.api('POST', '/accounts', { body: { label: 'alice' } });
      expectTypeOf(created.body).not.toBeAny();
      expectTypeOf(created.body.account).toEqualTypeOf<Account>();
      // @ts-expect-error -- a misspelt field of the account does not compile
      void created.body.account.acount_id;
      const trade = await sim.api('GET', `/trades/${id}`);
      expectTypeOf(trade.body.trade).toEqualTypeOf<Trade>();
      const credits = await sim.api('GET', `/accounts/${id}/credits?status=open&limit=100`);
      expectTypeOf(credits.body.credits[0].credit_id).toEqualTypeOf<string>();
      expectTypeOf(credits.body.next_cursor).toEqualTypeOf<string | null>();
      // The most specific route wins: /accounts/{id}/balances is not GET /accounts/{id}.
      expectTypeOf<V1Body<'GET', `/accounts/${string}/balances`>>().toHaveProperty('balances');
      expectTypeOf<V1Body<'GET', `/accounts/${string}`>>().toHaveProperty('account');
      // A path no route declares is unknown, not any.
      expectTypeOf((await sim.api('GET', '/no-such-route')).body).toBeUnknown();
    };
    expectTypeOf(check).toBeFunction();
  });

  it('control-plane replies are typed where the route declares its response', () => {
    const check = async (): Promise<void> => {
      const clock = await sim.control('POST', '/clock/advance', { ms: 1_000 });
      expectTypeOf(clock.body.clock.now_ms).toEqualTypeOf<number>();
      expectTypeOf((await sim.faults.list())[0].fault_id).toEqualTypeOf<string>();
    };
    expectTypeOf(check).toBeFunction();
  });

  it('events are a union discriminated by type', () => {
    const check = async (): Promise<void> => {
      const narrow = (e: Event) => (e.type === 'trade.settled' ? e.data.credit_id : undefined);
      expectTypeOf(narrow).returns.toEqualTypeOf<string | undefined>();
      expectTypeOf<EventOf<'deposit.flagged'>['data']['flagged_by']>().toEqualTypeOf<'routes' | 'partner'>();
      // @ts-expect-error -- not an event type
      expectTypeOf<EventOf<'trade.setled'>>().not.toBeNever();
    };
    expectTypeOf(check).toBeFunction();
  });

  it('fault rules are a union by target, each with the effects it applies', () => {
    const check = async (): Promise<void> => {
      expectTypeOf<{ target: 'webhook'; effect: { webhook: 'drop' } }>().toExtend<FaultRuleInput>();
      expectTypeOf<{ target: 'trade'; effect: { fail: 'settlement_failed' } }>().toExtend<FaultRuleInput>();
      expectTypeOf<{ target: 'trade'; effect: { webhook: 'drop' } }>().not.toExtend<FaultRuleInput>();
      expectTypeOf<{ target: 'cancel'; effect: { fail: 'execution_failed' } }>().not.toExtend<FaultRuleInput>();
    };
    expectTypeOf(check).toBeFunction();
  });

  it('the scenario DSL reads typed replies', () => {
    const check = async (): Promise<void> => {
      expectTypeOf(await t.get('trade', id)).toEqualTypeOf<Trade>();
      const r = await t.call('GET', `/accounts/${id}`);
      // @ts-expect-error -- a misspelt field does not compile in scenarios either
      void r.body.account.acount_id;
      // @ts-expect-error -- nor a misspelt event type in an expectation
      await t.expectEvents(id, id, ['trade.executing', 'trade.setled']);
    };
    expectTypeOf(check).toBeFunction();
  });
});
