// Runs the reference integrator: `node --import tsx scenarios/examples/reference-integrator/server.ts
// --port P [--bug NAME]... [--poll-ms N] [--style S] [--defer-ms N] [--answer-delay-ms N]`. With no --bug it is
// the correct consumer `swapsim verify` passes; each --bug switches on one deliberate mistake (see bugs.ts); --style
// picks one of the correct-but-unusual ways to consume deliveries (app.ts IntegratorOptions.style).
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { BUG_NAMES, BUGS, isBug } from './bugs.ts';
import { INTEGRATOR_STYLES, startIntegrator, type IntegratorStyle } from './app.ts';

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '4020' },
      host: { type: 'string', default: '127.0.0.1' },
      bug: { type: 'string', multiple: true, default: [] },
      'poll-ms': { type: 'string', default: '0' },
      style: { type: 'string', default: 'apply' },
      'defer-ms': { type: 'string', default: '200' },
      'answer-delay-ms': { type: 'string', default: '0' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(`usage: server.ts --port P [--bug NAME]... [--poll-ms N] [--style ${INTEGRATOR_STYLES.join('|')}] [--defer-ms N] [--answer-delay-ms N]\nbugs:`);
    for (const name of BUG_NAMES) console.log(`  ${name}: ${BUGS[name]}`);
    return;
  }
  const unknown = values.bug.filter((b) => !isBug(b));
  if (unknown.length > 0) {
    console.error(`unknown --bug ${unknown.join(', ')}; known: ${BUG_NAMES.join(', ')}`);
    process.exit(2);
  }
  if (!(INTEGRATOR_STYLES as readonly string[]).includes(values.style)) {
    console.error(`unknown --style ${values.style}; known: ${INTEGRATOR_STYLES.join(', ')}`);
    process.exit(2);
  }
  const running = await startIntegrator({
    port: Number(values.port), host: values.host, bugs: values.bug.filter(isBug), poll_ms: Number(values['poll-ms']),
    style: values.style as IntegratorStyle, defer_ms: Number(values['defer-ms']), answer_delay_ms: Number(values['answer-delay-ms']),
  });
  console.log(`reference integrator on ${running.url}${values.bug.length > 0 ? ` (bugs: ${values.bug.join(', ')})` : ''}`);
  const shutdown = (): void => void running.close().then(() => process.exit(0));
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main(process.argv.slice(2));
