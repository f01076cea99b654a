// TEST FIXTURE, not a load tool: the double of module `k6` (check, fail, group, sleep) over the
// worker's VU runtime. Checks record the `checks` rate and per-check tallies as k6 does.
import { addSample, sleepMs, vu } from './vu-runtime.ts';

export function check<T>(val: T, sets: { [name: string]: (v: T) => boolean }, tags: { [k: string]: string } = {}): boolean {
  let all = true;
  for (const name of Object.keys(sets)) {
    let ok = false;
    try {
      ok = Boolean(sets[name]!(val));
    } catch {
      ok = false;
    }
    all = all && ok;
    addSample('checks', 'rate', false, ok ? 1 : 0, { ...tags, check: name });
    const t = vu().checks.get(name) ?? { name, passes: 0, fails: 0 };
    if (ok) t.passes++;
    else t.fails++;
    vu().checks.set(name, t);
  }
  return all;
}

export function fail(err?: string): never {
  throw new Error(err ?? 'fail() called');
}

export function group<T>(_name: string, fn: () => T): T {
  return fn();
}

export function sleep(seconds: number): void {
  sleepMs(seconds * 1000);
}

export default { check, fail, group, sleep };
