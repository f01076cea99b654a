#!/usr/bin/env node
// Runs the vitest suite and ends with the line CI reads: `N passed, M failed`. Vitest's own summary is
// not read by CI, so the counts come from its JSON reporter. Extra arguments go to vitest.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const outDir = join('reports', 'out');
mkdirSync(outDir, { recursive: true });
const jsonPath = join(outDir, 'vitest-results.json');
const args = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${jsonPath}`, ...process.argv.slice(2)];
const run = spawnSync('npx', args, { stdio: 'inherit' });

let passed = 0;
let failed = 0;
try {
  const results = JSON.parse(readFileSync(jsonPath, 'utf8'));
  passed = results.numPassedTests ?? 0;
  failed = (results.numFailedTests ?? 0) + (results.numRuntimeErrorTestSuites ?? 0);
  // A file that failed to load counts as a failure even when it held no test.
  for (const file of results.testResults ?? []) if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) failed++;
} catch {
  failed = Math.max(failed, 1);
}
if (run.status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || run.status !== 0 ? 1 : 0);
