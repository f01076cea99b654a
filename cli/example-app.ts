// `swapsim example-app`: serves the reference integrator (scenarios/examples/reference-integrator/), the known-good
// consumer `swapsim verify` passes, so an installed user has an app to try verify on before their own; `--bug`
// switches on one classic integrator mistake (a twin verify must catch), `--style` one of the correct-but-unusual
// ways to consume deliveries (feed-only, nudge, deferred 202-then-apply). Runs until SIGINT or SIGTERM.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { startErrorMessage } from './start-errors.ts';

const port = (v: string): number => {
  if (!/^[0-9]+$/.test(v) || Number(v) > 65535)
    throw new InvalidArgumentError('a port is a whole number from 0 to 65535 (0: any free port)');
  return Number(v);
};
const whole = (v: string): number => {
  if (!/^[0-9]+$/.test(v)) throw new InvalidArgumentError('a whole number of milliseconds');
  return Number(v);
};

interface ExampleFlags {
  port: number;
  host: string;
  bug: string[];
  style: string;
  deferMs: number;
  answerDelayMs: number;
  pollMs: number;
}

export function registerExampleApp(program: Command): void {
  program
    .command('example-app')
    .description('serve the reference integrator (a correct app for `swapsim verify`), or a twin with one classic bug')
    .option('--port <port>', 'port to listen on (0: any free port)', port, 4020)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .addOption(
      new Option('--bug <name>', 'switch on one mistake (repeatable; --list-bugs names them)')
        .argParser((v: string, prev: string[]) => [...prev, v])
        .default([], 'none'),
    )
    .addOption(
      new Option('--style <style>', 'how the webhook endpoint consumes a delivery it accepted')
        .choices(['apply', 'feed-only', 'nudge', 'deferred'])
        .default('apply'),
    )
    .option('--defer-ms <ms>', 'deferred style: apply this long after the 202', whole, 200)
    .option('--answer-delay-ms <ms>', 'take this long over every webhook before handling it', whole, 0)
    .option('--poll-ms <ms>', 'also read GET /events this often (0: only on configure and /probe/sync)', whole, 0)
    .option('--list-bugs', 'print the mistakes --bug can switch on, and exit')
    .action(async (flags: ExampleFlags & { listBugs?: boolean }) => {
      const { BUG_NAMES, BUGS, isBug } = await import('../scenarios/examples/reference-integrator/bugs.ts');
      if (flags.listBugs) {
        for (const name of BUG_NAMES) console.log(`${name}: ${BUGS[name]}`);
        return;
      }
      const unknown = flags.bug.filter((b) => !isBug(b));
      if (unknown.length > 0) {
        console.error(`swapsim example-app: unknown --bug ${unknown.join(', ')}; known: ${BUG_NAMES.join(', ')}`);
        process.exit(2);
      }
      const { startIntegrator } = await import('../scenarios/examples/reference-integrator/app.ts');
      let running: Awaited<ReturnType<typeof startIntegrator>>;
      try {
        running = await startIntegrator({
          port: flags.port,
          host: flags.host,
          bugs: flags.bug.filter(isBug),
          poll_ms: flags.pollMs,
          style: flags.style as 'apply',
          defer_ms: flags.deferMs,
          answer_delay_ms: flags.answerDelayMs,
        });
      } catch (err) {
        const message = startErrorMessage(err, { port: flags.port, host: flags.host });
        if (message === null) throw err;
        console.error(`swapsim example-app: ${message}`);
        process.exit(2);
      }
      const what = flags.bug.length > 0 ? ` (bugs: ${flags.bug.join(', ')})` : flags.style !== 'apply' ? ` (style: ${flags.style})` : '';
      console.log(`reference integrator on ${running.url}${what}; verify it with: npx swapsim verify --app ${running.url}`);
      const shutdown = (): void => void running.close().then(() => process.exit(0));
      process.on('SIGINT', shutdown);
      process.on('SIGTERM', shutdown);
    });
}
