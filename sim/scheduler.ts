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
  /** Moves sim time with wall time × speed; `onAdvance` sees each movement (the journal records them). */
  startRealtime(onAdvance?: (ms: number) => void): () => void;
}

const TASK_BOUND = 1_000_000;

export function createScheduler(clock: Clock): Scheduler {
  // A binary heap would be faster; a sorted array keeps the order obvious and is plenty for now.
  const queue: Task[] = [];
  let seq = 0;
  let chain: Promise<unknown> = Promise.resolve();

  const insert = (task: Task): void => {
    let lo = 0;
    let hi = queue.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const q = queue[mid];
      if (q.due_ms < task.due_ms || (q.due_ms === task.due_ms && q.task_id < task.task_id)) lo = mid + 1;
      else hi = mid;
    }
    queue.splice(lo, 0, task);
  };

  const runUntil = async (limit_ms: number, stopWhenIdle: boolean): Promise<RunReport> => {
    const report: RunReport = { ran: 0, kinds: {}, truncated: false };
    while (queue.length > 0 && queue[0].due_ms <= limit_ms) {
      if (report.ran >= TASK_BOUND) {
        report.truncated = true;
        break;
      }
      const task = queue.shift()!;
      clock.setNow(task.due_ms);
      report.ran++;
      report.kinds[task.kind] = (report.kinds[task.kind] ?? 0) + 1;
      await task.run();
    }
    if (!report.truncated && !(stopWhenIdle && queue.length === 0)) clock.setNow(limit_ms);
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
      insert(task);
      return task.task_id;
    },
    after(delay_ms, kind, run) {
      return scheduler.schedule(clock.now_ms() + Math.max(0, delay_ms), kind, run);
    },
    cancel(task_id) {
      const i = queue.findIndex((t) => t.task_id === task_id);
      if (i < 0) return false;
      queue.splice(i, 1);
      return true;
    },
    pending: () => queue.length,
    nextDue_ms: () => queue[0]?.due_ms,
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
        if (ms > 0) onAdvance?.(ms);
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
