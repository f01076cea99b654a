#!/usr/bin/env node
// Runs a vitest suite and ends with the line CI reads: `N passed, M failed`, then the skipped tests and why.
// Suites: `main` (`npm test`: everything but the slow files below), `e2e` (`npm run test:e2e`: those slow
// files; CI runs both), `docs` (`npm run test:docs`: the blocks and links of README.md and docs/), `quick` (`npm run test:quick`: main without its slowest property files, the inner
// loop), `all`. Each suite's counts go to reports/out/test-summary-<suite>.json; `--sum main,e2e,package`
// prints one line over several (.ci/run). Vitest's own summary is not read by CI, so the counts come from
// its JSON reporter. Extra arguments go to vitest.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * End-to-end and long-running files (measured 2026-11-26, one `npm test` on 2 shared cores: ~190 s of the
 * suite's 291 s of test time): real `swapsim` processes, the verifier against live apps, the HTTP bench,
 * the k6 scripts under the double, the soak command, headless Chromium, and the 150-run trading model; and the
 * triggers (every one against a server with an app's receiver: 12 s quiet, 26 s under load 8; `swapsim trigger`
 * and `listen` as processes; realtime triggers).
 */
export const E2E = [
  'scenarios/model-trading/trading-model.test.ts',
  'scenarios/model-trading/deletion.test.ts',
  'scenarios/verify/verify.test.ts',
  'scenarios/verify/twins-shrink.test.ts',
  'load/http-bench/bench.test.ts',
  'load/k6/limit-class.test.ts',
  'load/k6/lifecycle-mix.test.ts',
  'scripts/soak.test.ts',
  'cli/verify.test.ts',
  'cli/scenario.test.ts',
  'cli/replay.test.ts',
  'cli/persist.test.ts',
  'cli/report.test.ts',
  'cli/cli.test.ts',
  'reports/browser.test.ts',
  'fake-provider/ui/ui.test.ts',
  'cli/trigger.test.ts',
  'scenarios/library/triggers.test.ts',
  'scenarios/library/triggers-realtime.test.ts',
];

/** Also left out of the inner loop: property and generated-input files that take seconds each. */
export const SLOW_UNIT = [
  'scenarios/model/core-model.test.ts',
  'scenarios/model/webhook-guard.test.ts',
  'scenarios/library/library.test.ts',
  'fake-provider/fuzz.test.ts',
  'fake-provider/profiles/adversarial-invariants.test.ts',
];

const outDir = join('reports', 'out');
const summaryPath = (suite) => join(outDir, `test-summary-${suite}.json`);

/** `N passed, M failed` first (what CI parses), then `, K skipped (why; why)`. */
function line({ passed, failed, skipped }) {
  const reasons = new Map();
  for (const s of skipped) reasons.set(s.reason, (reasons.get(s.reason) ?? 0) + 1);
  const why = [...reasons].map(([reason, n]) => (n > 1 ? `${n}× ${reason}` : reason)).join('; ');
  return `${passed} passed, ${failed} failed${skipped.length ? `, ${skipped.length} skipped (${why})` : ''}`;
}

/** A skipped test's reason: the title (its own or a describe's) that says `skipped: …`, else its full name. */
function skipReason(assertion) {
  for (const title of [assertion.title, ...[...(assertion.ancestorTitles ?? [])].reverse()]) {
    const m = /\(skipped: (.*)\)\s*$/.exec(title ?? '');
    if (m) return m[1];
  }
  return `${assertion.fullName} (no reason given)`;
}

function sum(suites) {
  const total = { passed: 0, failed: 0, skipped: [] };
  const missing = [];
  for (const suite of suites) {
    try {
      const s = JSON.parse(readFileSync(summaryPath(suite), 'utf8'));
      total.passed += s.passed;
      total.failed += s.failed;
      total.skipped.push(...s.skipped);
    } catch {
      total.failed += 1;
      missing.push(suite);
    }
  }
  console.log(
    line(total) + (missing.length ? `; counted as failed: no summary from ${missing.join(', ')} (it did not run to the end)` : ''),
  );
  process.exit(total.failed > 0 ? 1 : 0);
}

function run(suite, extra) {
  mkdirSync(outDir, { recursive: true });
  const jsonPath = join(outDir, `vitest-results-${suite}.json`);
  // main and quick share one module cache per worker (--no-isolate): importing the engine afresh for each of
  // ~80 files was most of their time (quick: 181 s isolated, 47 s shared, same 782 tests passing). No test
  // mocks modules or stubs globals; the e2e files keep vitest's default isolation.
  const select = {
    main: ['--no-isolate', ...E2E.flatMap((f) => ['--exclude', f])],
    quick: ['--no-isolate', ...[...E2E, ...SLOW_UNIT].flatMap((f) => ['--exclude', f])],
    // Three at once on two cores: the e2e files mostly wait (child processes, servers, wall-time bounds); one CI
    // run of test:e2e used 5.4 min of CPU in 34 min of wall time on a loaded machine, 571 s of wall on a quiet one.
    e2e: ['--maxWorkers=3', ...E2E],
    // README.md and docs/*.md: their blocks run and their links resolve (scripts/doc-tests, docs/testing.md#doc-tests).
    docs: ['--config', 'scripts/doc-tests/vitest.config.ts'],
    all: [],
  }[suite];
  if (!select) throw new Error(`unknown suite ${suite} (main, quick, e2e, docs, all)`);
  const args = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${jsonPath}`, ...select, ...extra];
  const ran = spawnSync('npx', args, { stdio: 'inherit' });
  const counts = { passed: 0, failed: 0, skipped: [] };
  try {
    const results = JSON.parse(readFileSync(jsonPath, 'utf8'));
    counts.passed = results.numPassedTests ?? 0;
    counts.failed = (results.numFailedTests ?? 0) + (results.numRuntimeErrorTestSuites ?? 0);
    for (const file of results.testResults ?? []) {
      // A file that failed to load counts as a failure even when it held no test.
      if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) counts.failed++;
      for (const a of file.assertionResults ?? [])
        if (a.status === 'skipped' || a.status === 'pending' || a.status === 'todo')
          counts.skipped.push({ test: a.fullName, reason: skipReason(a) });
    }
  } catch {
    counts.failed = Math.max(counts.failed, 1);
  }
  if (ran.status !== 0 && counts.failed === 0) counts.failed = 1;
  writeFileSync(summaryPath(suite), `${JSON.stringify(counts, null, 2)}\n`);
  console.log(line(counts));
  process.exit(counts.failed > 0 || ran.status !== 0 ? 1 : 0);
}

const args = process.argv.slice(2);
const sumAt = args.indexOf('--sum');
if (sumAt >= 0) sum(args[sumAt + 1].split(','));
else {
  const suiteArg = args.find((a) => a.startsWith('--suite='));
  run(
    suiteArg ? suiteArg.slice('--suite='.length) : 'main',
    args.filter((a) => a !== suiteArg),
  );
}
