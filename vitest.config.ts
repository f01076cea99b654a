import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // load/k6-real runs a real k6 for tens of seconds a file: `npm run test:k6`.
    exclude: [...configDefaults.exclude, 'load/k6-real/**'],
    include: [
      'sim/**/*.test.ts',
      'fake-provider/**/*.test.ts',
      'scenarios/**/*.test.ts',
      'load/**/*.test.ts',
      'reports/**/*.test.ts',
      'cli/**/*.test.ts',
      'lib/**/*.test.ts',
      'scripts/**/*.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['lib/build-before-tests.ts'],
  },
});
