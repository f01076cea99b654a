// The journal: a run as JSON lines (a header, then every input in the order it took effect: requests,
// clock movements, outside answers such as a webhook receiver's status), written synchronously so a run
// killed with SIGKILL keeps every complete line. A replay implements the same interface (mode `replay`).
import { closeSync, fchmodSync, fsyncSync, openSync, writeSync } from 'node:fs';

/** Bumped whenever a line's meaning changes: a replay refuses a journal of another version. */
export const JOURNAL_VERSION = 2;

export interface JournalEntry {
  kind: string;
  [field: string]: unknown;
}

/** `off`: nothing is kept; `record`: lines go to the file; `replay`: outside inputs come from a recording. */
type JournalMode = 'off' | 'record' | 'replay';

export interface Journal {
  readonly path: string | null;
  readonly mode: JournalMode;
  write(entry: JournalEntry): void;
  /**
   * An input from outside the sim that arrives later (a webhook receiver's answer, a sealed HPKE bundle).
   * Recording runs `read` and journals the value when it arrives, so its line sits where its effects
   * begin; replaying hands back the recorded value when the replay reaches that line, never running `read`.
   */
  outside<T>(what: string, key: string, read: () => Promise<T>): Promise<T>;
  /**
   * Replaying: the value a `{kind: 'fact', what, key, value}` line recorded (each one once, in order); else
   * undefined. With `when`, the next value is taken only if `when` accepts it (else it stays for a later call).
   */
  fact(what: string, key: string, when?: (value: unknown) => boolean): unknown;
  close(): void;
}

/**
 * When lines reach the disk. `none`: each line is written (handed to the kernel) before anything it caused
 * leaves the process, so a killed process loses nothing, but an OS crash may lose the last lines; `answers`:
 * each response line is also fsynced before the answer is sent (nothing acknowledged is lost to a power cut).
 */
export type JournalSync = 'none' | 'answers';

/**
 * A journal on a file, or the no-op journal when `path` is null. With a `header` the file starts afresh
 * with that line (a journal is one run); without, lines are appended.
 */
export function createJournal(path: string | null, opts: { header?: JournalEntry; sync?: JournalSync } = {}): Journal {
  // Owner-only (0600): a journal holds API keys, webhook secrets, OTPs and the secret seed.
  let fd = path ? openSync(path, opts.header ? 'w' : 'a', 0o600) : null;
  if (fd !== null) fchmodSync(fd, 0o600);
  const syncAnswers = opts.sync === 'answers';
  const write = (entry: JournalEntry): void => {
    if (fd === null) return;
    writeSync(fd, `${JSON.stringify(entry)}\n`);
    if (syncAnswers && entry.kind === 'response') fsyncSync(fd);
  };
  if (opts.header) write(opts.header);
  return {
    path,
    mode: path ? 'record' : 'off',
    write,
    async outside(what, key, read) {
      const value = await read();
      write({ kind: 'outside', what, key, value });
      return value;
    },
    fact: () => undefined,
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}
