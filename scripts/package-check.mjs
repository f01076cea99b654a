#!/usr/bin/env node
// The package as an integrator gets it: builds, packs, installs the tarball into a fresh project in a temp
// folder (with vitest, fast-check and @types/node at this repo's versions), then runs the README's CI example
// (scenarios/examples/testing-in-ci.test.ts) under vitest from ESM, type-checks it and a file using the typed
// API against the shipped dist/index.d.ts, type-checks a fast-check property over swapsim's arbitraries in an ESM
// and in a CommonJS TypeScript project (dist/index.d.ts and dist/index.d.cts), require()s the package from CommonJS, runs `swapsim --help` and
// a scenario from another working directory, and `swapsim verify` against the package's `swapsim example-app`. Prints the figures (docs/package.md) and ends with `N passed,
// M failed`. Slow (~1–2 min, one npm install): `npm run test:package`, run by .ci/run, not by `npm test`.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
const version = (name) => lock.packages[`node_modules/${name}`].version;
const work = mkdtempSync(join(tmpdir(), 'swapsim-package-'));
const keep = process.argv.includes('--keep');
const results = [];

function check(name, fn) {
  const t0 = Date.now();
  try {
    const note = fn();
    results.push(true);
    console.log(`✓ ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)${note ? `: ${note}` : ''}`);
  } catch (err) {
    results.push(false);
    console.log(`✘ ${name}: ${err instanceof Error ? err.message : err}`);
  }
}

/** Runs a command; throws with its output when it fails. */
function run(cmd, args, cwd, env = {}) {
  const merged = { ...process.env, ...env };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: merged, timeout: 600_000 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}:\n${r.stdout}\n${r.stderr}`.slice(-4000));
  return r.stdout;
}

function duBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) total += duBytes(p);
    else if (entry.isFile()) total += statSync(p).size;
  }
  return total;
}
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

const app = join(work, 'app');
let tarball;
check('build and pack', () => {
  execFileSync(process.execPath, [join(root, 'lib/build.mjs')], { cwd: root, stdio: 'inherit' });
  const [packed] = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], root));
  tarball = join(work, packed.filename);
  const tests = packed.files.filter((f) => /\.test\.|fixtures\/|\.map$/.test(f.path)).map((f) => f.path);
  if (tests.length) throw new Error(`the package ships tests, fixtures or maps: ${tests.join(', ')}`);
  if (packed.entryCount > 150) throw new Error(`${packed.entryCount} files, more than 150`);
  if (!packed.files.some((f) => f.path === 'LICENSE')) throw new Error('no LICENSE in the package (package.json says MIT)');
  return `${packed.entryCount} files, ${mb(packed.unpackedSize)} unpacked, ${mb(packed.size)} packed`;
});

check('install the tarball into a fresh project', () => {
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  run('npm', ['install', '--no-audit', '--no-fund', tarball], app);
  const swapsimOnly = duBytes(join(app, 'node_modules'));
  run('npm', ['install', '--no-audit', '--no-fund', `vitest@${version('vitest')}`, `@types/node@${version('@types/node')}`], app);
  if (!existsSync(join(app, 'node_modules/fast-check'))) throw new Error('fast-check (a peer dependency) was not installed');
  if (existsSync(join(app, 'node_modules/tsx'))) throw new Error('tsx was installed: it is for development only');
  return `node_modules with swapsim and its dependencies: ${mb(swapsimOnly)}`;
});

check("the README's CI example runs under vitest (ESM)", () => {
  copyFileSync(join(root, 'scenarios/examples/testing-in-ci.test.ts'), join(app, 'ci.test.ts'));
  const out = run(join(app, 'node_modules/.bin/vitest'), ['run', '--reporter=dot'], app);
  const m = /Tests\s+(\d+) passed/.exec(stripVTControlCharacters(out));
  if (!m) throw new Error(`no passing tests reported:\n${out}`);
  return `${m[1]} passed`;
});

check("the README's CI example and the typed API type-check against dist/index.d.ts", () => {
  // The shipped declarations carry the types: a reply follows from method and path, a misspelt field does not
  // compile (an unused @ts-expect-error fails), events narrow by type, fault rules by target.
  writeFileSync(
    join(app, 'typed.ts'),
    `import { createSim, type Account, type EventOf, type FaultRuleInput } from 'swapsim';
export async function typed(): Promise<string | undefined> {
  const sim = await createSim();
  const r = await sim.api('POST', '/accounts', { body: { label: 'alice' } });
  const account: Account = r.body.account;
  // @ts-expect-error -- no such field
  void r.body.account.acount_id;
  const { events } = (await sim.api('GET', \`/events?account_id=\${account.account_id}\`)).body;
  const settled = events.find((e): e is EventOf<'trade.settled'> => e.type === 'trade.settled');
  const rule: FaultRuleInput = { target: 'trade', effect: { fail: 'settlement_failed' } };
  // @ts-expect-error -- webhook effects are not trade effects
  const wrong: FaultRuleInput = { target: 'trade', effect: { webhook: 'drop' } };
  void wrong;
  await sim.faults.add(rule);
  await sim.close();
  return settled?.data.credit_id;
}
`,
  );
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, types: ['node'] },
      files: ['ci.test.ts', 'typed.ts'],
    }),
  );
  run(join(root, 'node_modules/.bin/tsc'), ['-p', app], app);
  return `dist/index.d.ts ${(statSync(join(root, 'dist/index.d.ts')).size / 1e3).toFixed(0)} KB`;
});

/** A consumer passing swapsim's arbitraries to fast-check: one fast-check type copy, or TS2345. */
const propertyConsumer = `import fc from 'fast-check';
import { arbitraries, createSim, type Sim } from 'swapsim';
export async function property(): Promise<void> {
  const sim: Sim = await createSim({ seed: 1 });
  await fc.assert(fc.asyncProperty(arbitraries.scenario({ max_steps: 2 }), async (scenario) => {
    const run = await scenario.run(sim, {});
    if (run.account_ids.length < 0) throw new Error('never');
  }), { numRuns: 1 });
  await sim.close();
}
`;
const consumerTsconfig = (files) =>
  JSON.stringify({
    compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, types: ['node'] },
    files,
  });

for (const [what, type, ext] of [
  ['an ESM TypeScript project (type: module; .ts and .mts)', 'module', 'mts'],
  ["a CommonJS TypeScript project (type: commonjs, npm init's default; .ts and .cts)", 'commonjs', 'cts'],
]) {
  check(`${what} passes arbitraries.scenario() to fc.assert`, () => {
    const dir = join(app, type);
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type }));
    writeFileSync(join(dir, 'consumer.ts'), propertyConsumer);
    writeFileSync(join(dir, `consumer-2.${ext}`), propertyConsumer);
    writeFileSync(join(dir, 'tsconfig.json'), consumerTsconfig(['consumer.ts', `consumer-2.${ext}`]));
    run(join(root, 'node_modules/.bin/tsc'), ['-p', dir], dir);
  });
}

check('require() from CommonJS', () => {
  writeFileSync(
    join(app, 'check.cjs'),
    `const { createSim, arbitraries, dsl } = require('swapsim');
if (typeof arbitraries.scenario !== 'function' || typeof dsl.runScenario !== 'function') throw new Error('exports missing');
createSim({ seed: 1 }).then(async (sim) => {
  const r = await sim.api('GET', '/assets');
  await sim.close();
  if (r.status !== 200 || r.body.assets.length === 0) throw new Error('GET /assets answered ' + r.status);
  console.log('ok ' + r.body.assets.length + ' assets');
});
`,
  );
  return run(process.execPath, ['check.cjs'], app).trim();
});

check('swapsim --help and a scenario from another folder write reports there', () => {
  const bin = join(app, 'node_modules/.bin/swapsim');
  if (!run(bin, ['--help'], work).includes('serve')) throw new Error('--help printed no commands');
  const elsewhere = join(work, 'elsewhere');
  mkdirSync(elsewhere);
  const out = run(bin, ['scenario', 'run', 'trade-exact-in', '--quiet'], elsewhere, { SWAPSIM_REPORTS_DIR: undefined });
  if (!out.includes('1 passed, 0 failed')) throw new Error(out);
  if (!existsSync(join(elsewhere, 'reports/out'))) throw new Error('no reports/out in the working directory');
  if (existsSync(join(app, 'node_modules/swapsim/reports'))) throw new Error('wrote into node_modules/swapsim');
});

check('swapsim example-app from the package, and swapsim verify passing it', () => {
  // An installed user's known-good app: the reference integrator, served by the package's own command.
  const bin = join(app, 'node_modules/.bin/swapsim');
  const script = `set -e
"${bin}" example-app --port 0 > example-app.log 2>&1 &
pid=$!
trap 'kill $pid' EXIT
url=''
for i in $(seq 1 600); do url=$(grep -o 'http://127.0.0.1:[0-9]*' example-app.log | head -1 || true); [ -n "$url" ] && break; sleep 0.1; done
"${bin}" verify --app "$url" --runs 2 --seed 1`;
  const out = run('bash', ['-c', script], work, { SWAPSIM_REPORTS_DIR: join(work, 'verify-reports') });
  const verdict = /swapsim verify: PASS: 2 runs/.exec(out);
  if (!verdict) throw new Error(out.slice(-2000));
  return verdict[0];
});

if (!keep) rmSync(work, { recursive: true, force: true });
else console.log(`kept ${work}`);
const failed = results.filter((ok) => !ok).length;
// Its counts, for the line .ci/run prints over every suite (scripts/run-tests.mjs --sum).
mkdirSync(join(root, 'reports/out'), { recursive: true });
writeFileSync(
  join(root, 'reports/out/test-summary-package.json'),
  `${JSON.stringify({ passed: results.length - failed, failed, skipped: [] })}\n`,
);
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
