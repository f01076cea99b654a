// Joined outside work (scheduler `join`): results are applied in join order, at the instant the work was
// started, after the other tasks due then and before time moves on, whichever answer arrives first.
import { describe, expect, it } from 'vitest';
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
    s.schedule(t0 + 10, 'start-a', () => s.join(a.promise, (r) => log.push(`${r}@${clock.now_ms() - t0}`)));
    s.schedule(t0 + 10, 'start-b', () => s.join(b.promise, (r) => log.push(`${r}@${clock.now_ms() - t0}`)));
    s.schedule(t0 + 10, 'same-instant', () => void log.push(`same@${clock.now_ms() - t0}`));
    s.schedule(t0 + 20, 'later', () => void log.push(`later@${clock.now_ms() - t0}`));
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
    s.schedule(t0 + 5, 'start', () =>
      s.join(Promise.resolve(1), () => {
        log.push('applied');
        s.after(0, 'follow-up', () => void log.push(`follow-up@${clock.now_ms() - t0}`));
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
    for (let i = 0; i < 200; i++) s.schedule(t0 + 1, 'start', () => s.join(Promise.resolve(i), (r) => void applied.push(r)));
    await s.advance(10);
    expect(applied).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });
});
