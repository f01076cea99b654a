// The journal: every input to a run (API request, control call, clock movement) as one JSON line,
// written synchronously so a run killed with SIGKILL keeps every complete line.
import { closeSync, openSync, writeSync } from 'node:fs';

export interface JournalEntry {
  kind: 'api' | 'control' | 'clock';
  sim_ms: number;
  [field: string]: unknown;
}

export interface Journal {
  readonly path: string | null;
  write(entry: JournalEntry): void;
  close(): void;
}

export function createJournal(path: string | null): Journal {
  let fd = path ? openSync(path, 'a') : null;
  return {
    path,
    write(entry) {
      if (fd !== null) writeSync(fd, JSON.stringify(entry) + '\n');
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}
