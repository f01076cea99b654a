// `swapsim wait`: blocks until a swapsim answers (GET /_sim/health 200) or a --ready-file appears, for CI
// scripts that start `swapsim serve &` and must not run their tests early. It polls until its deadline
// (default 5 minutes) and never gives up before: a cold machine may take tens of seconds to start a server.
import { existsSync, readFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';

const DURATION = /^([0-9]+(?:\.[0-9]+)?)(ms|s|m)?$/;

function parseWaitDuration(v: string): number {
  const m = DURATION.exec(v.trim());
  if (!m) throw new InvalidArgumentError('a duration such as 90s, 5m or 500ms');
  return Number(m[1]) * { ms: 1, s: 1_000, m: 60_000 }[m[2] ?? 's']!;
}

interface WaitFlags {
  url: string;
  readyFile?: string;
  timeout: number;
  intervalMs: number;
}

/** The health URL to poll: the one given, or the ready file's server's. */
function healthUrl(flags: WaitFlags): string | null {
  if (flags.readyFile === undefined) return flags.url;
  if (!existsSync(flags.readyFile)) return null;
  try {
    return `${(JSON.parse(readFileSync(flags.readyFile, 'utf8')) as { control_url: string }).control_url}/health`;
  } catch {
    return null;
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

async function waitFor(flags: WaitFlags): Promise<number> {
  const started = Date.now();
  for (;;) {
    const url = healthUrl(flags);
    if (url !== null && (await answers(url))) {
      console.log(`swapsim wait: ${url} answered after ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return 0;
    }
    if (Date.now() - started >= flags.timeout) {
      const what = flags.readyFile !== undefined && url === null ? `no ready file ${flags.readyFile}` : `no answer from ${url}`;
      console.error(
        `swapsim wait: ${what} after ${(flags.timeout / 1000).toFixed(0)} s; did \`swapsim serve\` start (its output says why not)? Raise --timeout if it is only slow`,
      );
      return 1;
    }
    await new Promise((r) => setTimeout(r, flags.intervalMs));
  }
}

function defaultHealthUrl(): string {
  const base = process.env.SWAPSIM_BASE_URL;
  return base ? `${new URL(base).origin}/_sim/health` : 'http://127.0.0.1:4010/_sim/health';
}

export function registerWait(program: Command): void {
  program
    .command('wait')
    .description('wait until a swapsim serves (GET /_sim/health answers 200); exit 1 only once --timeout has passed')
    .option(
      '--url <url>',
      'health URL to poll (default: that of env SWAPSIM_BASE_URL, else http://127.0.0.1:4010/_sim/health)',
      defaultHealthUrl(),
    )
    .option('--ready-file <file>', "wait for this file (from `swapsim serve --ready-file`), then for its server's health")
    .option('--timeout <duration>', 'give up after this long (90s, 5m, …)', parseWaitDuration, 300_000)
    .option(
      '--interval-ms <ms>',
      'pause between polls',
      (v) => {
        if (!/^[0-9]+$/.test(v) || Number(v) < 10) throw new InvalidArgumentError('a whole number of at least 10');
        return Number(v);
      },
      200,
    )
    .action(async (flags: WaitFlags) => {
      process.exitCode = await waitFor(flags);
    });
}
