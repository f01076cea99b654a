// `serve --from JOURNAL [--until-line N]` and `serve --state DIR [--fsync answers]`: the serve options that
// start from a journal instead of a fresh world (fake-provider/persistence/). A journal's header decides the
// world (seed, clock, profile, keys); the command line decides only where it listens.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { ConnectionLimits, RunningServer } from '../fake-provider/server.ts';
import type { RuntimeOptions } from '../fake-provider/runtime.ts';
import type { JournalSync } from '../sim/journal.ts';
import { StartError } from './start-errors.ts';

export interface PersistFlags {
  from?: string;
  untilLine?: number;
  state?: string;
  fsync?: JournalSync;
  journal?: string;
  init?: string;
  demo?: boolean;
}

/** Flags a journal's header overrides: given with --from or a kept --state, they are ignored, and said so. */
const WORLD_FLAGS = ['seed', 'secretSeed', 'clock', 'speed', 'apiKey', 'profile', 'partnerScreening', 'controlToken'];

/** Checks the combination before anything starts (exit 2 with one line). */
export function checkPersistFlags(flags: PersistFlags): void {
  if (flags.untilLine !== undefined && flags.from === undefined) throw new StartError('--until-line needs --from JOURNAL');
  if (flags.from !== undefined && flags.state === undefined && (flags.init !== undefined || flags.demo))
    throw new StartError('--from reopens a world as it was: --init and --demo do not apply');
  if (flags.fsync !== undefined && flags.state === undefined) throw new StartError('--fsync applies to --state DIR');
  if (flags.state !== undefined && flags.journal !== undefined)
    throw new StartError('--state DIR keeps its own journal (DIR/journal.jsonl); drop --journal');
  if (flags.state !== undefined && existsSync(flags.state) && !statSync(flags.state).isDirectory())
    throw new StartError(`--state ${flags.state} is not a folder`);
  if (
    flags.from !== undefined &&
    flags.state !== undefined &&
    existsSync(join(flags.state, 'journal.jsonl')) &&
    statSync(join(flags.state, 'journal.jsonl')).size > 0
  ) {
    throw new StartError(
      `--from starts a new --state folder, but ${flags.state} already holds a world; pick an empty folder or drop --from`,
    );
  }
}

/** The world flags given on the command line that a journal's header will override. */
function overriddenFlags(cmd: Command): string[] {
  return WORLD_FLAGS.filter((f) => cmd.getOptionValueSource(f) === 'cli').map(
    (f) => `--${f.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
  );
}

/**
 * Starts the persisted or reopened server when --state or --from is given (null otherwise); prints what was
 * reopened. A journal that cannot be followed is a StartError.
 */
export async function servePersisted(
  flags: PersistFlags,
  options: RuntimeOptions & { port: number; host: string; limits: Partial<ConnectionLimits> },
  cmd: Command,
): Promise<RunningServer | null> {
  if (flags.state === undefined && flags.from === undefined) return null;
  const { JournalError } = await import('../fake-provider/replay/replay.ts');
  const { serveState } = await import('../fake-provider/persistence/state.ts');
  const { copyJournalPrefix, readJournal, reopenJournal } = await import('../fake-provider/persistence/reopen.ts');
  const { createJournal } = await import('../sim/journal.ts');
  try {
    if (flags.state !== undefined) {
      const kept = await serveState({ dir: flags.state, sync: flags.fsync, from: flags.from, from_until_line: flags.untilLine }, options);
      if (kept.reopened) {
        Object.assign(kept.running, { reopened: true });
        console.log(
          `swapsim: reopened ${kept.journal_path} (replayed ${kept.reopened.inputs} inputs, verified ${kept.reopened.verified} answers); appending to it`,
        );
        ignored(cmd);
      }
      return kept.running;
    }
    const journal = readJournal(flags.from!);
    let sink = null;
    if (flags.journal !== undefined) {
      copyJournalPrefix(flags.from!, flags.untilLine, flags.journal);
      sink = createJournal(flags.journal);
    }
    const running = await reopenJournal(journal, {
      until_line: flags.untilLine,
      port: options.port,
      host: options.host,
      sink,
      limits: options.limits,
    });
    const r = running.report;
    const cut = r.unfinished.length > 0 ? `; ${r.unfinished.length} still running at that line` : '';
    console.log(
      `swapsim: reopened ${flags.from} at line ${r.last_line} (replayed ${r.inputs} inputs${cut})${sink ? `; continuing in ${flags.journal}` : ''}`,
    );
    ignored(cmd);
    return Object.assign(running, { reopened: true });
  } catch (e) {
    if (e instanceof JournalError)
      throw new StartError(`${flags.state !== undefined ? `--state ${flags.state}` : `--from ${flags.from}`}: ${e.message}`);
    throw e;
  }
}

function ignored(cmd: Command): void {
  const flags = overriddenFlags(cmd);
  if (flags.length > 0) console.log(`swapsim: ${flags.join(', ')} ignored: the journal's header decides the world`);
}
