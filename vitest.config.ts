import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['sim/**/*.test.ts', 'fake-provider/**/*.test.ts', 'scenarios/**/*.test.ts', 'load/**/*.test.ts', 'reports/**/*.test.ts', 'cli/**/*.test.ts', 'lib/**/*.test.ts', 'scripts/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['lib/build-before-tests.ts'],
  },
});
