// Ordered timers on the sim clock: (due_ms, seq) order, so ties run in the order they were scheduled.
// `advance`/`settle` run due work one task at a time, awaiting each (a webhook attempt is a task), and
// are serialized so two control calls never interleave. Tasks carry an owner (an organization), so a
// deleted organization's pending work can be cancelled. The realtime driver lives here too.
// A task is data: its kind and plain arguments (ids, numbers), run by the handler the world registered for
// its kind (`runWith`), so a world's pending work can be copied with it (a snapshot). A task that waits on
// outside work (a held request, a webhook answer in flight) is a call (`scheduleCall`), which a copy refuses.
import { type Clock, wallNow_ms } from './clock.ts';

/** A task that is a call: outside work in flight, and tests. A scheduler holding one cannot be copied. */
type Call = () => void | Promise<void>;

/** Runs a data task: the handler registered for `kind`, given the task's arguments and its id. */
type TaskRunner = (kind: string, args: unknown, task_id: number) => void | Promise<void>;

/** The protocol `deepCopy` (fake-provider/engine/copy.ts) uses for objects that know how to copy themselves. */
export const COPY = Symbol.for('swapsim.copy');

/** What `deepCopy` passes to a `[COPY]` method: copies a value reached from the object, shared references kept. */
export type CopyFn = <T>(value: T) => T;

interface RunReport {
  ran: number;
  kinds: Record<string, number>;
  /** True when the task bound stopped the run before the work was done. */
  truncated: boolean;
}

export interface Scheduler {
  /** A task of `kind` due at `due_ms` (or now, if that is past), its `args` plain data: the runner runs it. */
  schedule(due_ms: number, kind: string, args?: unknown): number;
  after(delay_ms: number, kind: string, args?: unknown): number;
  /** A task that is a call (outside work in flight, tests): same order as data tasks; not copyable. */
  scheduleCall(due_ms: number, kind: string, run: Call): number;
  afterCall(delay_ms: number, kind: string, run: Call): number;
  /** Who runs data tasks (a world: the handler of each kind, given that world). */
  runWith(runner: TaskRunner): void;
  cancel(task_id: number): boolean;
  pending(): number;
  nextDue_ms(): number | undefined;
  /** Runs everything due up to now + ms, then sets the clock to now + ms. */
  advance(ms: number): Promise<RunReport>;
  /** Runs until no work remains or the clock reaches now + max_ms. */
  settle(max_ms: number): Promise<RunReport>;
  /** Runs whatever is due at the current time (used after API calls in realtime mode). */
  runDue(): Promise<RunReport>;
  /** Runs `fn` between two runs (never while a task is half done or joined work is out): a snapshot's copy. */
  exclusive<T>(fn: () => T): Promise<T>;
  /**
   * Outside work a running task started without waiting for it (a webhook POST). The run carries on with
   * the tasks due at the same instant; before the clock moves on (or the run ends, or too many are in
   * flight) it waits for all joined work and then calls each `apply` in join order, so results land in
   * the same order and at the same sim time whichever answer comes back first.
   */
  join<T>(work: Promise<T>, apply: (result: T) => void): void;
  /** Moves sim time with wall time × speed; `onAdvance` sees each movement (the journal records them). */
  startRealtime(onAdvance?: (ms: number) => void): () => void;
  /**
   * Runs `fn` with `owner` (an organization id) as the owner of what it schedules synchronously; a task
   * runs as its owner, so what it schedules is owned too. Null: owned by no one.
   */
  runAs<T>(owner: string | null, fn: () => T): T;
  /** The owner of what is scheduled now (the running task's or `runAs`'s), or null. */
  owner(): string | null;
  /** Cancels every pending task `owner` owns (an organization deleted); returns how many. */
  cancelOwned(owner: string): number;
  /**
   * Kinds of pending call tasks and joined work in flight, with counts: what keeps this scheduler from being
   * copied (empty when it can be).
   */
  uncopyable(): Record<string, number>;
  /** Its copy (pending tasks, ids, order) on `copy`'s copy of its clock; throws when `uncopyable` is not empty. */
  [COPY](copy: CopyFn): Scheduler;
}

const TASK_BOUND = 1_000_000;
/** Joined outside work in flight at once, at most (a bound on sockets and memory, not on correctness). */
const JOIN_BOUND = 64;
/** What a run or cancelled slot holds, so a bucket does not keep spent arguments (or a call's captures) alive. */
const NOOP = null;
/**
 * Cancelled tasks whose arguments or calls a bucket may still hold before they are all released (see `cancel`).
 * A cancelled webhook retry held its delivery, attempt log and machine snapshot until its due time, hours on:
 * in the soak, a fifth of the live heap was deleted organizations' retries (when tasks were closures).
 */
const CANCELLED_HELD_MIN = 1024;
/** Spent buckets kept for reuse, at most (after a burst of distinct due times the rest go to the GC). */
const SPARE_BOUND = 1024;
/** Slots of the cache that finds the newest bucket at a due ms (see createTimers). */
const SLOTS = 256;

/**
 * Tasks due at one sim ms, in scheduling order: `items` holds (task_id, kind, args or call, owner) quadruples
 * one after another (one array per bucket, not an object per task) and `next` is the read cursor into it.
 * A call is told from data by its type: arguments are never functions.
 */
interface Bucket {
  due_ms: number;
  items: unknown[];
  next: number;
}

/** Items per task in a bucket: task_id, kind, args or call, owner. */
const STRIDE = 4;

/**
 * Pending timers as buckets of tasks, kept in a binary min-heap by (due_ms, first task id). Tasks cost one
 * array push (no object each). A task joins an existing bucket only if that bucket is the newest one at
 * its due ms; otherwise it opens a new one, whose ids all exceed the older buckets' at that ms, so the
 * heap order is exactly (due_ms, task_id). The newest bucket per due ms is found through a small
 * direct-mapped cache (slot = due ms modulo SLOTS): a slot holding a bucket of the same due ms holds the
 * newest one (any newer bucket at that ms would have taken the slot); a miss only opens a new bucket.
 * Many lifecycles share block times, so in a batch most tasks land in a few buckets.
 */
class Timers {
  private readonly heap: Bucket[] = [];
  private readonly slots: Array<Bucket | undefined> = new Array(SLOTS).fill(undefined);
  // Spent buckets are reused: a lifecycle alone in the world opens a bucket for most of its tasks.
  private readonly spare: Bucket[] = [];

  push(task_id: number, due_ms: number, kind: string, run: unknown, owner: string | null): void {
    const rem = due_ms % SLOTS;
    const slot = rem >= 0 ? rem | 0 : 0;
    let b = this.slots[slot];
    if (b !== undefined && b.due_ms === due_ms) {
      b.items.push(task_id, kind, run, owner);
      return;
    }
    b = this.spare.pop();
    if (b === undefined) b = { due_ms, items: [task_id, kind, run, owner], next: 0 };
    else {
      b.due_ms = due_ms;
      b.items.push(task_id, kind, run, owner);
    }
    this.slots[slot] = b;
    this.heap.push(b);
    this.up(this.heap.length - 1);
  }

  /** The earliest bucket with tasks left, dropping spent ones (a bucket is spent once its cursor is at the end). */
  first(): Bucket | undefined {
    const heap = this.heap;
    while (heap.length > 0) {
      const b = heap[0];
      if (b.next < b.items.length) return b;
      const tail = heap.pop()!;
      if (heap.length > 0) {
        heap[0] = tail;
        this.down(0);
      }
      // A recycled bucket's due is NaN, so a slot still naming it never matches (NaN equals nothing).
      b.items.length = 0;
      b.next = 0;
      b.due_ms = Number.NaN;
      if (this.spare.length < SPARE_BOUND) this.spare.push(b);
    }
    return undefined;
  }

  /** Every bucket still in the heap (spent ones included), in no order. */
  buckets(): readonly Bucket[] {
    return this.heap;
  }

  /**
   * The same buckets in the same heap positions (so the heap order holds as it is), each slot's payload put
   * through `payload`. The slot cache starts empty: a task then opens a new bucket at a due ms that already
   * has one, whose ids all exceed the older bucket's, so the order of tasks is unchanged.
   */
  copy(payload: (value: unknown) => unknown): Timers {
    const out = new Timers();
    for (const b of this.heap) {
      const items = b.items.slice();
      for (let i = 2; i < items.length; i += STRIDE) items[i] = payload(items[i]);
      out.heap.push({ due_ms: b.due_ms, items, next: b.next });
    }
    return out;
  }

  // Sift with a hole (one write per level) rather than swapping pairs.
  private up(i: number): void {
    const heap = this.heap;
    const b = heap[i];
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(b, heap[parent])) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = b;
  }

  private down(i: number): void {
    const heap = this.heap;
    const b = heap[i];
    const n = heap.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const m = r < n && before(heap[r], heap[l]) ? r : l;
      if (!before(heap[m], b)) break;
      heap[i] = heap[m];
      i = m;
    }
    heap[i] = b;
  }
}

const before = (x: Bucket, y: Bucket): boolean =>
  x.due_ms < y.due_ms || (x.due_ms === y.due_ms && (x.items[0] as number) < (y.items[0] as number));

/**
 * Which task ids are still pending: one bit per id ever scheduled (ids are dense from 1), so scheduling,
 * running and cancelling touch a byte rather than a Set entry. Cancelled tasks stay in their bucket and
 * are skipped when they come up (lazy deletion).
 */
class PendingBits {
  private bits = new Uint8Array(1024);

  set(id: number): void {
    const byte = id >>> 3;
    if (byte >= this.bits.length) {
      const grown = new Uint8Array(Math.max(this.bits.length * 2, byte + 1));
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[byte] |= 1 << (id & 7);
  }

  has(id: number): boolean {
    return id >>> 3 < this.bits.length ? (this.bits[id >>> 3] & (1 << (id & 7))) !== 0 : false;
  }

  clear(id: number): void {
    this.bits[id >>> 3] &= ~(1 << (id & 7));
  }

  copy(): PendingBits {
    const out = new PendingBits();
    out.bits = this.bits.slice();
    return out;
  }
}

/**
 * A class, not closures over a factory's locals: its methods are one function shared by every world's
 * scheduler. Per-world closures let the optimizing compiler inline one world's function (and the objects
 * it closes over) into the engine's hot code; when that world is collected the code is thrown away and
 * compiled again (measured: a batch run after the previous world died ran at half speed; docs/engine.md).
 */
class SimScheduler implements Scheduler {
  private readonly timers = new Timers();
  private readonly pendingIds = new PendingBits();
  private live = 0;
  /** Tasks cancelled since the last release whose closures may still sit in their buckets. */
  private cancelled_held = 0;
  private seq = 0;
  private chain: Promise<unknown> = Promise.resolve();
  /** Who owns what is scheduled now (see `runAs`). */
  private current_owner: string | null = null;
  private joined: Array<{ work: Promise<unknown>; apply: (result: unknown) => void }> = [];
  private runner: TaskRunner = (kind) => {
    throw new Error(`no runner for the data task ${kind}: a world's scheduler runs its tasks (runWith)`);
  };

  constructor(private readonly clock: Clock) {}

  /** The bucket holding the next task that was not cancelled, its cursor on that task. */
  private head(): Bucket | undefined {
    for (;;) {
      const b = this.timers.first();
      if (b === undefined) return undefined;
      while (b.next < b.items.length && !this.pendingIds.has(b.items[b.next] as number)) {
        b.items[b.next + 2] = NOOP;
        b.items[b.next + 3] = null;
        b.next += STRIDE;
      }
      if (b.next < b.items.length) return b;
    }
  }

  /** Waits for every joined work, then applies the results in join order (never in answer order). */
  private async flush(): Promise<void> {
    const batch = this.joined;
    this.joined = [];
    const results = await Promise.all(batch.map((j) => j.work));
    for (let i = 0; i < batch.length; i++) batch[i].apply(results[i]);
  }

  private async runUntil(limit_ms: number, stopWhenIdle: boolean): Promise<RunReport> {
    const clock = this.clock;
    const report: RunReport = { ran: 0, kinds: {}, truncated: false };
    // Kinds are counted per run of equal kinds (a block's confirmations come in runs): one keyed write per
    // run, not per task. Runs end in the order they start, so the keys keep first-seen order.
    let run_kind = '';
    let run_count = 0;
    for (;;) {
      const next = this.head();
      // Joined results land before time moves on; applying them may schedule more work at this instant.
      if (this.joined.length > 0 && (next === undefined || next.due_ms > clock.now_ms() || this.joined.length >= JOIN_BOUND)) {
        await this.flush();
        continue;
      }
      if (next === undefined || next.due_ms > limit_ms) break;
      if (report.ran >= TASK_BOUND) {
        report.truncated = true;
        break;
      }
      // Take the task off its bucket before running it: a task may schedule more at this same instant.
      const i = next.next;
      next.next = i + STRIDE;
      const kind = next.items[i + 1] as string;
      const payload = next.items[i + 2];
      const task_id = next.items[i] as number;
      const task_owner = next.items[i + 3] as string | null;
      next.items[i + 2] = NOOP;
      next.items[i + 3] = null;
      this.pendingIds.clear(task_id);
      this.live--;
      clock.setNow(next.due_ms);
      report.ran++;
      if (kind === run_kind) run_count++;
      else {
        if (run_count > 0) report.kinds[run_kind] = (report.kinds[run_kind] ?? 0) + run_count;
        run_kind = kind;
        run_count = 1;
      }
      // The task runs as its owner: what it schedules now is owned too (an async task's later part is not).
      const outer = this.current_owner;
      this.current_owner = task_owner;
      let pending: void | Promise<void>;
      try {
        pending = typeof payload === 'function' ? (payload as Call)() : this.runner(kind, payload, task_id);
      } finally {
        this.current_owner = outer;
      }
      // A synchronous task needs no await (a microtask turn per task adds up over millions of tasks).
      if (pending) await pending;
    }
    if (run_count > 0) report.kinds[run_kind] = (report.kinds[run_kind] ?? 0) + run_count;
    if (this.joined.length > 0) await this.flush();
    if (!report.truncated && !(stopWhenIdle && this.live === 0)) clock.setNow(limit_ms);
    return report;
  }

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  schedule(due_ms: number, kind: string, args: unknown = null): number {
    // Arguments are data: a function here would run as a call and make the world uncopyable unseen.
    if (typeof args === 'function') throw new TypeError(`task ${kind}: arguments are data; a call is scheduleCall's`);
    return this.push(due_ms, kind, args);
  }

  after(delay_ms: number, kind: string, args: unknown = null): number {
    return this.schedule(this.clock.now_ms() + Math.max(0, delay_ms), kind, args);
  }

  scheduleCall(due_ms: number, kind: string, run: Call): number {
    return this.push(due_ms, kind, run);
  }

  afterCall(delay_ms: number, kind: string, run: Call): number {
    return this.push(this.clock.now_ms() + Math.max(0, delay_ms), kind, run);
  }

  private push(due_ms: number, kind: string, payload: unknown): number {
    const task_id = ++this.seq;
    const now = this.clock.now_ms();
    this.timers.push(task_id, Math.max(due_ms, now), kind, payload, this.current_owner);
    this.pendingIds.set(task_id);
    this.live++;
    return task_id;
  }

  runWith(runner: TaskRunner): void {
    this.runner = runner;
  }

  uncopyable(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const b of this.timers.buckets()) {
      for (let i = b.next; i < b.items.length; i += STRIDE) {
        if (typeof b.items[i + 2] !== 'function' || !this.pendingIds.has(b.items[i] as number)) continue;
        const kind = b.items[i + 1] as string;
        out[kind] = (out[kind] ?? 0) + 1;
      }
    }
    if (this.joined.length > 0) out.joined = this.joined.length;
    return out;
  }

  [COPY](copy: CopyFn): Scheduler {
    const busy = Object.entries(this.uncopyable());
    if (busy.length > 0) throw new Error(`the scheduler has outside work in flight (${busy.map(([k, n]) => `${n} ${k}`).join(', ')})`);
    const out = new SimScheduler(copy(this.clock));
    // Pending tasks' arguments are copied with the world (shared references stay shared); spent slots hold null.
    const timers = this.timers.copy((payload) => copy(payload));
    Object.assign(out, { timers, pendingIds: this.pendingIds.copy(), live: this.live, seq: this.seq });
    return out;
  }

  join<T>(work: Promise<T>, apply: (result: T) => void): void {
    this.joined.push({ work, apply: apply as (result: unknown) => void });
  }

  cancel(task_id: number): boolean {
    // Only ids this scheduler handed out: the bit index would truncate a fraction onto another task's id.
    if (!Number.isInteger(task_id) || !this.pendingIds.has(task_id)) return false;
    this.pendingIds.clear(task_id);
    this.live--;
    // No index from id to bucket on the hot path: once cancels outnumber the live tasks (and a floor), one
    // pass releases every cancelled closure, so a pass costs O(live) per as many cancels.
    if (++this.cancelled_held > Math.max(CANCELLED_HELD_MIN, this.live)) this.releaseCancelled();
    return true;
  }

  /** Empties the slots of cancelled tasks not yet reached (a run never reads them: `head` skips them). */
  private releaseCancelled(): void {
    this.cancelled_held = 0;
    for (const b of this.timers.buckets()) {
      for (let i = b.next; i < b.items.length; i += STRIDE) {
        if (b.items[i + 2] === NOOP || this.pendingIds.has(b.items[i] as number)) continue;
        b.items[i + 2] = NOOP;
        b.items[i + 3] = null;
      }
    }
  }

  pending(): number {
    return this.live;
  }

  runAs<T>(as: string | null, fn: () => T): T {
    const outer = this.current_owner;
    this.current_owner = as;
    try {
      return fn();
    } finally {
      this.current_owner = outer;
    }
  }

  owner(): string | null {
    return this.current_owner;
  }

  cancelOwned(of: string): number {
    // Deleting an organization is rare: a scan of the pending tasks, no index kept on the hot path.
    let cancelled = 0;
    for (const b of this.timers.buckets()) {
      for (let i = b.next; i < b.items.length; i += STRIDE) {
        const id = b.items[i] as number;
        if (b.items[i + 3] !== of || !this.pendingIds.has(id)) continue;
        this.pendingIds.clear(id);
        // Its closure (and the entities it holds) goes now, not when its due time comes.
        b.items[i + 2] = NOOP;
        this.live--;
        cancelled++;
      }
    }
    return cancelled;
  }

  nextDue_ms(): number | undefined {
    return this.head()?.due_ms;
  }

  advance(ms: number): Promise<RunReport> {
    return this.serialized(() => this.runUntil(this.clock.now_ms() + Math.max(0, ms), false));
  }

  settle(max_ms: number): Promise<RunReport> {
    return this.serialized(() => this.runUntil(this.clock.now_ms() + Math.max(0, max_ms), true));
  }

  runDue(): Promise<RunReport> {
    return this.serialized(() => this.runUntil(this.clock.now_ms(), false));
  }

  exclusive<T>(fn: () => T): Promise<T> {
    return this.serialized(async () => fn());
  }

  startRealtime(onAdvance?: (ms: number) => void): () => void {
    // Sim time follows wall time from here on, scaled by speed; ticks never overlap. The driver moves the
    // clock by the wall time elapsed (× speed) that it has not yet driven, not towards an absolute target:
    // a `POST /_sim/clock/advance` on a realtime clock jumps ahead and the clock goes on from there (with an
    // absolute target it stood still until wall time caught up: 73 h after a 73 h jump).
    const clock = this.clock;
    // The wall time and sim ms driven when the speed last changed (POST /_sim/clock/speed): the driver goes on
    // from there at the new speed, so a change neither jumps the clock nor pulls it back.
    let wall_from = wallNow_ms();
    let driven_before = 0;
    let speed = clock.speed;
    let driven_ms = 0;
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      const wall = wallNow_ms();
      if (clock.speed_since_wall_ms > wall_from) {
        // The wall time up to the change at the old speed, the rest at the new one.
        driven_before += Math.floor((clock.speed_since_wall_ms - wall_from) * speed);
        wall_from = clock.speed_since_wall_ms;
        speed = clock.speed;
      }
      const ms = Math.max(0, Math.floor((wall - wall_from) * speed) + driven_before - driven_ms);
      driven_ms += ms;
      // Every tick is reported, 0 ms too: it still runs what is due now, which a replay must do at the same point.
      onAdvance?.(ms);
      this.advance(ms)
        .catch(() => undefined)
        .finally(() => {
          busy = false;
        });
    }, 20);
    timer.unref();
    return () => clearInterval(timer);
  }
}

export function createScheduler(clock: Clock): Scheduler {
  return new SimScheduler(clock);
}
