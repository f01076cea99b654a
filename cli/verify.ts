// `swapsim verify --app URL`: checks an integrator's webhook consumer, in any language, through the probe
// contract (scenarios/verify). Prints the verdict (and on a mismatch the shrunk scenario, the first divergent
// entity and a replay command), writes the VerifyResult as report.json.
// Exit status: 0 pass, 1 mismatch, 2 usage errors or an app that cannot be reached or configured. It always exits.
import { type Command, type CommanderError, InvalidArgumentError } from 'commander';
import { createProgress } from '../reports/progress.ts';
import { outputDir, writeReportJson } from '../reports/output.ts';

interface VerifyFlags {
  app: string;
  runs: number;
  seed?: number;
  timeLimit?: number;
  json?: boolean;
  webhookPath: string;
  run?: number;
  case?: string;
  simSeed?: string;
  quiescence: number;
  runTimeLimit: number;
  latencyLimit: number;
  concurrency?: number;
  conduct: 'fail' | 'warn';
}

const UNITS_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, min: 60_000, h: 3_600_000 };

/** `60s`, `2m`, `1500ms`, `1h`; a bare number is seconds. */
export function parseDurationMs(v: string): number {
  const m = /^([0-9]+(?:\.[0-9]+)?)(ms|s|m|min|h)?$/.exec(v.trim());
  if (!m) throw new InvalidArgumentError('a duration such as 60s, 2m or 1500ms');
  const ms = Math.round(Number(m[1]) * UNITS_MS[m[2] ?? 's']);
  if (ms <= 0) throw new InvalidArgumentError('must be longer than 0');
  return ms;
}

const positiveInt =
  (name: string) =>
  (v: string): number => {
    if (!/^[1-9][0-9]*$/.test(v)) throw new InvalidArgumentError(`${name} must be a positive integer`);
    return Number(v);
  };

const seedArg = (v: string): number => {
  if (!/^-?[0-9]+$/.test(v) || Math.abs(Number(v)) > 2 ** 31 - 1) throw new InvalidArgumentError('an integer within ±2147483647');
  return Number(v);
};

const appUrl = (v: string): string => {
  try {
    const u = new URL(v);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new InvalidArgumentError('an http(s) URL such as http://127.0.0.1:4020');
  }
  return v.replace(/\/$/, '');
};

const conductMode = (v: string): 'fail' | 'warn' => {
  if (v !== 'fail' && v !== 'warn') throw new InvalidArgumentError('fail or warn');
  return v;
};

const webhookPath = (v: string): string => {
  if (!v.startsWith('/')) throw new InvalidArgumentError('a path starting with /');
  return v;
};

async function runVerify(flags: VerifyFlags): Promise<number> {
  // Loaded here, not at the top: `swapsim --help` stays light (cli/main.ts).
  const { writeReport } = await import('../reports/index.ts');
  const { formatReport } = await import('../scenarios/verify/format.ts');
  const { verify } = await import('../scenarios/verify/verify.ts');
  const progress = createProgress({ label: 'verify', total: flags.run || flags.case ? 1 : flags.runs });
  const report = await verify({
    app_url: flags.app,
    runs: flags.runs,
    seed: flags.seed,
    run: flags.run,
    case: flags.case,
    time_limit_ms: flags.timeLimit,
    webhook_path: flags.webhookPath,
    sim_seed: flags.simSeed,
    quiescence_ms: flags.quiescence,
    run_time_limit_ms: flags.runTimeLimit,
    latency_limit_ms: flags.latencyLimit,
    concurrency: flags.concurrency,
    conduct: flags.conduct,
    on_run: (u) => progress.tick(u),
  });
  progress.done();
  const dir = outputDir('verify');
  const path = writeReportJson(dir, report);
  process.stdout.write(`${flags.json ? JSON.stringify(report) : formatReport(report)}\n`);
  process.stderr.write(`report: ${path}\n`);
  process.stderr.write(`page: ${await writeReport(dir)}\n`);
  return report.failure ? 1 : 0;
}

export function registerVerify(program: Command): void {
  program
    .command('verify')
    .description(
      "check an integrator's webhook consumer through the probe contract: generated adversarial scenarios, then its state against the provider's",
    )
    .requiredOption('--app <url>', 'the app under test (serves POST /probe/configure, its webhook endpoint, GET /probe/state)', appUrl)
    .option('--runs <n>', 'generated scenarios to run', positiveInt('--runs'), 100)
    .option('--seed <seed>', 'fast-check seed (default: drawn and printed)', seedArg)
    .option(
      '--time-limit <duration>',
      'stop after this wall time, inside a run too, e.g. 10m (the runs done stand; the result says interrupted)',
      parseDurationMs,
    )
    .option('--json', 'print the VerifyResult JSON instead of the readable report')
    .option('--webhook-path <path>', "the app's webhook endpoint", webhookPath, '/webhooks')
    .option('--case <token>', 'replay a failure: the case token printed with it (with the same --seed)')
    .option('--run <n>', 'run only generated run n of the seed, unshrunk', positiveInt('--run'))
    .option('--sim-seed <seed>', "base of the provider seeds (default verify-<seed>; run n's provider seed is <base>/run-<n>)")
    .option('--quiescence <duration>', 'wall time an app without POST /probe/sync gets to converge after each run', parseDurationMs, 3_000)
    .option(
      '--run-time-limit <duration>',
      'wall time one run may take; a run past it is ended and reported with the delivery in flight',
      parseDurationMs,
      300_000,
    )
    .option(
      '--concurrency <n>',
      'runs at once, each on its own provider behind one hub (default 8; 1: one after another; rotate, restart, API-fault and adversarial-profile runs always go alone)',
      positiveInt('--concurrency'),
    )
    .option(
      '--conduct <mode>',
      "client-conduct findings of the app's key: fail (the run they happen in fails) or warn (reported only)",
      conductMode,
      'fail',
    )
    .option(
      '--latency-limit <duration>',
      'an answer to a delivery slower than this is a finding (the provider gives up at 10 s)',
      parseDurationMs,
      8_000,
    )
    // Usage errors (commander's and ours) exit 2; help exits 0.
    .exitOverride((err: CommanderError) => process.exit(err.exitCode === 0 ? 0 : 2))
    .action(async (flags: VerifyFlags, cmd: Command) => {
      const { AppUnreachable } = await import('../scenarios/verify/probe.ts');
      if (flags.case !== undefined) {
        // Checked here rather than in the option's parser, which would load the scenario code for --help too.
        const { decodeCase } = await import('../scenarios/verify/scenario.ts');
        try {
          decodeCase(flags.case);
        } catch (err) {
          cmd.error(`error: option '--case <token>' argument '${flags.case}' is invalid. ${(err as Error).message}`, {
            exitCode: 2,
            code: 'commander.invalidArgument',
          });
        }
      }
      try {
        // Exit explicitly: a hung app connection or an abandoned run must never keep the process alive.
        process.exit(await runVerify(flags));
      } catch (err) {
        if (err instanceof AppUnreachable)
          cmd.error(`swapsim verify: the app is unreachable or refused configuration: ${err.message}`, {
            exitCode: 2,
            code: 'swapsim.app_unreachable',
          });
        throw err;
      }
    });
}
