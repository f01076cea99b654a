// Joined outside work (scheduler `join`): results are applied in join order, at the instant the work was
// started, after the other tasks due then and before time moves on, whichever answer arrives first. Then the
// bucketed timers against a reference (due_ms, task_id) scheduler: order, cancels, pending and reports.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { fc, it as propIt } from '@fast-check/vitest';
import { createClock, createScheduler } from './index.ts';

/** A promise settled by hand, so a test decides which answer "arrives" first. */
function later<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('scheduler join', () => {
  it('applies results in join order at the starting instant, before later tasks, whatever order they settle in', async () => {
    const clock = createClock();
    const s = createScheduler(clock);
    const t0 = clock.now_ms();
    const log: string[] = [];
    const a = later<string>();
    const b = later<string>();
    s.scheduleCall(t0 + 10, 'start-a', () => s.join(a.promise, (r) => log.push(`${r}@${clock.now_ms() - t0}`)));
    s.scheduleCall(t0 + 10, 'start-b', () => s.join(b.promise, (r) => log.push(`${r}@${clock.now_ms() - t0}`)));
    s.scheduleCall(t0 + 10, 'same-instant', () => void log.push(`same@${clock.now_ms() - t0}`));
    s.scheduleCall(t0 + 20, 'later', () => void log.push(`later@${clock.now_ms() - t0}`));
    const run = s.advance(100);
    // b answers first, then a: the order applied must still be a, b.
    setImmediate(() => {
      b.resolve('b');
      setImmediate(() => a.resolve('a'));
    });
    const report = await run;
    expect(log).toEqual(['same@10', 'a@10', 'b@10', 'later@20']);
    expect(report.ran).toBe(4);
    expect(clock.now_ms() - t0).toBe(100);
  });

  it('runs work an applied result schedules at the same instant, and flushes at the end of a run', async () => {
    const clock = createClock();
    const s = createScheduler(clock);
    const t0 = clock.now_ms();
    const log: string[] = [];
    s.scheduleCall(t0 + 5, 'start', () =>
      s.join(Promise.resolve(1), () => {
        log.push('applied');
        s.afterCall(0, 'follow-up', () => void log.push(`follow-up@${clock.now_ms() - t0}`));
      }),
    );
    await s.settle(1_000);
    expect(log).toEqual(['applied', 'follow-up@5']);
    expect(s.pending()).toBe(0);
  });

  it('flushes once the bound of work in flight is reached, keeping join order', async () => {
    const clock = createClock();
    const s = createScheduler(clock);
    const t0 = clock.now_ms();
    const applied: number[] = [];
    for (let i = 0; i < 200; i++) s.scheduleCall(t0 + 1, 'start', () => s.join(Promise.resolve(i), (r) => void applied.push(r)));
    await s.advance(10);
    expect(applied).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });
});

/**
 * The reference the bucketed scheduler must match: every pending task in one array, the least
 * (due_ms, task_id) run next, cancelled ones removed at once. Synchronous tasks only.
 */
function referenceScheduler(clock: ReturnType<typeof createClock>) {
  let tasks: Array<{ task_id: number; due_ms: number; kind: string; run: () => void }> = [];
  let seq = 0;
  const run = (limit_ms: number, stopWhenIdle: boolean) => {
    const report = { ran: 0, kinds: {} as Record<string, number>, truncated: false };
    for (;;) {
      let best = -1;
      for (let i = 0; i < tasks.length; i++) {
        const t = tasks[i];
        if (best < 0 || t.due_ms < tasks[best].due_ms || (t.due_ms === tasks[best].due_ms && t.task_id < tasks[best].task_id)) best = i;
      }
      if (best < 0 || tasks[best].due_ms > limit_ms) break;
      const [t] = tasks.splice(best, 1);
      clock.setNow(t.due_ms);
      report.ran++;
      report.kinds[t.kind] = (report.kinds[t.kind] ?? 0) + 1;
      t.run();
    }
    if (!(stopWhenIdle && tasks.length === 0)) clock.setNow(limit_ms);
    return report;
  };
  return {
    scheduleCall(due_ms: number, kind: string, fn: () => void): number {
      tasks.push({ task_id: ++seq, due_ms: Math.max(due_ms, clock.now_ms()), kind, run: fn });
      return seq;
    },
    cancel(task_id: number): boolean {
      const before = tasks.length;
      tasks = tasks.filter((t) => t.task_id !== task_id);
      return tasks.length < before;
    },
    pending: () => tasks.length,
    nextDue_ms: () => (tasks.length === 0 ? undefined : Math.min(...tasks.map((t) => t.due_ms))),
    advance: async (ms: number) => run(clock.now_ms() + ms, false),
    settle: async (max_ms: number) => run(clock.now_ms() + max_ms, true),
  };
}

/** What a scripted task does when it runs: schedule children (offsets from now, some in the past) and cancel one id. */
interface TaskScript {
  kind: string;
  children: Array<{ offset_ms: number; script: number }>;
  cancel: number | null;
}

type Step =
  | { op: 'schedule'; offset_ms: number; script: number }
  | { op: 'cancel'; id: number }
  | { op: 'advance'; ms: number }
  | { op: 'settle' };

/** Small offsets, plus ones a multiple of the bucket cache's 256 slots apart (two due times sharing a slot). */
const offsetArb = (min: number, max: number): fc.Arbitrary<number> =>
  fc.oneof({ weight: 4, arbitrary: fc.integer({ min, max }) }, { weight: 1, arbitrary: fc.constantFrom(256, 257, 512) });
const scriptArb: fc.Arbitrary<TaskScript> = fc.record({
  kind: fc.constantFrom('a', 'b', 'c'),
  children: fc.array(fc.record({ offset_ms: offsetArb(-2, 4), script: fc.nat(7) }), { maxLength: 2 }),
  cancel: fc.option(fc.integer({ min: 1, max: 60 })),
});
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('schedule' as const), offset_ms: offsetArb(-3, 8), script: fc.nat(7) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('cancel' as const), id: fc.integer({ min: 1, max: 60 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.nat(6) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'settle' as const }) },
);

type Driven = Pick<ReturnType<typeof referenceScheduler>, 'scheduleCall' | 'cancel' | 'pending' | 'nextDue_ms' | 'advance' | 'settle'>;

/** Runs a script against one scheduler and returns everything observable: run order and times, reports, cancels, pending. */
async function drive(make: (clock: ReturnType<typeof createClock>) => Driven, scripts: TaskScript[], steps: Step[]): Promise<unknown[]> {
  const clock = createClock({ start_ms: 1_000 });
  const s = make(clock);
  const seen: unknown[] = [];
  // A task bound keeps a script whose tasks keep spawning at the same instant finite.
  let spawned = 0;
  const task =
    (n: number): (() => void) =>
    () => {
      const script = scripts[n];
      seen.push(`${script.kind}${n}@${clock.now_ms()}`);
      if (spawned < 200) {
        for (const child of script.children) {
          spawned++;
          seen.push(['id', s.scheduleCall(clock.now_ms() + child.offset_ms, scripts[child.script].kind, task(child.script))]);
        }
      }
      if (script.cancel !== null) seen.push(['cancel', script.cancel, s.cancel(script.cancel)]);
    };
  for (const step of steps) {
    if (step.op === 'schedule')
      seen.push(['id', s.scheduleCall(clock.now_ms() + step.offset_ms, scripts[step.script].kind, task(step.script))]);
    else if (step.op === 'cancel') seen.push(['cancel', step.id, s.cancel(step.id)]);
    else if (step.op === 'advance') seen.push(['advance', await s.advance(step.ms), clock.now_ms()]);
    else seen.push(['settle', await s.settle(1_000), clock.now_ms()]);
    seen.push(['pending', s.pending(), s.nextDue_ms()]);
  }
  seen.push(['settle', await s.settle(1_000), clock.now_ms(), s.pending()]);
  return seen;
}

describe('scheduler order (buckets by due ms)', () => {
  propIt.prop([fc.array(scriptArb, { minLength: 8, maxLength: 8 }), fc.array(stepArb, { maxLength: 60 })])(
    'runs, reports, cancels and counts exactly as the reference (due_ms, task_id) order',
    async (scripts, steps) => {
      const got = await drive((clock) => createScheduler(clock), scripts, steps);
      const want = await drive((clock) => referenceScheduler(clock), scripts, steps);
      expect(got).toEqual(want);
    },
  );

  it('runs tasks due at the same ms in scheduling order, including ones added at that instant and past-due ones', async () => {
    const clock = createClock({ start_ms: 0 });
    const s = createScheduler(clock);
    const log: string[] = [];
    s.scheduleCall(10, 'x', () => {
      log.push('first');
      s.scheduleCall(10, 'x', () => void log.push('added-same-ms'));
      s.scheduleCall(3, 'x', () => void log.push('added-past-due'));
    });
    s.scheduleCall(10, 'x', () => void log.push('second'));
    s.scheduleCall(9, 'x', () => void log.push('earlier'));
    await s.settle(100);
    expect(log).toEqual(['earlier', 'first', 'second', 'added-same-ms', 'added-past-due']);
    expect(clock.now_ms()).toBe(10);
  });

  it('keeps scheduling order at one due ms when another due ms takes its cache slot in between', async () => {
    const clock = createClock({ start_ms: 0 });
    const s = createScheduler(clock);
    const log: string[] = [];
    // 1000 and 1256 share a slot of the 256-slot cache: the second task at 1000 opens a second bucket there.
    s.scheduleCall(1000, 'x', () => void log.push('a1'));
    s.scheduleCall(1256, 'x', () => void log.push('b1'));
    s.scheduleCall(1000, 'x', () => void log.push('a2'));
    s.scheduleCall(1256, 'x', () => void log.push('b2'));
    s.scheduleCall(1000, 'x', () => void log.push('a3'));
    await s.settle(10_000);
    expect(log).toEqual(['a1', 'a2', 'a3', 'b1', 'b2']);
  });

  it('cancel is true once for a pending task, false after it ran, and settle ignores cancelled tasks', async () => {
    const clock = createClock({ start_ms: 0 });
    const s = createScheduler(clock);
    const ran: number[] = [];
    const ids = Array.from({ length: 3 }, (_, i) => s.scheduleCall(50, 'y', () => void ran.push(i)));
    const later = s.scheduleCall(500, 'z', () => void ran.push(99));
    expect(s.cancel(ids[1])).toBe(true);
    expect(s.cancel(ids[1])).toBe(false);
    expect(s.cancel(ids[2] + 0.5)).toBe(false);
    expect(s.pending()).toBe(3);
    await s.advance(60);
    expect(ran).toEqual([0, 2]);
    expect(s.cancel(ids[0])).toBe(false);
    expect(s.cancel(later)).toBe(true);
    expect(s.nextDue_ms()).toBeUndefined();
    const report = await s.settle(10_000);
    expect(report.ran).toBe(0);
    expect(clock.now_ms()).toBe(60);
    expect(s.cancel(12_345)).toBe(false);
  });

  it('reports kinds in first-seen order when runs of kinds interleave', async () => {
    const clock = createClock({ start_ms: 0 });
    const s = createScheduler(clock);
    for (const kind of ['b', 'b', 'a', 'b', 'c', 'a']) s.scheduleCall(1, kind, () => undefined);
    const report = await s.advance(5);
    expect(Object.entries(report.kinds)).toEqual([
      ['b', 3],
      ['a', 2],
      ['c', 1],
    ]);
  });

  it('keeps order and cancels right across many thousands of tasks (ids past the first pages of pending bits)', async () => {
    const clock = createClock({ start_ms: 0 });
    const s = createScheduler(clock);
    const order: number[] = [];
    const ids: number[] = [];
    for (let i = 0; i < 20_000; i++) ids.push(s.scheduleCall((i * 7919) % 97, 'k', () => void order.push(i)));
    for (let i = 0; i < 20_000; i += 3) s.cancel(ids[i]);
    await s.settle(1_000);
    const want = Array.from({ length: 20_000 }, (_, i) => i)
      .filter((i) => i % 3 !== 0)
      .sort((x, y) => ((x * 7919) % 97) - ((y * 7919) % 97) || x - y);
    expect(order).toEqual(want);
    expect(s.pending()).toBe(0);
  });
});

describe('cancelled tasks', () => {
  it('release what their closures hold long before their due time (a cancelled retry held its delivery for hours)', async () => {
    // A full collection on demand, without starting vitest with --expose-gc.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const s = createScheduler(createClock({ start_ms: 0 }));
    const held: WeakRef<object>[] = [];
    const ids: number[] = [];
    const ran: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const delivery = { attempt_log: new Array(64).fill(i) };
      held.push(new WeakRef(delivery));
      // Every tenth task stays, in the same buckets as cancelled ones (due times repeat every 100 ms).
      const id = s.scheduleCall(3_600_000 + (i % 100), 'webhook.attempt', () => void ran.push(delivery.attempt_log[0]));
      if (i % 10 !== 0) ids.push(id);
    }
    for (const id of ids) s.cancel(id);
    // WeakRefs read in the job that made them stay alive until it ends.
    await new Promise((r) => setImmediate(r));
    gc();
    const alive = held.filter((r) => r.deref() !== undefined).length;
    // The 300 kept, and the cancels past the last release (at most max(1024, live)) may still be held.
    expect(alive).toBeLessThanOrEqual(300 + 1024);
    expect(s.pending()).toBe(300);
    expect((await s.settle(10_000_000)).ran).toBe(300);
    expect(ran.sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, k) => k * 10));
  });
});

describe('scheduler owners', () => {
  it('tasks scheduled under runAs, and what they schedule in turn, are owned; cancelOwned cancels only those', async () => {
    const clock = createClock();
    const s = createScheduler(clock);
    const t0 = clock.now_ms();
    const log: string[] = [];
    s.runAs('org_a', () => {
      s.scheduleCall(t0 + 10, 'a1', () => {
        log.push(`a1 as ${s.owner()}`);
        s.afterCall(10, 'a2', () => void log.push('a2'));
      });
    });
    s.runAs('org_b', () => s.scheduleCall(t0 + 15, 'b1', () => void log.push(`b1 as ${s.owner()}`)));
    s.scheduleCall(t0 + 15, 'none', () => void log.push(`none as ${s.owner()}`));
    expect(s.owner()).toBeNull();
    await s.advance(12);
    expect(log).toEqual(['a1 as org_a']);
    expect(s.pending()).toBe(3);
    // a2 was scheduled by a1 while it ran as org_a: it is org_a's.
    expect(s.cancelOwned('org_a')).toBe(1);
    expect(s.cancelOwned('org_a')).toBe(0);
    expect(s.pending()).toBe(2);
    await s.advance(100);
    expect(log).toEqual(['a1 as org_a', 'b1 as org_b', 'none as null']);
    expect(s.pending()).toBe(0);
  });

  it('runAs restores the outer owner when fn throws', () => {
    const s = createScheduler(createClock());
    expect(() =>
      s.runAs('org_a', () =>
        s.runAs('org_b', () => {
          throw new Error('x');
        }),
      ),
    ).toThrow('x');
    expect(s.owner()).toBeNull();
  });

  propIt.prop([fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.constantFrom('org_a', 'org_b', null)), { maxLength: 60 })])(
    'after cancelOwned, exactly the other tasks run, in (due, scheduling) order',
    async (tasks) => {
      const clock = createClock();
      const s = createScheduler(clock);
      const t0 = clock.now_ms();
      const ran: number[] = [];
      tasks.forEach(([due, who], i) => s.runAs(who, () => s.scheduleCall(t0 + due, 'k', () => void ran.push(i))));
      s.cancelOwned('org_a');
      await s.advance(100);
      const expected = tasks
        .map((t, i) => [t, i] as const)
        .filter(([t]) => t[1] !== 'org_a')
        .sort((x, y) => x[0][0] - y[0][0] || x[1] - y[1])
        .map(([, i]) => i);
      expect(ran).toEqual(expected);
    },
  );
});
