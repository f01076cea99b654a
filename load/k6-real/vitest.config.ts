// `npm run test:k6`: the load scripts against a real k6 binary (found on PATH; every test skips with one
// line when there is none). Kept out of `npm test`: each file runs real k6 processes for tens of seconds.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['load/k6-real/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One k6 at a time (besides the split test's own pair): the machine is small and shared.
    fileParallelism: false,
  },
});
