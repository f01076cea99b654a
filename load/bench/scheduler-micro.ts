// The scheduler alone, ns per task (median of 5 rounds of 200,000): `node --import tsx load/bench/scheduler-micro.ts`.
// distinct: every task its own due ms; shared: 20 due times (a batch of lifecycles on one chain's blocks);
// chain: one lifecycle at a time, 27 tasks each scheduling the next (the tinybench lifecycle's pattern).
import { createClock, createScheduler } from '../../sim/index.ts';

const N = 200_000;
const START_MS = 1_767_225_600_000;

async function round(mode: string): Promise<number> {
  const clock = createClock({ start_ms: START_MS });
  const s = createScheduler(clock);
  let ran = 0;
  const t0 = performance.now();
  if (mode === 'chain') {
    for (let k = 0; k < N / 27; k++) {
      let left = 27;
      const step = (): void => {
        ran++;
        if (--left > 0) s.afterCall(1000 + (left % 3), 'c', step);
      };
      s.afterCall(0, 'c', step);
      await s.settle(1e9);
    }
  } else {
    for (let i = 0; i < N; i++) s.afterCall(mode === 'distinct' ? (i * 3) % 100_003 : (i % 20) * 1000, 'k', () => void ran++);
    await s.settle(1e9);
  }
  const ns = ((performance.now() - t0) * 1e6) / ran;
  return ns;
}

for (const mode of ['distinct', 'shared', 'chain']) {
  const ns: number[] = [];
  for (let r = 0; r < 5; r++) ns.push(await round(mode));
  ns.sort((a, b) => a - b);
  console.log(`${mode}: ${ns[2].toFixed(0)} ns/task`);
}
