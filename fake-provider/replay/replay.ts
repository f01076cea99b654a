// Replaying a journal (the driver; run.ts binds it to server.ts's `serve`, which snapshots reach through the
// runtime instead, as importing it from the control plane would be a cycle): a fresh world from the header on an ephemeral loopback port, fed every input in journal
// order (send a request, advance the clock, hand an outside answer to the call awaiting it), each only once the
// world has done all the previous ones caused; with verify, each recorded answer is compared at its line.
import { Agent, request as httpRequest } from 'node:http';
import { JOURNAL_VERSION, wallNow_ms } from '../../sim/index.ts';
import type { ServeWorld, ServedWorld } from '../runtime.ts';
import { dropHeldRequests } from '../http/faults.ts';
import type { ClockLine, FactLine, HeaderLine, JournalLine, OutsideLine, RequestLine, ResponseLine } from './lines.ts';
import { ReplayTape } from './tape.ts';
import { followServer } from '../worlds.ts';
import { redactUrl, responseDifference } from './verify.ts';

/** A journal that cannot be replayed at all (not a journal, another version): exit status 2. */
export class JournalError extends Error {}

export interface ParsedJournal {
  header: HeaderLine;
  /** Every complete line after the header, with its 1-based line number in the file. */
  lines: Array<{ n: number; line: JournalLine }>;
  /** The file ended inside a line (a run killed mid-write): that line is ignored. */
  partial_line: boolean;
}

export function parseJournal(text: string): ParsedJournal {
  const raw = text.split('\n');
  // Whatever follows the last newline was cut off mid-write (or is empty).
  const partial_line = (raw.pop() ?? '').length > 0;
  const lines: Array<{ n: number; line: JournalLine }> = [];
  raw.forEach((t, i) => {
    if (t.trim() === '') return;
    try {
      lines.push({ n: i + 1, line: JSON.parse(t) as JournalLine });
    } catch {
      throw new JournalError(`line ${i + 1} is not a JSON line: this is not a swapsim journal, or it was edited`);
    }
  });
  const first = lines.shift()?.line as Partial<HeaderLine> | undefined;
  if (first?.kind !== 'header')
    throw new JournalError('the journal has no header line: write it with `swapsim serve --journal FILE` (this version)');
  if (first.version !== JOURNAL_VERSION) {
    throw new JournalError(
      `journal version ${String(first.version)}, but this swapsim replays version ${JOURNAL_VERSION}: replay it with the swapsim that wrote it`,
    );
  }
  return { header: first as HeaderLine, lines, partial_line };
}

interface Mismatch {
  line: number;
  request_id: string;
  /** `METHOD url` of the request answered. */
  request: string;
  difference: string;
}

export interface ReplayReport {
  /** Requests, clock movements and outside answers fed to the world. */
  inputs: number;
  verified: number;
  mismatch: Mismatch | null;
  /** The replay could not follow the journal (e.g. an outside answer nothing waits for). */
  diverged: string | null;
  /** Requests (or clock movements) still unanswered at the end: the run was cut off while they ran. */
  unfinished: string[];
  last_line: number;
  partial_line: boolean;
}

export interface ReplayOptions {
  verify?: boolean;
  /** Stop after this line of the file. */
  until_line?: number;
}

/**
 * A request that waits on neither the journal nor I/O (held on the sim clock by a delay_ms fault, a clock
 * movement queued behind a paused one) counts as parked after this many event-loop rounds and this much
 * wall time without progress.
 */
const PARKED_ROUNDS = 50;
const PARKED_MS = 5;
const STUCK_MS = 30_000;

const nextRound = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Waits until `done()` (true as soon as it holds); with `parkable`, also returns once nothing has moved for
 * a while. Returns a message when nothing moves for STUCK_MS.
 */
async function waitUntil(tape: ReplayTape, n: number, done: () => boolean, parkable: boolean): Promise<string | null> {
  let since_ms = wallNow_ms();
  let seen = tape.progress;
  let quiet = 0;
  for (;;) {
    if (done()) return null;
    await nextRound();
    if (tape.progress !== seen) {
      seen = tape.progress;
      quiet = 0;
      since_ms = wallNow_ms();
    } else if (parkable && tape.arrived() && ++quiet >= PARKED_ROUNDS && wallNow_ms() - since_ms >= PARKED_MS) return null;
    if (wallNow_ms() - since_ms > STUCK_MS)
      return `line ${n}: the replayed run made no progress for ${STUCK_MS / 1000} s (waiting: ${tape.unfinished().join(', ')})`;
  }
}

/** Waits until the world has done everything the inputs so far caused. */
const quiesce = (tape: ReplayTape, n: number): Promise<string | null> => waitUntil(tape, n, () => tape.idle(), true);

function send(agent: Agent, port: number, line: RequestLine): string | null {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(line.headers)) if (value !== null) headers[name] = value;
  if (line.body !== null) headers['content-length'] = String(Buffer.byteLength(line.body));
  let req: ReturnType<typeof httpRequest>;
  try {
    req = httpRequest({ host: '127.0.0.1', port, method: line.method, path: line.url, headers, agent });
  } catch (e) {
    return (e as Error).message;
  }
  // The answer is read on the server side (the tape); a replayed `lose_response` reset errors here.
  req.on('response', (res) => res.resume());
  req.on('error', () => undefined);
  req.end(line.body ?? undefined);
  return null;
}

function startWorld(header: HeaderLine, tape: ReplayTape, serve: ServeWorld): Promise<ServedWorld> {
  return serve({
    seed: header.seed,
    secret_seed: header.secret_seed ?? undefined,
    clock: header.clock,
    speed: header.speed,
    start_ms: header.clock === 'virtual' ? (header.start_ms ?? undefined) : undefined,
    profile: header.profile,
    seed_orgs: header.seed_orgs,
    control_token: header.control_token ?? undefined,
    control_open: header.control_open,
    // A journal written before worlds per organization kept its tenants in the server's world.
    org_worlds: header.org_worlds ?? 'shared',
    journal: tape,
    host: '127.0.0.1',
    port: 0,
  });
}

interface Replay {
  running: ServedWorld;
  tape: ReplayTape;
  agent: Agent;
  /** Requests sent and not yet answered in the journal, for naming them in a mismatch. */
  requests: Map<string, RequestLine>;
  report: ReplayReport;
  verify: boolean;
}

/** Feeds one input line to the world; returns a divergence message when the run cannot follow it. */
function feed(r: Replay, n: number, line: RequestLine | ClockLine | OutsideLine): string | null {
  if (line.kind === 'request') {
    r.requests.set(line.request_id, line);
    r.tape.expect(line);
    const refused = send(r.agent, r.running.port, line);
    return refused ? `line ${n}: node's HTTP client refuses to resend this request (${refused})` : null;
  }
  if (line.kind === 'clock') {
    const runtime = r.running.runtime;
    const world = line.organization_id === undefined ? runtime.world : runtime.worlds.get(line.organization_id)?.world;
    if (world === undefined)
      return `line ${n}: a clock line for organization ${line.organization_id}, which has no world of its own in the replayed run`;
    // A server tick moves the organizations that follow its clock to the same time, as it did when recorded.
    const follow = line.organization_id === undefined;
    r.tape.run(`clock@line${n}`, async () => {
      const target_ms = world.sim.now_ms() + line.ms;
      await Promise.all([world.sim.scheduler.advance(line.ms), follow ? followServer(runtime, target_ms) : undefined]);
    });
    return null;
  }
  if (r.tape.deliver(line.what, line.key, line.value)) return null;
  return `line ${n}: the journal holds the answer to ${line.what} ${line.key}, but the replayed run is not waiting for it (waiting: ${r.tape.waitingOutside().join(', ') || 'nothing'})`;
}

/** Compares (with verify) the replayed answer to a response line, then forgets both. */
async function answer(r: Replay, n: number, line: ResponseLine): Promise<void> {
  // The recording answered here, before any later line: so must the replay (a slow import may still run).
  const id = line.request_id;
  if (r.tape.owners.has(id))
    r.report.diverged = await waitUntil(r.tape, n, () => r.tape.owners.get(id)?.finished !== false || r.tape.waitsOutside(id), false);
  const got = r.tape.takeAnswer(line.request_id);
  if (r.verify) {
    const req = r.requests.get(line.request_id);
    const difference = responseDifference({ status: line.status, headers: line.headers, body: line.body, reset: line.reset }, got);
    if (difference)
      r.report.mismatch = {
        line: n,
        request_id: line.request_id,
        request: req ? `${req.method} ${redactUrl(req.url)}` : '(a request the journal does not hold)',
        difference,
      };
    else r.report.verified++;
  }
  r.requests.delete(line.request_id);
}

/** A world rebuilt from a journal's lines, still on its replay tape (see persistence/reopen.ts to go live). */
export interface ReplayedWorld {
  running: ServedWorld;
  tape: ReplayTape;
  report: ReplayReport;
}

/**
 * Replays a parsed journal in a fresh in-process world (listening on an ephemeral loopback port) and leaves it
 * running; stops at the first mismatch when verifying. The caller closes `running`, or takes the world live.
 */
export async function replayInto(journal: ParsedJournal, opts: ReplayOptions, serve: ServeWorld): Promise<ReplayedWorld> {
  const tape = new ReplayTape(
    journal.lines.map((l) => l.line),
    journal,
  );
  const report: ReplayReport = {
    inputs: 0,
    verified: 0,
    mismatch: null,
    diverged: null,
    unfinished: [],
    last_line: 1,
    partial_line: journal.partial_line,
  };
  const r: Replay = {
    running: await startWorld(journal.header, tape, serve),
    tape,
    agent: new Agent({ keepAlive: true }),
    requests: new Map(),
    report,
    verify: opts.verify ?? false,
  };
  try {
    for (const { n, line } of journal.lines) {
      if (opts.until_line !== undefined && n > opts.until_line) break;
      report.last_line = n;
      if (line.kind === 'response') await answer(r, n, line);
      else if (line.kind === 'shutdown') {
        // The recording stopped here: what a delay_ms fault still held was answered 503, so it is here too.
        report.inputs++;
        dropHeldRequests(r.running.runtime.world);
        report.diverged = await quiesce(tape, n);
      } else if (line.kind === 'request' || line.kind === 'clock' || line.kind === 'outside') {
        report.inputs++;
        // An owner waiting on one answer counts as idle, but worlds run at once under it (an unscoped advance):
        // another world's work may still be on its way to the call this line answers. Wait for the call to be made.
        if (line.kind === 'outside') await waitUntil(tape, n, () => tape.awaits(line.what, line.key), true);
        report.diverged = feed(r, n, line) ?? (await quiesce(tape, n));
        // With --verify an earlier answer usually differs first, and is reported as the mismatch.
        if (tape.divergence) report.diverged ??= `line ${n}: ${tape.divergence}`;
      } else if (line.kind === 'fact') relisten(r, line);
      else throw new JournalError(`line ${n}: unexpected line kind ${String((line as { kind?: unknown }).kind)}`);
      if (report.mismatch || report.diverged) break;
    }
    report.unfinished = tape.unfinished();
    return { running: r.running, tape, report };
  } catch (e) {
    await closeReplay(r.running);
    throw e;
  } finally {
    r.agent.destroy();
  }
}

/** A journal continued after a restart (`serve --state`) holds one endpoint fact per start: each applies from its line. */
function relisten(r: Replay, line: FactLine): void {
  if (line.what !== 'endpoint') return;
  const endpoint = r.running.runtime.options.endpoint!;
  Object.assign(endpoint, line.value as { host: string; port: number });
}

async function closeReplay(running: ServedWorld): Promise<void> {
  running.server.closeAllConnections();
  await running.close();
}

/** Replays a parsed journal in a fresh in-process world; stops at the first mismatch when verifying. */
export async function replayJournal(journal: ParsedJournal, opts: ReplayOptions, serve: ServeWorld): Promise<ReplayReport> {
  const replayed = await replayInto(journal, opts, serve);
  await closeReplay(replayed.running);
  return replayed.report;
}
