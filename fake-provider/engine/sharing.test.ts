// What the engine shares between entities and events to keep settled state small, and that sharing never
// shows: frozen flat event data stored as given (other data copied and frozen), and the frozen final
// contexts machines reach again and again (a verified deposit's checks), per world and bounded.
import { describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import { newWorld } from '../app.ts';
import { publish } from './publish.ts';
import { advance, start, type EntitySnapshot } from './lifecycle.ts';

describe('event data', () => {
  it('frozen flat data is stored as given, so several events can share it', () => {
    const world = newWorld({ seed: 'sharing', clock: 'virtual' });
    const ids = Object.freeze({ trade_id: 'trd_1', quote_id: 'quote_1' });
    const a = publish(world, 'org_1', 'acct_1', 'trade.executing', ids);
    const b = publish(world, 'org_1', 'acct_1', 'trade.filled', ids);
    expect(a.envelope.data).toBe(ids);
    expect(b.envelope.data).toBe(ids);
    expect(JSON.stringify(b.envelope)).toBe(
      `{"event_id":"${b.envelope.event_id}","type":"trade.filled","created_at_ms":${b.envelope.created_at_ms},"account_id":"acct_1","data":{"trade_id":"trd_1","quote_id":"quote_1"}}`,
    );
  });

  it('other data is copied and frozen: the publisher changing its object later changes no event', () => {
    const world = newWorld({ seed: 'sharing', clock: 'virtual' });
    const data: Record<string, unknown> = { credit_id: 'cred_1', atoms: '5' };
    const nested = Object.freeze({ trade_id: 'trd_1', route: { legs: ['a'] } });
    const e1 = publish(world, 'org_1', 'acct_1', 'credit.created', data);
    const e2 = publish(world, 'org_1', 'acct_1', 'trade.x', nested);
    data.atoms = '6';
    expect(e1.envelope.data).not.toBe(data);
    expect(e1.envelope.data).toEqual({ credit_id: 'cred_1', atoms: '5' });
    expect(Object.isFrozen(e1.envelope.data)).toBe(true);
    // Frozen but not flat: the nested object is the publisher's and may not be frozen deeply, so it is copied.
    expect(e2.envelope.data).not.toBe(nested);
    expect(e2.envelope.data.route).not.toBe(nested.route);
    expect(Object.isFrozen((e2.envelope.data.route as { legs: string[] }).legs)).toBe(true);
  });
});

const checks = setup({
  types: {
    context: {} as { n: number; ok: boolean; note: string | null; at: number },
    events: {} as { type: 'STEP' } | { type: 'DONE'; note: string | null; at: number },
  },
  actions: {
    step: assign({ n: ({ context }) => context.n + 1 }),
    finish: assign({
      ok: true,
      note: ({ event }) => (event.type === 'DONE' ? event.note : null),
      at: ({ event }) => (event.type === 'DONE' ? event.at : 0),
    }),
  },
}).createMachine({
  id: 'sharing_checks',
  initial: 'running',
  context: { n: 0, ok: false, note: null, at: 0 },
  states: { running: { on: { STEP: { actions: 'step' }, DONE: { target: 'done', actions: 'finish' } } }, done: { type: 'final' } },
});

function finish(world: ReturnType<typeof newWorld>, id: string, steps: number, note: string | null, at: number): EntitySnapshot {
  const entity = { snapshot: start(world, checks, id, undefined).snapshot };
  for (let i = 0; i < steps; i++) advance(world, checks, entity, id, { type: 'STEP' }, () => {});
  const done: { type: 'DONE'; note: string | null; at: number } = { type: 'DONE', note, at };
  advance(world, checks, entity, id, done, () => {});
  return entity.snapshot;
}

describe('final contexts', () => {
  it('entities finishing with equal contexts of nulls, booleans and numbers share one frozen context', () => {
    const world = newWorld({ seed: 'sharing', clock: 'virtual' });
    const [a, b, c, d] = [
      finish(world, 'e_a', 3, null, 7),
      finish(world, 'e_b', 3, null, 7),
      finish(world, 'e_c', 3, null, 7),
      finish(world, 'e_d', 2, null, 7),
    ];
    expect(b.context).toBe(c.context);
    expect(Object.isFrozen(b.context)).toBe(true);
    expect(a.context).toEqual(b.context);
    expect(Object.keys(b.context as object)).toEqual(['n', 'ok', 'note', 'at']);
    expect(d.context).toEqual({ n: 2, ok: true, note: null, at: 7 });
    expect(d.context).not.toBe(b.context);
    expect([a, b, c, d].map((s) => [s.value, s.status])).toEqual(Array(4).fill(['done', 'done']));
    // The whole snapshot is shared (it names no entity); each entity keeps its own records in the log.
    expect(b).toBe(c);
    expect(Object.isFrozen(b)).toBe(true);
    expect(world.transitions.forEntity('e_c').map((r) => r.to)).toEqual(['running', 'running', 'running', 'running', 'done']);
    expect(
      ['e_a', 'e_b', 'e_c', 'e_d'].map((id) =>
        world.transitions
          .forEntity(id)
          .map((r) => r.entity_id)
          .join(),
      ),
    ).toEqual([Array(5).fill('e_a').join(), Array(5).fill('e_b').join(), Array(5).fill('e_c').join(), Array(4).fill('e_d').join()]);
  });

  it("entities starting on the machine's constant context share one frozen initial snapshot, per world", () => {
    const world = newWorld({ seed: 'sharing', clock: 'virtual' });
    const other = newWorld({ seed: 'sharing', clock: 'virtual' });
    const first = start(world, checks, 'e_1', undefined).snapshot;
    const second = start(world, checks, 'e_2', undefined).snapshot;
    expect(second).toBe(first);
    expect(Object.isFrozen(second)).toBe(true);
    expect(start(other, checks, 'e_3', undefined).snapshot).not.toBe(first);
    const entity = { snapshot: second };
    advance(world, checks, entity, 'e_2', { type: 'STEP' }, () => {});
    expect(entity.snapshot.context).toEqual({ n: 1, ok: false, note: null, at: 0 });
    expect(first.context).toEqual({ n: 0, ok: false, note: null, at: 0 });
    expect(world.transitions.forEntity('e_2').map((r) => `${r.entity_id} ${r.from}→${r.to}`)).toEqual([
      'e_2 null→running',
      'e_2 running→running',
    ]);
    expect(world.transitions.forEntity('e_1')).toHaveLength(1);
  });

  it("the log finds an entity's row from its world id, in drawing order or not, and from any other id", () => {
    const world = newWorld({ seed: 'sharing', clock: 'virtual' });
    const [a, b, c] = [world.newId('cred'), world.newId('evt'), world.newId('trd')];
    const log = world.transitions;
    // c starts before a (an id drawn early, started late), then ids of no counter at all.
    const rows = [c, a, 'e_x', b, 'trd_', `trd_000000000000${c.slice(-4)}`].map((id) => [id, log.entityRow(id)] as const);
    for (const [id, row] of rows) expect(log.rowFor(id)).toBe(row);
    expect(log.rowFor(world.newId('trd'))).toBe(-1);
    expect(log.rowFor(`cred_${c.slice(4)}`)).toBe(-1);
    expect(log.rowFor('nope')).toBe(-1);
  });

  it('contexts holding strings are never shared; worlds never share; at most 64 distinct contexts are kept per machine', () => {
    const world = newWorld({ seed: 'sharing', clock: 'virtual' });
    const other = newWorld({ seed: 'sharing', clock: 'virtual' });
    const [x, y] = [finish(world, 'e_x', 1, 'flagged', 7), finish(world, 'e_y', 1, 'flagged', 7)];
    expect(x.context).not.toBe(y.context);
    expect(Object.isFrozen(y.context)).toBe(false);
    finish(world, 'e_1', 1, null, 1);
    const mine = finish(world, 'e_2', 1, null, 1);
    expect(finish(other, 'e_3', 1, null, 1).context).not.toBe(mine.context);
    // 64 more distinct contexts fill the cache; a context first seen after that is not kept.
    for (let at = 100; at < 164; at++) finish(world, `t_${at}`, 0, null, at);
    finish(world, 'late_1', 0, null, 999);
    expect(finish(world, 'late_2', 0, null, 999).context).not.toBe(finish(world, 'late_3', 0, null, 999).context);
    expect(finish(world, 'e_4', 1, null, 1).context).toBe(mine.context);
  });

  it('non-final steps share too; a state whose contexts keep missing a full cache stops looking them up (no sharing, same values)', () => {
    const world = newWorld({ seed: 'sharing', clock: 'virtual' });
    // Two entities after the same steps share their running snapshot (n = 2), not only their final one.
    const step = (id: string, n: number) => {
      const entity = { snapshot: start(world, checks, id, undefined).snapshot };
      for (let i = 0; i < n; i++) advance(world, checks, entity, id, { type: 'STEP' }, () => {});
      return entity.snapshot;
    };
    expect(step('r_1', 2)).toBe(step('r_2', 2));
    const early = finish(world, 'early', 0, null, 1);
    // 63 more distinct done contexts fill the state's cache; 257 more misses in a row, and it gives up.
    for (let at = 2; at < 65; at++) finish(world, `f_${at}`, 0, null, at);
    for (let at = 1_000; at < 1_258; at++) finish(world, `m_${at}`, 0, null, at);
    finish(world, 'other', 0, null, 5); // not the last shared one: found only by a lookup, which is given up
    const again = finish(world, 'again', 0, null, 1);
    expect(again.context).toEqual(early.context);
    expect(again).not.toBe(early);
  });
});
