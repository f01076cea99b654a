// The kernel on its own: seeded streams, clock drivers, scheduler order and bounds, fault matching and
// counting, and the journal surviving a hard stop line by line.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClock, createFaultPlan, createJournal, createRng, createScheduler, createSimKernel, wallTimeout } from './index.ts';

describe('rng', () => {
  it('is reproducible per seed and differs across seeds', () => {
    const a = createRng(42);
    const b = createRng(42);
    const c = createRng(43);
    const xs = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(xs);
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
  });

  it('forks streams that do not depend on the parent position', () => {
    const a = createRng(7);
    a.next();
    a.next();
    const b = createRng(7);
    expect(a.fork('ids').hex(8)).toBe(b.fork('ids').hex(8));
    expect(a.fork('ids').hex(8)).not.toBe(a.fork('webhooks').hex(8));
  });

  it('draws integers inclusively within bounds and picks from lists', () => {
    const r = createRng('bounds');
    const seen = new Set<number>();
    for (let i = 0; i < 500; i++) seen.add(r.int(1, 3));
    expect([...seen].sort()).toEqual([1, 2, 3]);
    expect(() => r.pick([])).toThrow();
    expect(r.bytes(7)).toHaveLength(7);
  });
});

describe('clock', () => {
  it('never moves backward', () => {
    const c = createClock({ start_ms: 1000 });
    c.setNow(2000);
    c.setNow(1500);
    expect(c.now_ms()).toBe(2000);
  });
});

describe('wallTimeout', () => {
  it('expires after its wall time unless cancelled first', async () => {
    const fired: string[] = [];
    wallTimeout(20, () => fired.push('kept'));
    const cancel = wallTimeout(20, () => fired.push('cancelled'));
    cancel();
    await new Promise((r) => setTimeout(r, 80));
    expect(fired).toEqual(['kept']);
  });
});

describe('scheduler', () => {
  it('runs due tasks in (due, seq) order and sets the clock to each task time', async () => {
    const clock = createClock({ start_ms: 0 });
    const s = createScheduler(clock);
    const log: string[] = [];
    s.scheduleCall(20, 'b', () => void log.push(`b@${clock.now_ms()}`));
    s.scheduleCall(10, 'a', () => void log.push(`a@${clock.now_ms()}`));
    s.scheduleCall(20, 'c', () => void log.push(`c@${clock.now_ms()}`));
    s.scheduleCall(100, 'late', () => void log.push('late'));
    const r = await s.advance(50);
    expect(log).toEqual(['a@10', 'b@20', 'c@20']);
    expect(clock.now_ms()).toBe(50);
    expect(r).toMatchObject({ ran: 3, kinds: { a: 1, b: 1, c: 1 } });
    expect(s.pending()).toBe(1);
  });

  it('runs tasks scheduled by tasks within the same advance, and awaits async tasks', async () => {
    const clock = createClock({ start_ms: 0 });
    const s = createScheduler(clock);
    const log: number[] = [];
    s.scheduleCall(5, 'first', async () => {
      await new Promise((r) => setImmediate(r));
      log.push(clock.now_ms());
      s.afterCall(5, 'second', () => void log.push(clock.now_ms()));
    });
    await s.advance(20);
    expect(log).toEqual([5, 10]);
  });

  it('settle stops when idle and cancel removes a task', async () => {
    const clock = createClock({ start_ms: 0 });
    const s = createScheduler(clock);
    const id = s.scheduleCall(10, 'x', () => {
      throw new Error('cancelled task ran');
    });
    s.scheduleCall(30, 'y', () => undefined);
    expect(s.cancel(id)).toBe(true);
    expect(s.cancel(id)).toBe(false);
    const r = await s.settle(1_000);
    expect(r.ran).toBe(1);
    expect(clock.now_ms()).toBe(30);
  });

  it('settle respects its bound when work keeps coming', async () => {
    const clock = createClock({ start_ms: 0 });
    const s = createScheduler(clock);
    const tick = (): void => void s.afterCall(10, 'tick', tick);
    s.afterCall(10, 'tick', tick);
    const r = await s.settle(100);
    expect(clock.now_ms()).toBe(100);
    expect(r.ran).toBe(10);
    expect(s.pending()).toBe(1);
  });

  it('serializes concurrent advances', async () => {
    const clock = createClock({ start_ms: 0 });
    const s = createScheduler(clock);
    const log: string[] = [];
    s.scheduleCall(10, 'slow', async () => {
      await new Promise((r) => setImmediate(r));
      log.push('slow-done');
    });
    s.scheduleCall(15, 'next', () => void log.push('next'));
    await Promise.all([s.advance(12), s.advance(12)]);
    expect(log).toEqual(['slow-done', 'next']);
    expect(clock.now_ms()).toBe(24);
  });
});

describe('fault plan', () => {
  it('matches by target, effect kind and match fields; counts times down; records firings', () => {
    const plan = createFaultPlan(createRng(1).fork('faults'));
    plan.add(
      { target: 'deposit', effect: { flag: 'sanctions_match' }, match: { account_id: 'acct_1' }, probability: 1, times: 2 },
      'f1',
      0,
    );
    const subject = { account_id: 'acct_1', accepts: ['flag'] };
    expect(plan.fire('deposit', { account_id: 'acct_2', accepts: ['flag'] }, 0)).toHaveLength(0);
    expect(plan.fire('deposit', { account_id: 'acct_1', accepts: ['delay_ms'] }, 0)).toHaveLength(0);
    expect(plan.fire('webhook', subject, 0)).toHaveLength(0);
    expect(plan.fire('deposit', subject, 1)).toHaveLength(1);
    expect(plan.fire('deposit', subject, 2)).toHaveLength(1);
    expect(plan.fire('deposit', subject, 3)).toHaveLength(0);
    expect(plan.firings().map((f) => f.at_ms)).toEqual([1, 2]);
    expect(plan.list()[0].times).toBe(0);
  });

  it('draws probability from its stream reproducibly, with wildcard event types', () => {
    const draw = (): number[] => {
      const plan = createFaultPlan(createRng(9).fork('faults'));
      plan.add(
        { target: 'webhook', effect: { webhook: 'drop' }, match: { event_type: 'deposit.*' }, probability: 0.5, times: null },
        'f',
        0,
      );
      return Array.from({ length: 40 }, (_, i) => plan.fire('webhook', { event_type: 'deposit.verified', accepts: ['webhook'] }, i).length);
    };
    const a = draw();
    expect(draw()).toEqual(a);
    expect(a.filter((x) => x === 1).length).toBeGreaterThan(5);
    expect(a.filter((x) => x === 0).length).toBeGreaterThan(5);
  });
});

describe('journal', () => {
  it('writes one JSON line per input, readable after every write', () => {
    const dir = mkdtempSync(join(tmpdir(), 'swapsim-journal-'));
    const path = join(dir, 'run.jsonl');
    const j = createJournal(path);
    j.write({ kind: 'api', sim_ms: 1, method: 'GET' });
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(1);
    j.write({ kind: 'clock', sim_ms: 2, op: 'advance', ms: 5 });
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.kind)).toEqual(['api', 'clock']);
    j.close();
  });

  it('the kernel bundles the parts; same seed gives same draws', () => {
    const a = createSimKernel({ seed: 5 });
    const b = createSimKernel({ seed: 5 });
    expect(a.rng.fork('x').hex(4)).toBe(b.rng.fork('x').hex(4));
    expect(a.clock.mode).toBe('virtual');
  });
});

describe('realtime driver', () => {
  it('moves sim time with wall time × speed and reports each movement', async () => {
    const clock = createClock({ mode: 'realtime', start_ms: 0, speed: 50 });
    const s = createScheduler(clock);
    let ran = false;
    s.scheduleCall(200, 'due', () => void (ran = true));
    let moved = 0;
    const stop = s.startRealtime((ms) => (moved += ms));
    try {
      for (let i = 0; i < 250 && !ran; i++) await new Promise((r) => setTimeout(r, 20));
    } finally {
      stop();
    }
    expect(ran).toBe(true);
    expect(clock.now_ms()).toBeGreaterThanOrEqual(200);
    expect(moved).toBe(clock.now_ms());
  });

  it('goes on following wall time after a manual jump (it does not stand still until wall time catches up)', async () => {
    const clock = createClock({ mode: 'realtime', start_ms: 0, speed: 50 });
    const s = createScheduler(clock);
    const stop = s.startRealtime();
    try {
      await s.advance(3_600_000);
      const after_jump = clock.now_ms();
      expect(after_jump).toBeGreaterThanOrEqual(3_600_000);
      for (let i = 0; i < 250 && clock.now_ms() < after_jump + 500; i++) await new Promise((r) => setTimeout(r, 20));
      expect(clock.now_ms()).toBeGreaterThanOrEqual(after_jump + 500);
    } finally {
      stop();
    }
  });
});

describe('realtime speed changes', () => {
  it('goes on from where the clock stands at the new speed: no jump, no step back, and it moves at the new rate', async () => {
    const clock = createClock({ mode: 'realtime', start_ms: 0, speed: 0.001 });
    const s = createScheduler(clock);
    const seen: number[] = [];
    const stop = s.startRealtime(() => seen.push(clock.now_ms()));
    try {
      // At 0.001 the clock barely moves; a change to 1,000,000 makes it move by whole seconds per tick, and it
      // never goes back. (The bug this guards: rebasing the driven total on the new speed from the start, which
      // jumps by the whole elapsed wall time × the new speed, or stalls when slowed down.)
      for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 20));
      const slow = clock.now_ms();
      expect(slow).toBeLessThan(50);
      const changed_wall_ms = Date.now();
      clock.setSpeed(1_000_000);
      for (let i = 0; i < 250 && clock.now_ms() < slow + 5_000; i++) await new Promise((r) => setTimeout(r, 20));
      const fast = clock.now_ms();
      expect(fast).toBeGreaterThanOrEqual(slow + 5_000);
      // Only the wall time since the change runs at the new speed.
      expect(fast - slow).toBeLessThanOrEqual((Date.now() - changed_wall_ms + 1) * 1_000_000);
      clock.setSpeed(0.001);
      // Slowed down: once the driver has caught up with the change, a few ticks at 0.001 move next to nothing.
      for (let i = 0; i < 3; i++) await new Promise((r) => setTimeout(r, 20));
      const settled = clock.now_ms();
      expect(settled).toBeGreaterThanOrEqual(fast);
      for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 20));
      expect(clock.now_ms() - settled).toBeLessThan(50);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
    } finally {
      stop();
    }
  });
});

describe('fault stages', () => {
  it('a fail rule fires only at a choke point that can produce its code, keeping its count for that stage', () => {
    const plan = createFaultPlan(createRng(3).fork('faults'));
    plan.add({ target: 'trade', effect: { fail: 'settlement_failed' }, match: {}, probability: 1, times: 1 }, 'f', 0);
    expect(plan.fire('trade', { accepts: ['fail'], fail_codes: ['execution_failed'] }, 1)).toHaveLength(0);
    expect(plan.list()[0].times).toBe(1);
    expect(plan.fire('trade', { accepts: ['fail'], fail_codes: ['settlement_failed', 'settlement_timeout'] }, 2)).toHaveLength(1);
  });
});

describe('fault plan guard', () => {
  it('has() reports only targets with rules', () => {
    const plan = createFaultPlan(createRng(4).fork('faults'));
    expect(plan.has('http')).toBe(false);
    plan.add({ target: 'deposit', effect: { delay_ms: 5 }, match: {}, probability: 1, times: null }, 'f', 0);
    expect(plan.has('http')).toBe(false);
    expect(plan.has('deposit')).toBe(true);
  });
});
