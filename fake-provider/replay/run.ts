// Replaying a journal into worlds served by server.ts (replay.ts is the driver): `swapsim replay`, `--from`, `--state`.
import { serve } from '../server.ts';
import * as drive from './replay.ts';

export { JournalError, parseJournal, type ParsedJournal, type ReplayReport } from './replay.ts';

/** Replays a parsed journal in a fresh in-process world and leaves it running (see replay.ts). */
export const replayInto = (journal: drive.ParsedJournal, opts: drive.ReplayOptions = {}): Promise<drive.ReplayedWorld> =>
  drive.replayInto(journal, opts, serve);

/** Replays a parsed journal in a fresh in-process world; stops at the first mismatch when verifying. */
export const replayJournal = (journal: drive.ParsedJournal, opts: drive.ReplayOptions = {}): Promise<drive.ReplayReport> =>
  drive.replayJournal(journal, opts, serve);
