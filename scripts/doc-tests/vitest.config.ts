// `npm run test:docs` (scripts/run-tests.mjs --suite=docs): the blocks and links of README.md and docs/*.md.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['scripts/doc-tests/*.doctest.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Four files (README.md and docs/, each in two halves) at once: their blocks mostly wait on the servers and
    // commands they start, so two cores carry four.
    maxWorkers: 4,
    globalSetup: ['lib/build-before-tests.ts'],
  },
});
