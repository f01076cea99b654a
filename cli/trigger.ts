// `swapsim trigger NAME | --list`: one edge case of the scenario library run inside your own organization
// (your API key: your webhook and your event feed see it) on a running swapsim, virtual or realtime clock.
// Exit status: 0 the case ran and its checks passed, 1 a check or step failed, 2 usage (unknown name, a
// case that cannot run as asked, an unreachable server or unknown key).
import type { Command, CommanderError } from 'commander';

const dsl = () => import('../scenarios/dsl/index.ts');
const library = () => import('../scenarios/library/index.ts');

const DEFAULT_BASE_URL = 'http://127.0.0.1:4010/v1';
const DEFAULT_API_KEY = 'sk_sim_demo';

/** The options that say which organization on which server (shared by trigger and listen). */
export function organizationOptions(cmd: Command, control_url_help: string): Command {
  return cmd
    .option('--base-url <url>', 'the swapsim /v1 URL (env SWAPSIM_BASE_URL)', process.env.SWAPSIM_BASE_URL ?? DEFAULT_BASE_URL)
    .option('--api-key <key>', "your organization's API key (env SWAPSIM_API_KEY)", process.env.SWAPSIM_API_KEY ?? DEFAULT_API_KEY)
    .option('--control-url <url>', control_url_help)
    .option('--control-token <token>', 'bearer token of that control plane (env SWAPSIM_CONTROL_TOKEN)', process.env.SWAPSIM_CONTROL_TOKEN);
}

interface TriggerFlags {
  list?: boolean;
  baseUrl: string;
  apiKey: string;
  account?: string;
  controlUrl?: string;
  controlToken?: string;
  seed?: string;
  json?: boolean;
}

async function listTriggers(json: boolean | undefined): Promise<void> {
  const { TRIGGERS } = await library();
  if (json) {
    process.stdout.write(
      `${JSON.stringify(TRIGGERS.map((s) => ({ name: s.name, tags: s.tags, summary: s.summary, ...(s.trigger?.fresh_account ? { new_account_only: s.trigger.fresh_account } : {}), ...(s.org ? { needs: s.org } : {}) })))}\n`,
    );
    return;
  }
  const width = Math.max(...TRIGGERS.map((s) => s.name.length));
  for (const s of TRIGGERS) {
    const notes = [s.org?.partner_screening ? 'needs partner screening' : '', s.trigger?.fresh_account ? 'new account only' : ''].filter(
      Boolean,
    );
    process.stdout.write(`${s.name.padEnd(width)}  ${s.summary}${notes.length ? ` [${notes.join('; ')}]` : ''}\n`);
  }
  process.stdout.write(`${TRIGGERS.length} triggers (swapsim trigger NAME --api-key KEY)\n`);
}

async function runOne(name: string, flags: TriggerFlags, fail: (message: string) => never): Promise<number> {
  const { closeNames, SCENARIOS, TRIGGERS } = await library();
  const s = SCENARIOS.find((x) => x.name === name);
  if (!s) {
    const close = closeNames(name, 3, TRIGGERS);
    fail(`unknown trigger '${name}'${close.length ? `; did you mean: ${close.join(', ')}?` : ''} (see \`swapsim trigger --list\`)`);
  }
  const { formatTrigger, runTrigger, TriggerRefused } = await dsl();
  try {
    const run = await runTrigger(s!, {
      base_url: flags.baseUrl,
      api_key: flags.apiKey,
      control_url: flags.controlUrl,
      control_token: flags.controlToken,
      account_id: flags.account,
      seed: flags.seed,
      // Interrupted: take the case's fault rules off your server (an outage's drop rule must not outlive it).
      onCleanup: (cleanup) => {
        const stop = (signal: string): void => {
          process.stderr.write(`swapsim trigger: ${signal}, removing the case's fault rules\n`);
          cleanup().finally(() => process.exit(130));
        };
        process.once('SIGINT', () => stop('SIGINT'));
        process.once('SIGTERM', () => stop('SIGTERM'));
      },
    });
    process.stdout.write(`${flags.json ? JSON.stringify(run) : formatTrigger(run)}\n`);
    return run.ok ? 0 : 1;
  } catch (err) {
    if (err instanceof TriggerRefused) fail(err.message);
    throw err;
  }
}

export function registerTrigger(program: Command): void {
  organizationOptions(program.command('trigger'), 'its control plane (default <origin of --base-url>/_sim)')
    .description('run one edge case (reorg, flag, outage, …) inside your own organization, so your webhook and feed see it')
    .argument('[name]', 'the edge case (see --list)')
    .option('--list', 'name every trigger with one line each')
    .option('--account <id>', 'run in this existing account (default: a new one); its balances are checked as changes')
    .option('--seed <seed>', "tags this run's Idempotency-Keys and addresses (default: a new tag each run)")
    .option('--json', 'print the run as JSON (steps, checks, ids, events)')
    .exitOverride((err: CommanderError) => process.exit(err.exitCode === 0 ? 0 : 2))
    .action(async (name: string | undefined, flags: TriggerFlags, cmd: Command) => {
      const fail = (message: string): never => cmd.error(`swapsim trigger: ${message}`, { exitCode: 2, code: 'swapsim.usage' });
      if (flags.list) return listTriggers(flags.json);
      if (!name) fail('name a trigger, or pass --list');
      process.exitCode = await runOne(name!, flags, fail);
    });
}
