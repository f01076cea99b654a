// A world kept in a folder (`serve --state DIR`): its journal is its state. The first start records a fresh
// journal there; every later start replays it (checking each recorded answer), truncates a line a kill cut
// short, and goes on appending to the same file. No second source of truth: what the journal holds is the world.
import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createJournal, randomSecretSeed, type JournalSync } from '../../sim/index.ts';
import { journalHeader } from '../replay/record.ts';
import { serve, type ConnectionLimits, type RunningServer } from '../server.ts';
import type { RuntimeOptions } from '../runtime.ts';
import { copyJournalPrefix, readJournal, reopenJournal } from './reopen.ts';
import type { ReplayReport } from '../replay/replay.ts';

const STATE_JOURNAL = 'journal.jsonl';

export interface StateOptions {
  dir: string;
  /** `none`: each line is handed to the kernel before the answer leaves (a killed process loses nothing); `answers`: fsync too. */
  sync?: JournalSync;
  /** A state folder still empty starts from this journal (up to `from_until_line`) instead of a fresh world. */
  from?: string;
  from_until_line?: number;
}

export interface StateServer {
  running: RunningServer;
  /** Null on a first start; the replay of the kept journal otherwise. */
  reopened: ReplayReport | null;
  journal_path: string;
}

/** Cuts a last line a kill left half-written, so that appended lines start on a line of their own. */
export function truncatePartialLine(path: string): boolean {
  const fd = openSync(path, 'r+');
  try {
    const size = fstatSync(fd).size;
    const chunk = Buffer.alloc(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const n = readSync(fd, chunk, 0, end - start, start);
      const i = chunk.subarray(0, n).lastIndexOf(0x0a);
      if (i >= 0) {
        const keep = start + i + 1;
        if (keep === size) return false;
        ftruncateSync(fd, keep);
        return true;
      }
      end = start;
    }
    ftruncateSync(fd, 0);
    return size > 0;
  } finally {
    closeSync(fd);
  }
}

const hasJournal = (path: string): boolean => existsSync(path) && statSync(path).size > 0;

/**
 * Serves the world kept in `state.dir`: a fresh one (from `options`) on the first start, else the journal's
 * (its header's seed, clock, profile and keys win over `options`), listening where `options` say.
 */
export async function serveState(
  state: StateOptions,
  options: RuntimeOptions & { port?: number; host?: string; limits?: Partial<ConnectionLimits> },
): Promise<StateServer> {
  mkdirSync(state.dir, { recursive: true, mode: 0o700 });
  const journal_path = join(state.dir, STATE_JOURNAL);
  if (!hasJournal(journal_path) && state.from !== undefined) copyJournalPrefix(state.from, state.from_until_line, journal_path);
  if (!hasJournal(journal_path)) {
    // The header keeps the secret seed, so it is drawn here (createRuntime would draw it after the header).
    const resolved = { ...options, secret_seed: options.secret_seed ?? randomSecretSeed() };
    const running = await serve({
      ...resolved,
      journal: createJournal(journal_path, { header: journalHeader(resolved), sync: state.sync }),
    });
    return { running, reopened: null, journal_path };
  }
  truncatePartialLine(journal_path);
  const journal = readJournal(journal_path);
  const running = await reopenJournal(journal, {
    verify: true,
    port: options.port,
    host: options.host,
    sink: createJournal(journal_path, { sync: state.sync }),
    limits: options.limits,
  });
  return { running, reopened: running.report, journal_path };
}
