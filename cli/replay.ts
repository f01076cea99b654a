// `swapsim replay FILE [--verify] [--until-line N]`: rebuilds a journaled run in a fresh in-process world
// and, with --verify, checks every recorded answer byte for byte. Exit 0 ok, 1 mismatch/divergence, 2 bad journal.
import { readFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import type { ReplayOptions } from '../fake-provider/replay/replay.ts';

export interface ReplayIo {
  out(line: string): void;
  err(line: string): void;
}

const positiveInt = (v: string): number => {
  if (!/^[1-9][0-9]*$/.test(v)) throw new InvalidArgumentError('must be a positive line number');
  return Number(v);
};

/** Runs a replay and prints its outcome; returns the exit status. */
export async function runReplay(
  file: string,
  opts: ReplayOptions,
  io: ReplayIo = { out: console.log, err: console.error },
): Promise<number> {
  // Loaded here, not at the top: `swapsim --help` stays light (cli/main.ts).
  const { JournalError, parseJournal, replayJournal } = await import('../fake-provider/replay/run.ts');
  const { SWAPSIM_VERSION } = await import('../fake-provider/replay/record.ts');
  let report: Awaited<ReturnType<typeof replayJournal>>;
  try {
    const journal = parseJournal(readFileSync(file, 'utf8'));
    if (journal.header.swapsim_version !== SWAPSIM_VERSION) {
      io.err(
        `swapsim replay: ${file} was written by swapsim ${journal.header.swapsim_version}, this is ${SWAPSIM_VERSION}: engine changes between them show as mismatches`,
      );
    }
    if (journal.partial_line)
      io.err(`swapsim replay: ${file} ends inside a line (the run was cut off); replaying up to its last complete line`);
    report = await replayJournal(journal, opts);
  } catch (e) {
    if (e instanceof JournalError || (e as NodeJS.ErrnoException).code === 'ENOENT') {
      io.err(`swapsim replay: ${file}: ${(e as Error).message}`);
      return 2;
    }
    throw e;
  }
  if (report.mismatch) {
    const m = report.mismatch;
    io.err(`swapsim replay: mismatch at line ${m.line}: the answer to ${m.request} (${m.request_id})`);
    io.err(`  ${m.difference}`);
    io.err(`  replayed ${report.inputs} inputs and verified ${report.verified} answers before it`);
    return 1;
  }
  if (report.diverged) {
    io.err(`swapsim replay: the replay diverged from the journal at ${report.diverged}`);
    return 1;
  }
  const verified = opts.verify ? `verified ${report.verified} responses, 0 mismatches` : 'responses not verified (pass --verify)';
  const cut =
    report.unfinished.length > 0
      ? `; ${report.unfinished.length} still running when the journal ends (${report.unfinished.join(', ')})`
      : '';
  io.out(`replayed ${report.inputs} inputs, ${verified}${cut}`);
  return 0;
}

export function registerReplay(program: Command): void {
  program
    .command('replay')
    .description('rebuild a run journaled by `serve --journal` in a fresh in-process world (no port needed)')
    .argument('<file>', 'the journal (JSON lines)')
    .option('--verify', 'compare every recorded answer (status, headers, body bytes) with the replayed one')
    .option('--until-line <n>', 'stop after this line of the journal', positiveInt)
    .action(async (file: string, opts: { verify?: boolean; untilLine?: number }) => {
      const code = await runReplay(file, { verify: opts.verify ?? false, until_line: opts.untilLine });
      process.exit(code);
    });
}
