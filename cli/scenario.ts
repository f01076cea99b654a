// `swapsim scenario list|run`: the named scenarios of scenarios/library, run in process (a fresh fake per
// scenario, virtual clock, --seed) or against a running swapsim (--base-url/--control-url; one fresh
// organization per scenario). Prints each run's timeline, writes the batch as report.json.
// Exit status: 0 all passed, 1 a scenario failed, 2 usage errors (unknown name, bad options).
import type { Command, CommanderError } from 'commander';
import { createProgress } from '../reports/progress.ts';
import { outputDir, writeReportJson } from '../reports/output.ts';
import type { ScenarioBatch, ScenarioRun } from '../reports/types.ts';
import type { RemoteTarget, Scenario } from '../scenarios/dsl/index.ts';

// The DSL, the library and the report builders load when a subcommand runs, not for `--help` (cli/main.ts).
const dsl = () => import('../scenarios/dsl/index.ts');
type Library = typeof import('../scenarios/library/index.ts');
const library = (): Promise<Library> => import('../scenarios/library/index.ts');

interface RunFlags {
  all?: boolean;
  includeCanary?: boolean;
  seed: string;
  baseUrl?: string;
  apiKey?: string;
  controlUrl?: string;
  controlToken?: string;
  json?: boolean;
  quiet?: boolean;
}

class UsageError extends Error {}

/** The scenarios named (in the order given), or all (without the canary unless asked). */
function selectScenarios(
  names: string[],
  flags: { all?: boolean; includeCanary?: boolean },
  { closeNames, isCanary, SCENARIOS, scenarioByName }: Library,
): Scenario[] {
  if (names.length === 0 && !flags.all) throw new UsageError('name one or more scenarios, or pass --all (see `swapsim scenario list`)');
  const picked: Scenario[] = [];
  for (const name of names) {
    const s = scenarioByName(name);
    if (!s) {
      const close = closeNames(name);
      throw new UsageError(
        `unknown scenario '${name}'${close.length ? `; did you mean: ${close.join(', ')}?` : ''} (see \`swapsim scenario list\`)`,
      );
    }
    if (!picked.includes(s)) picked.push(s);
  }
  if (flags.all) for (const s of SCENARIOS) if (!picked.includes(s) && (flags.includeCanary || !isCanary(s))) picked.push(s);
  return picked;
}

/** --base-url (and --control-url, derived as <origin>/_sim when left out) select a running swapsim. */
async function remoteTarget(flags: RunFlags): Promise<RemoteTarget | undefined> {
  if (!flags.baseUrl && !flags.controlUrl) return undefined;
  if (!flags.baseUrl) throw new UsageError('--control-url needs --base-url');
  let control_url = flags.controlUrl;
  try {
    control_url ??= `${new URL(flags.baseUrl).origin}/_sim`;
    new URL(control_url);
  } catch {
    throw new UsageError(`not a URL: ${flags.baseUrl}`);
  }
  const remote: RemoteTarget = { base_url: flags.baseUrl, control_url, api_key: flags.apiKey, control_token: flags.controlToken };
  if (flags.apiKey) {
    const { request } = await dsl();
    // The key is only checked: each scenario runs in its own new organization with its own key.
    const r = await request(`${flags.baseUrl.replace(/\/$/, '')}/assets?limit=1`, 'GET', undefined, {
      authorization: `Bearer ${flags.apiKey}`,
    });
    if (r.status !== 200)
      throw new UsageError(`GET ${flags.baseUrl}/assets with --api-key answered ${r.status} ${r.network_error ?? JSON.stringify(r.body)}`);
  }
  return remote;
}

function summaryLine(batch: ScenarioBatch): string {
  const failed = batch.runs.filter((r) => !r.ok).map((r) => r.name);
  return `${batch.passed} passed, ${batch.failed} failed${failed.length ? ` (${failed.join(', ')})` : ''}`;
}

async function runCommand(names: string[], flags: RunFlags): Promise<number> {
  const list = selectScenarios(names, flags, await library());
  const { formatRun, runBatch } = await dsl();
  const { writeReport } = await import('../reports/index.ts');
  const remote = await remoteTarget(flags);
  const progress = flags.all && !flags.json ? createProgress({ label: 'scenarios', total: list.length }) : null;
  let failures = 0;
  const onRun = (run: ScenarioRun, done: number): void => {
    if (!run.ok) failures++;
    if (!flags.json)
      process.stdout.write(
        flags.quiet
          ? `${formatRun({ ...run, timeline: [], conduct: [] })
              .split('\n')
              .at(-1)}\n`
          : `${formatRun(run)}\n\n`,
      );
    progress?.tick({ done, failures, note: run.name });
  };
  const batch = await runBatch(list, { seed: flags.seed, remote, onRun });
  progress?.done();
  const dir = outputDir(list.length === 1 ? `scenario-${list[0].name}` : 'scenarios');
  const path = writeReportJson(dir, batch);
  if (flags.json) process.stdout.write(`${JSON.stringify(batch)}\n`);
  else process.stdout.write(`${summaryLine(batch)}\n`);
  process.stderr.write(`report: ${path}\n`);
  process.stderr.write(`page: ${await writeReport(dir)}\n`);
  return batch.failed > 0 ? 1 : 0;
}

async function listCommand(flags: { json?: boolean; tag?: string }): Promise<void> {
  const { SCENARIOS } = await library();
  const list = SCENARIOS.filter((s) => !flags.tag || s.tags.includes(flags.tag));
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(list.map((s) => ({ name: s.name, tags: s.tags, summary: s.summary })))}\n`);
    return;
  }
  const width = Math.max(...list.map((s) => s.name.length));
  const tagWidth = Math.max(...list.map((s) => s.tags.join(',').length));
  for (const s of list) process.stdout.write(`${s.name.padEnd(width)}  ${s.tags.join(',').padEnd(tagWidth)}  ${s.summary}\n`);
  process.stdout.write(`${list.length} scenarios\n`);
}

export function registerScenario(program: Command): void {
  const scenario = program
    .command('scenario')
    .description('named scenarios with a timeline of what happened: list, run')
    // Usage errors (commander's and ours) exit 2; help exits 0.
    .exitOverride((err: CommanderError) => process.exit(err.exitCode === 0 ? 0 : 2))
    .showHelpAfterError('(run `swapsim scenario <list|run> --help` for usage)');
  scenario
    .command('list')
    .description('every scenario: name, tags, summary')
    .option('--tag <tag>', 'only scenarios with this tag')
    .option('--json', 'as JSON')
    .action((flags: { json?: boolean; tag?: string }) => listCommand(flags));
  scenario
    .command('run')
    .description('run scenarios by name, or --all; exit 1 if any expectation fails')
    .argument('[names...]', 'scenario names (see `swapsim scenario list`)')
    .option('--all', 'every scenario except the canary')
    .option('--include-canary', 'with --all, also the canary (which must fail)')
    .option('--seed <seed>', 'seed of the in-process fake', '1')
    .option('--base-url <url>', 'run against a swapsim already serving this /v1 URL (started with --clock virtual)')
    .option('--api-key <key>', 'a key of that swapsim, checked before running (each scenario creates its own organization)')
    .option('--control-url <url>', 'its control plane (default <origin of --base-url>/_sim)')
    .option('--control-token <token>', 'bearer token of that control plane')
    .option('--json', 'print the batch JSON on stdout instead of timelines')
    .option('--quiet', 'one verdict line per scenario instead of its timeline')
    .action(async (names: string[], flags: RunFlags, cmd: Command) => {
      try {
        process.exitCode = await runCommand(names, flags);
      } catch (err) {
        if (err instanceof UsageError) cmd.error(`swapsim scenario run: ${err.message}`, { exitCode: 2, code: 'swapsim.usage' });
        throw err;
      }
    });
}
