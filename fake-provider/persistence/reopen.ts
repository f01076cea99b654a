// Reopening a journaled run: the journal is replayed into a fresh world (replay/replay.ts), up to a line,
// then the same world goes live where it stands: it listens where asked, its realtime clock (if any) follows
// wall time again from its last journaled instant, and what it does next is journaled to a sink, or nowhere.
import { readFileSync, writeFileSync } from 'node:fs';
import type { Journal } from '../../sim/index.ts';
import type { ConnectionLimits, RunningServer } from '../server.ts';
import { driveRealtime } from './realtime.ts';
import { JournalError, parseJournal, replayInto, type ParsedJournal, type ReplayReport } from '../replay/run.ts';

export interface ReopenOptions {
  /** Stop after this line of the journal (default: its last complete line). */
  until_line?: number;
  /** Compare every recorded answer on the way (a restart of `--state` does: a mismatch refuses to start). */
  verify?: boolean;
  /** Where the live world then listens (default: the replay's own ephemeral loopback port). */
  port?: number;
  host?: string;
  /** Where the live world journals what happens next; null keeps nothing. */
  sink?: Journal | null;
  /** The live server's connection limits (the replay ran with the defaults). */
  limits?: Partial<ConnectionLimits>;
}

export type ReopenedServer = RunningServer & { report: ReplayReport };

/** Reads a journal file, refusing (JournalError) what is not one. */
export function readJournal(file: string): ParsedJournal {
  try {
    return parseJournal(readFileSync(file, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new JournalError(`${file}: no such file`);
    throw e;
  }
}

/**
 * Writes the journal's header and its lines up to `until_line` to `file` (a fresh journal that continues the
 * run: `serve --from J --journal OUT`, or a new `--state` started from a CI run's journal).
 */
export function copyJournalPrefix(from: string, until_line: number | undefined, file: string): void {
  const lines = readFileSync(from, 'utf8').split('\n');
  lines.pop(); // a cut-off last line (or the empty string after the final newline)
  const kept = until_line === undefined ? lines : lines.slice(0, until_line);
  writeFileSync(file, kept.map((l) => `${l}\n`).join(''), { mode: 0o600 });
}

function listen(running: RunningServer, port: number, host: string): Promise<void> {
  const { server } = running;
  return new Promise<void>((resolve, reject) => {
    server.closeAllConnections();
    server.close(() => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  });
}

/** The world a journal describes at `until_line`, serving live. A run that cannot be followed throws JournalError. */
export async function reopenJournal(journal: ParsedJournal, opts: ReopenOptions = {}): Promise<ReopenedServer> {
  const { running, tape, report } = await replayInto(journal, { until_line: opts.until_line, verify: opts.verify });
  const refuse = async (why: string): Promise<never> => {
    await running.close();
    throw new JournalError(why);
  };
  if (report.mismatch)
    await refuse(
      `line ${report.mismatch.line}: the answer to ${report.mismatch.request} differs from the recorded one (${report.mismatch.difference}); was it written by another swapsim version?`,
    );
  if (report.diverged) await refuse(`the replay diverged from the journal at ${report.diverged}`);
  const { runtime } = running;
  tape.goLive(opts.sink ?? null);
  const host = opts.host ?? running.host;
  const port = opts.port ?? running.port;
  if (host !== running.host || port !== running.port) {
    try {
      await listen(running, port, host);
    } catch (e) {
      await running.close();
      throw e;
    }
  }
  if (opts.limits?.max_connections !== undefined) running.server.maxConnections = opts.limits.max_connections;
  if (opts.limits?.request_timeout_ms !== undefined) running.server.requestTimeout = opts.limits.request_timeout_ms;
  const address = running.server.address() as { port: number };
  // Webhooks never reach where the live server listens; the fact lets a later replay apply it from here on.
  Object.assign(runtime.options.endpoint!, { host, port: address.port });
  tape.write({ kind: 'fact', what: 'endpoint', key: 'server', value: { host, port: address.port } });
  // The realtime driver goes on from the last journaled instant: the time the run was down never happened.
  driveRealtime(runtime);
  const hostForUrl = host.includes(':') ? `[${host}]` : host;
  return {
    ...running,
    host,
    port: address.port,
    base_url: `http://${hostForUrl}:${address.port}/v1`,
    control_url: `http://${hostForUrl}:${address.port}/_sim`,
    report,
  };
}
