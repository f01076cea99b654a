// The swapsim command line: serve, replay, scenario, report, verify, trigger, listen, wait, example-app. Each command loads what
// it runs when it runs (dynamic imports), so `swapsim --help` loads commander alone (docs/performance.md).
import { accessSync, constants, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { Command, InvalidArgumentError, Option, type CommanderError } from 'commander';
import type { Profile } from '../fake-provider/profile.ts';
import { registerReplay } from './replay.ts';
import { registerScenario } from './scenario.ts';
import { registerReport } from './report.ts';
import { registerVerify } from './verify.ts';
import { registerTrigger } from './trigger.ts';
import { triggerRunner } from './trigger-runner.ts';
import { registerListen } from './listen.ts';
import { registerWait } from './wait.ts';
import { registerExampleApp } from './example-app.ts';
import { StartError, startErrorMessage } from './start-errors.ts';
import { checkPersistFlags, servePersisted, type PersistFlags } from './persist.ts';
import { seedAtStart, type SeedFlags } from './seed.ts';
import { boundHeapGrowth, HEAP_GROWTH_PERCENT_DEFAULT } from './heap.ts';

/** The package's version (`swapsim --version`, `GET /_sim/health`). */
const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

const int =
  (name: string) =>
  (v: string): number => {
    if (!/^[0-9]+$/.test(v)) throw new InvalidArgumentError(`${name} must be a non-negative integer`);
    return Number(v);
  };
const port = (v: string): number => {
  if (!/^[0-9]+$/.test(v) || Number(v) > 65535)
    throw new InvalidArgumentError('a port is a whole number from 0 to 65535 (0: any free port)');
  return Number(v);
};
const nonEmpty =
  (name: string) =>
  (v: string): string => {
    if (v.trim() === '') throw new InvalidArgumentError(`${name} must not be empty`);
    return v;
  };
const positive = (v: string): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('speed must be a positive number');
  return n;
};
const collect = (v: string, prev: string[]): string[] => [...prev, v];

/** Command-line settings win over the profile's, and are validated like profile fields. */
async function withOverrides(
  profile: Profile,
  o: { webhookHeaderPrefix?: string; webhookAllow: string[]; webhookDeny: string[] },
): Promise<Profile> {
  const over: Partial<Profile> = {};
  if (o.webhookHeaderPrefix !== undefined) over.webhook_header_prefix = o.webhookHeaderPrefix;
  if (o.webhookAllow.length > 0) over.webhook_allowed_destinations = o.webhookAllow;
  if (o.webhookDeny.length > 0) over.webhook_denied_destinations = o.webhookDeny;
  if (Object.keys(over).length === 0) return profile;
  const { formatIssues, ProfileError, profileSchema } = await import('../fake-provider/profiles/index.ts');
  const checked = profileSchema.safeParse({ ...profile, ...over });
  if (!checked.success)
    throw new ProfileError(`command-line setting: ${formatIssues(checked.error).join('; ')}`, formatIssues(checked.error));
  return checked.data;
}

/** The folder a file goes into must exist and be writable: checked before anything starts. */
function writableFolder(flag: string, file: string): void {
  const folder = dirname(resolve(file));
  let isDir = false;
  try {
    isDir = statSync(folder).isDirectory();
  } catch {
    throw new StartError(`${flag} ${file}: the folder ${folder} does not exist; create it first (mkdir -p ${folder}) or pick another path`);
  }
  if (!isDir) throw new StartError(`${flag} ${file}: ${folder} is not a folder; pick another path`);
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    throw new StartError(`${flag} ${file}: the folder ${folder} is not writable; pick another path`);
  }
}

export function buildCli(): Command {
  // One exit-code convention for every command (docs/cli.md#exit-status): 0 done, 1 a finding or a failed
  // check, 2 a usage or start-up error. A usage error is one line and a pointer to --help, never the whole usage.
  const program = new Command('swapsim')
    .description('A deterministic fake of the Crypto Swap Routing Service API v1')
    .version(VERSION, '-V, --version', 'print the version')
    .exitOverride((err: CommanderError) => process.exit(err.exitCode === 0 ? 0 : 2))
    .showHelpAfterError('(add --help for usage)');
  program
    .command('serve')
    .description('serve the fake API (/v1) and its control plane (/_sim)')
    .addOption(
      new Option('--port <port>', 'port to listen on (0: any free port; see --ready-file)')
        .argParser(port)
        .default(4010)
        .env('SWAPSIM_PORT'),
    )
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--seed <seed>', 'seed for every random draw but secrets', nonEmpty('--seed'), '1')
    .option(
      '--secret-seed <secret>',
      'seed of the secret stream (API keys swapsim makes, webhook secrets, OTPs); random per run when absent',
      nonEmpty('--secret-seed'),
    )
    .addOption(
      new Option('--clock <mode>', 'virtual: moves only via /_sim/clock; realtime: follows wall time')
        .choices(['virtual', 'realtime'])
        .default('realtime'),
    )
    .option('--speed <factor>', 'realtime clock speed factor', positive, 1)
    .addOption(new Option('--api-key <key>', 'API key of the demo organization (repeatable)').argParser(collect).default([], 'sk_sim_demo'))
    .option('--partner-screening', 'the demo organization has partner screening on (deposit.partner_screening, POST /deposits/{id}/flag)')
    .option('--control-token <token>', 'require this bearer token on /_sim (and allow non-loopback clients)')
    .option('--journal <file>', 'write every input as JSON lines to this file (started afresh; replay with `swapsim replay`)')
    .option(
      '--ready-file <file>',
      'once listening, write {"base_url","control_url","port","pid"} to this file (wait for it instead of polling)',
    )
    .option(
      '--profile <name|file.json>',
      'behaviour profile: default, adversarial (drawn from --seed), or a JSON file overriding any subset of default',
      'default',
    )
    .option(
      '--webhook-header-prefix <prefix>',
      "brand part of the webhook header names (<prefix>-Signature, …); overrides the profile's (default Svc)",
    )
    .option('--max-connections <n>', 'connections open at once; past it new ones are closed (default 4096)', int('max-connections'))
    .option('--request-timeout-ms <ms>', 'time a client has to send a whole request (default 30000)', int('request-timeout-ms'))
    .option(
      '--heap-growth-percent <n>',
      `how far the heap may grow past what the last full collection kept (default ${HEAP_GROWTH_PERCENT_DEFAULT}; 0: V8's own choice, up to 300)`,
      int('heap-growth-percent'),
    )
    .addOption(
      new Option(
        '--webhook-allow <cidr>',
        "CIDR block webhooks may connect to (repeatable; replaces the profile's webhook_allowed_destinations)",
      )
        .argParser(collect)
        .default([], "the profile's"),
    )
    .option('--state <dir>', 'keep the world in this folder across restarts and crashes (its journal.jsonl; docs/persistence.md)')
    .addOption(
      new Option('--fsync <policy>', "with --state: 'answers' also fsyncs each answer's journal line before sending it").choices([
        'none',
        'answers',
      ]),
    )
    .option(
      '--init <file>',
      'seed data (YAML or JSON: organizations, webhooks, accounts, balances, open deposits) applied once at start (docs/persistence.md#seed-data)',
    )
    .option('--demo', 'fill the demo organization with people, emails and balances generated from --seed')
    .option('--from <journal>', 'reopen a journaled run and serve it live (with --state: start that folder from it)')
    .option('--until-line <n>', 'with --from: rebuild the run up to this line of the journal', int('until-line'))
    .addOption(
      new Option(
        '--webhook-deny <cidr>',
        "CIDR block webhooks never connect to (repeatable; replaces the profile's webhook_denied_destinations)",
      )
        .argParser(collect)
        .default([], "the profile's"),
    )
    .action(
      async (
        opts: {
          port: number;
          host: string;
          seed: string;
          clock: 'virtual' | 'realtime';
          speed: number;
          apiKey: string[];
          secretSeed?: string;
          controlToken?: string;
          journal?: string;
          readyFile?: string;
          profile: string;
          webhookHeaderPrefix?: string;
          webhookAllow: string[];
          webhookDeny: string[];
          maxConnections?: number;
          requestTimeoutMs?: number;
          heapGrowthPercent?: number;
          partnerScreening?: boolean;
        } & PersistFlags &
          SeedFlags,
        cmd: Command,
      ) => {
        const { ProfileError, resolveProfile } = await import('../fake-provider/profiles/index.ts');
        const { serve } = await import('../fake-provider/server.ts');
        let profile: Profile;
        try {
          profile = await withOverrides(resolveProfile(opts.profile, opts.seed), opts);
        } catch (err) {
          if (err instanceof ProfileError) cmd.error(`swapsim: ${err.message}`, { exitCode: 2, code: 'swapsim.profile' });
          throw err;
        }
        const api_keys = opts.apiKey.length > 0 ? opts.apiKey : ['sk_sim_demo'];
        const fail = (err: unknown): never => {
          const message = startErrorMessage(err, opts);
          if (message === null) throw err;
          // One line, no usage text: the flags were fine, the world was not.
          console.error(`swapsim serve: ${message}`);
          return process.exit(2);
        };
        try {
          for (const [flag, file] of [
            ['--journal', opts.journal],
            ['--ready-file', opts.readyFile],
          ] as const)
            if (file !== undefined) writableFolder(flag, file);
          checkPersistFlags(opts);
        } catch (err) {
          fail(err);
        }
        // The process's heap, not the world's: set here, never by serve() (a library user's process is their own).
        const heap_growth_percent = opts.heapGrowthPercent ?? HEAP_GROWTH_PERCENT_DEFAULT;
        try {
          boundHeapGrowth(heap_growth_percent);
        } catch (err) {
          cmd.error(`swapsim: --heap-growth-percent: ${(err as Error).message}`, { exitCode: 2, code: 'swapsim.heap' });
        }
        const serveOptions = {
          port: opts.port,
          host: opts.host,
          seed: opts.seed,
          secret_seed: opts.secretSeed,
          clock: opts.clock,
          speed: opts.speed,
          control_token: opts.controlToken,
          journal_path: opts.journal ?? null,
          seed_orgs: [{ api_keys, ...(opts.partnerScreening ? { partner_screening: true } : {}) }],
          profile,
          limits: {
            ...(opts.maxConnections !== undefined ? { max_connections: opts.maxConnections } : {}),
            ...(opts.requestTimeoutMs !== undefined ? { request_timeout_ms: opts.requestTimeoutMs } : {}),
          },
        };
        const running = (await servePersisted(opts, serveOptions, cmd).catch(fail)) ?? (await serve(serveOptions).catch(fail));
        // The dashboard's Run buttons (docs/ui.md): the server cannot import the scenario library, the CLI can. Given
        // after the start, so a world reopened from its journal (whose header decides its options) has it too.
        running.runtime.options.trigger_runner = triggerRunner();
        // A reopened world already holds its seed (the journal has the init call): it is not seeded twice.
        if (!('reopened' in running)) {
          const seeded = await seedAtStart(running, opts).catch(async (err) => {
            await running.close();
            return fail(err);
          });
          if (seeded) console.log(seeded);
        }
        const org = [...running.runtime.world.orgs.values()][0];
        if (opts.readyFile !== undefined) {
          // Written whole, then renamed: a reader never sees half a file; before the banner, so whoever reads the
          // banner finds the file too.
          const ready = { base_url: running.base_url, control_url: running.control_url, port: running.port, pid: process.pid };
          writeFileSync(`${opts.readyFile}.tmp`, `${JSON.stringify(ready)}\n`);
          renameSync(`${opts.readyFile}.tmp`, opts.readyFile);
        }
        // What the world is (a reopened one's header may differ from the flags).
        const { sim } = running.runtime.world;
        const keys = org?.api_keys ?? api_keys;
        console.log(
          `swapsim serving (seed ${sim.seed}, profile ${running.runtime.world.profile.name}, ${sim.clock.mode} clock${sim.clock.mode === 'realtime' ? `, speed ${sim.clock.speed}` : ''})`,
        );
        console.log(`  base URL:     ${running.base_url}`);
        console.log(`  control URL:  ${running.control_url}`);
        console.log(`  organization: ${org?.organization_id ?? '(none)'}`);
        console.log(`  API key:      ${keys.join(', ')}`);
        console.log(`  try:          curl -H 'Authorization: Bearer ${keys[0]}' ${running.base_url}/assets`);
        console.log(
          `  heap growth:  ${heap_growth_percent === 0 ? "V8's own" : `at most ${heap_growth_percent}% past the live heap`} (--heap-growth-percent)`,
        );
        let closing = false;
        const shutdown = (signal: string): void => {
          // A second signal: the operator wants out now (the journal keeps every complete line).
          if (closing) {
            console.log(`swapsim: ${signal} again, exiting now`);
            process.exit(1);
          }
          closing = true;
          console.log(`swapsim: ${signal}, closing (a second signal exits at once)`);
          // close() destroys what is left after its grace; this bounds the rest (a CPU-bound settle) all the same.
          setTimeout(() => {
            console.log('swapsim: still closing after 5 s, exiting');
            process.exit(1);
          }, 5_000).unref();
          running.close().then(() => process.exit(0));
        };
        process.on('SIGINT', () => shutdown('SIGINT'));
        process.on('SIGTERM', () => shutdown('SIGTERM'));
      },
    );
  registerReplay(program);
  registerScenario(program);
  registerReport(program);
  registerVerify(program);
  registerTrigger(program);
  registerListen(program);
  registerWait(program);
  registerExampleApp(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  await buildCli().parseAsync(argv);
}
