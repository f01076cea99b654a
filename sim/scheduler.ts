// Ordered timers on the sim clock: (due_ms, seq) order, so ties run in the order they were scheduled.
// `advance`/`settle` run due work one task at a time, awaiting each (a webhook attempt is a task), and
// are serialized so two control calls never interleave. The realtime driver lives here too.
import { type Clock, wallNow_ms } from './clock.ts';

export interface Task {
  readonly task_id: number;
  readonly due_ms: number;
  /** A short label for timelines and `settle` reports, e.g. `deposit.confirm`. */
  readonly kind: string;
  readonly run: () => void | Promise<void>;
}

export interface RunReport {
  ran: number;
  kinds: Record<string, number>;
  /** True when the task bound stopped the run before the work was done. */
  truncated: boolean;
}

export interface Scheduler {
  schedule(due_ms: number, kind: string, run: Task['run']): number;
  after(delay_ms: number, kind: string, run: Task['run']): number;
  cancel(task_id: number): boolean;
  pending(): number;
  nextDue_ms(): number | undefined;
  /** Runs everything due up to now + ms, then sets the clock to now + ms. */
  advance(ms: number): Promise<RunReport>;
  /** Runs until no work remains or the clock reaches now + max_ms. */
  settle(max_ms: number): Promise<RunReport>;
  /** Runs whatever is due at the current time (used after API calls in realtime mode). */
  runDue(): Promise<RunReport>;
  /**
   * Outside work a running task started without waiting for it (a webhook POST). The run carries on with
   * the tasks due at the same instant; before the clock moves on (or the run ends, or too many are in
   * flight) it waits for all joined work and then calls each `apply` in join order, so results land in
   * the same order and at the same sim time whichever answer comes back first.
   */
  join<T>(work: Promise<T>, apply: (result: T) => void): void;
  /** Moves sim time with wall time × speed; `onAdvance` sees each movement (the journal records them). */
  startRealtime(onAdvance?: (ms: number) => void): () => void;
}

const TASK_BOUND = 1_000_000;
/** Joined outside work in flight at once, at most (a bound on sockets and memory, not on correctness). */
const JOIN_BOUND = 64;

/** Earlier due first; equal due times in scheduling order. */
const before = (x: Task, y: Task): boolean => x.due_ms < y.due_ms || (x.due_ms === y.due_ms && x.task_id < y.task_id);

/** A binary min-heap of tasks: O(log n) schedule and pop (a sorted array's splice was O(n) per task). */
function createHeap() {
  const items: Task[] = [];
  // Sift with a hole (one write per level) rather than swapping pairs: the heap holds every pending timer.
  const up = (i: number): void => {
    const t = items[i];
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(t, items[parent])) break;
      items[i] = items[parent];
      i = parent;
    }
    items[i] = t;
  };
  const down = (i: number): void => {
    const t = items[i];
    const n = items.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const m = r < n && before(items[r], items[l]) ? r : l;
      if (!before(items[m], t)) break;
      items[i] = items[m];
      i = m;
    }
    items[i] = t;
  };
  return {
    push(t: Task): void {
      items.push(t);
      up(items.length - 1);
    },
    peek: (): Task | undefined => items[0],
    pop(): Task | undefined {
      const top = items[0];
      const last = items.pop();
      if (items.length > 0 && last) {
        items[0] = last;
        down(0);
      }
      return top;
    },
    get size(): number {
      return items.length;
    },
  };
}

export function createScheduler(clock: Clock): Scheduler {
  const heap = createHeap();
  // Cancelled tasks stay in the heap and are skipped when they surface (lazy deletion).
  const cancelled = new Set<number>();
  const live = new Set<number>();
  let seq = 0;
  let chain: Promise<unknown> = Promise.resolve();

  /** The next task that was not cancelled, dropping cancelled ones on the way. */
  const head = (): Task | undefined => {
    let t = heap.peek();
    while (t && cancelled.has(t.task_id)) {
      heap.pop();
      cancelled.delete(t.task_id);
      t = heap.peek();
    }
    return t;
  };

  let joined: Array<{ work: Promise<unknown>; apply: (result: unknown) => void }> = [];

  /** Waits for every joined work, then applies the results in join order (never in answer order). */
  const flush = async (): Promise<void> => {
    const batch = joined;
    joined = [];
    const results = await Promise.all(batch.map((j) => j.work));
    for (let i = 0; i < batch.length; i++) batch[i].apply(results[i]);
  };

  const runUntil = async (limit_ms: number, stopWhenIdle: boolean): Promise<RunReport> => {
    const report: RunReport = { ran: 0, kinds: {}, truncated: false };
    for (;;) {
      const next = head();
      // Joined results land before time moves on; applying them may schedule more work at this instant.
      if (joined.length > 0 && (!next || next.due_ms > clock.now_ms() || joined.length >= JOIN_BOUND)) {
        await flush();
        continue;
      }
      if (!next || next.due_ms > limit_ms) break;
      if (report.ran >= TASK_BOUND) {
        report.truncated = true;
        break;
      }
      const task = heap.pop()!;
      live.delete(task.task_id);
      clock.setNow(task.due_ms);
      report.ran++;
      report.kinds[task.kind] = (report.kinds[task.kind] ?? 0) + 1;
      const pending = task.run();
      // A synchronous task needs no await (a microtask turn per task adds up over millions of tasks).
      if (pending) await pending;
    }
    if (joined.length > 0) await flush();
    if (!report.truncated && !(stopWhenIdle && live.size === 0)) clock.setNow(limit_ms);
    return report;
  };

  const serialized = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = chain.then(fn, fn);
    chain = next.catch(() => undefined);
    return next;
  };

  const scheduler: Scheduler = {
    schedule(due_ms, kind, run) {
      const task: Task = { task_id: ++seq, due_ms: Math.max(due_ms, clock.now_ms()), kind, run };
      heap.push(task);
      live.add(task.task_id);
      return task.task_id;
    },
    after(delay_ms, kind, run) {
      return scheduler.schedule(clock.now_ms() + Math.max(0, delay_ms), kind, run);
    },
    join(work, apply) {
      joined.push({ work, apply: apply as (result: unknown) => void });
    },
    cancel(task_id) {
      if (!live.delete(task_id)) return false;
      cancelled.add(task_id);
      return true;
    },
    pending: () => live.size,
    nextDue_ms: () => head()?.due_ms,
    advance: (ms) => serialized(() => runUntil(clock.now_ms() + Math.max(0, ms), false)),
    settle: (max_ms) => serialized(() => runUntil(clock.now_ms() + Math.max(0, max_ms), true)),
    runDue: () => serialized(() => runUntil(clock.now_ms(), false)),
    startRealtime(onAdvance) {
      // Sim time follows wall time from here on, scaled by speed; ticks never overlap.
      const wall_start = wallNow_ms();
      const sim_start = clock.now_ms();
      let busy = false;
      const timer = setInterval(() => {
        if (busy) return;
        busy = true;
        const target = sim_start + Math.floor((wallNow_ms() - wall_start) * clock.speed);
        const ms = Math.max(0, target - clock.now_ms());
        // Every tick is reported, 0 ms too: it still runs what is due now, which a replay must do at the same point.
        onAdvance?.(ms);
        scheduler
          .advance(ms)
          .catch(() => undefined)
          .finally(() => {
            busy = false;
          });
      }, 20);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
  return scheduler;
}
