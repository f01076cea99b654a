// The journal a replayed world sees (mode `replay`): outside inputs come from the recording, never from
// the network or the wall clock, and each one is handed over only when the replay driver reaches its line.
// It also tracks every replayed request (owner) so the driver knows when the world has nothing left to do.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Journal, JournalEntry } from '../../sim/journal.ts';
import type { CapturedResponse, HeaderLine, JournalLine, RequestLine } from './lines.ts';

interface Owner {
  committed: boolean;
  finished: boolean;
  response: CapturedResponse | null;
}

interface PendingOutside {
  what: string;
  key: string;
  owner: string | undefined;
  /** The live call, kept so that a reopened world (goLive) can make it when the journal ends before its answer. */
  read: (() => Promise<unknown>) | undefined;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

const factKey = (what: string, key: string): string => `${what}\u0000${key}`;

export class ReplayTape implements Journal {
  readonly path = null;
  /** `replay` until a reopened world goes live (goLive): from then on it records, to its sink or nowhere. */
  mode: 'replay' | 'record' = 'replay';
  private sink: Journal | null = null;
  /** The replayed request (or clock movement) each piece of async work belongs to. */
  readonly context = new AsyncLocalStorage<string>();
  readonly owners = new Map<string, Owner>();
  /** Owners not answered yet: what `idle` looks at (the map above also keeps answers awaiting verification). */
  private readonly open = new Set<string>();
  /** Bumped on every commit, answer, outside call and delivery: the driver's "something happened". */
  progress = 0;
  private readonly facts = new Map<string, unknown[]>();
  private readonly pending: PendingOutside[] = [];
  private arriving: RequestLine | null = null;
  /** The first sign that the replayed run left the journal's path, if any. */
  divergence: string | null = null;

  /** The journal replayed, header included (a snapshot restored during a replay rebuilds its world from a prefix of it). */
  readonly source: { header: HeaderLine; lines: Array<{ n: number; line: JournalLine }> } | null;

  constructor(lines: readonly JournalLine[], source: ReplayTape['source'] = null) {
    this.source = source;
    for (const line of lines) {
      if (line.kind !== 'fact') continue;
      const k = factKey(line.what, line.key);
      const list = this.facts.get(k) ?? [];
      list.push(line.value);
      this.facts.set(k, list);
    }
  }

  write(entry: JournalEntry): void {
    // A replay writes nothing (its answers are compared, not kept); a reopened world writes to its sink.
    if (this.mode === 'record') this.sink?.write(entry);
  }

  close(): void {
    this.sink?.close();
  }

  fact(what: string, key: string, when?: (value: unknown) => boolean): unknown {
    if (this.mode === 'record') return undefined;
    const list = this.facts.get(factKey(what, key));
    if (list === undefined || list.length === 0 || (when !== undefined && !when(list[0]))) return undefined;
    return list.shift();
  }

  outside<T>(what: string, key: string, read?: () => Promise<T>): Promise<T> {
    if (this.mode === 'record') return this.live(what, key, read!);
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ what, key, owner: this.context.getStore(), read, resolve: resolve as (v: unknown) => void, reject });
      this.progress++;
    });
  }

  /** The file a live tape journals to, if any. */
  get sinkPath(): string | null {
    return this.sink?.path ?? null;
  }

  private live<T>(what: string, key: string, read: () => Promise<T>): Promise<T> {
    return this.sink ? this.sink.outside(what, key, read) : read();
  }

  /**
   * The journal's lines are all in: from here the world runs live, as a recording world does (its lines go to
   * `sink`, or nowhere). Outside calls still waiting (a webhook attempt the recording never saw answered) are
   * made now, for real.
   */
  goLive(sink: Journal | null): void {
    this.mode = 'record';
    this.sink = sink;
    this.arriving = null;
    this.facts.clear();
    for (const p of this.pending.splice(0)) void this.live(p.what, p.key, p.read!).then(p.resolve, p.reject);
  }

  // ---- the driver's side ----

  /** The driver is about to send this request: the server's journal step (record.ts, run by http/planes.ts) takes it. */
  expect(line: RequestLine): void {
    this.arriving = line;
    this.owners.set(line.request_id, { committed: false, finished: false, response: null });
    this.open.add(line.request_id);
  }

  /** Called by the server when the expected request arrives (one at a time, the driver waits for it). */
  arrive(replayed_request_id: string): RequestLine {
    const line = this.arriving;
    if (!line) throw new Error('replay: a request arrived that the journal did not send');
    this.arriving = null;
    // Ids come from the sim: a different one means the replayed run took another path before this request.
    if (replayed_request_id !== line.request_id)
      this.divergence ??= `request ${line.request_id} drew id ${replayed_request_id} in the replay: the run took another path before it`;
    const owner = this.owners.get(line.request_id)!;
    owner.committed = true;
    this.progress++;
    return line;
  }

  answered(owner_id: string, response: CapturedResponse): void {
    const owner = this.owners.get(owner_id);
    if (!owner || owner.finished) return;
    owner.finished = true;
    owner.response = response;
    this.open.delete(owner_id);
    this.progress++;
  }

  /** The answer to a request, once; the driver drops it after comparing (a long journal stays small in memory). */
  takeAnswer(owner_id: string): CapturedResponse | null {
    const owner = this.owners.get(owner_id);
    if (owner?.finished) this.owners.delete(owner_id);
    return owner?.response ?? null;
  }

  /** Runs a clock movement as an owner of its own (webhook attempts inside it wait on the tape). */
  run(owner_id: string, work: () => Promise<unknown>): void {
    const owner: Owner = { committed: true, finished: false, response: null };
    this.owners.set(owner_id, owner);
    this.open.add(owner_id);
    const done = (): void => {
      this.owners.delete(owner_id);
      this.open.delete(owner_id);
      this.progress++;
    };
    this.context.run(owner_id, () => work().then(done, done));
  }

  /** Hands the recorded value to the outside call waiting for it; false when none waits (a divergence). */
  deliver(what: string, key: string, value: unknown): boolean {
    const i = this.pending.findIndex((p) => p.what === what && p.key === key);
    if (i < 0) return false;
    const [p] = this.pending.splice(i, 1);
    p.resolve(value);
    this.progress++;
    return true;
  }

  /** Some call waits for this outside answer now. */
  awaits(what: string, key: string): boolean {
    return this.pending.some((p) => p.what === what && p.key === key);
  }

  /** The owner waits for an outside answer (which a later journal line holds). */
  waitsOutside(owner_id: string): boolean {
    return this.pending.some((p) => p.owner === owner_id);
  }

  waitingOutside(): string[] {
    return this.pending.map((p) => `${p.what} ${p.key}`);
  }

  /** True when every replayed request has arrived, and each is answered or waits on a later journal line. */
  idle(): boolean {
    if (this.arriving) return false;
    for (const id of this.open) {
      if (!this.owners.get(id)?.committed) return false;
      if (!this.waitsOutside(id)) return false;
    }
    return true;
  }

  /** Every request the driver sent has reached the world. */
  arrived(): boolean {
    return this.arriving === null && [...this.open].every((id) => this.owners.get(id)?.committed);
  }

  unfinished(): string[] {
    return [...this.open];
  }
}
