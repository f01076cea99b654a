// The immutable event store: every event any lifecycle emits, with the spec's envelope, queried by the
// event feed, account activity and webhook replay. Events are stored as columns on publish (publish.ts),
// never edited, and read as frozen envelopes; `retain` drops events (a deleted organization's, those past retention).
import { exactCounter, formatId, parseId, type IdParts } from './ids.ts';
import { COPY, type CopyFn } from './copy.ts';

export interface EventEnvelope {
  event_id: string;
  type: string;
  created_at_ms: number;
  account_id: string;
  data: Record<string, unknown>;
}

export interface StoredEvent {
  readonly envelope: Readonly<EventEnvelope>;
  readonly org_id: string;
  readonly seq: number;
}

/** A read-only, live view of stored events in publication order (the array methods readers use). */
export interface EventList extends Iterable<StoredEvent> {
  readonly length: number;
  /** The event at `index` (negative counts from the end), made on read. */
  at(index: number): StoredEvent | undefined;
  map<T>(fn: (e: StoredEvent, index: number) => T): T[];
  filter(fn: (e: StoredEvent) => boolean): StoredEvent[];
  find(fn: (e: StoredEvent) => boolean): StoredEvent | undefined;
}

/** Lookup by event id without a Map entry per event (see `createEventStore`). */
interface EventIndex {
  get(event_id: string): StoredEvent | undefined;
  has(event_id: string): boolean;
}

export interface EventStore {
  /** Every event in publication order: `seq` and the id counter both increase along it. */
  readonly all: EventList;
  readonly byId: EventIndex;
  /** One account's events in publication order (the feed's and activity's `account_id` reads). */
  forAccount(account_id: string): EventList;
  /** One organization's events in publication order (the feed without `account_id`): a page costs its own events, not every tenant's. */
  forOrg(org_id: string): EventList;
  /** Appends one event given whole (a tool, a test); its id must be a `world.newId('evt')` id. `publish` uses `append`. */
  add(event: StoredEvent): void;
  /**
   * Appends one event from its parts (publish's path): the id as its random number and counter (world
   * `newIdParts`), the data (or, with `build`, its source). Returns the stored event, whose envelope and
   * id string are made only if someone reads them.
   */
  append(
    id: IdParts,
    type: string,
    created_at_ms: number,
    org_id: string,
    account_id: string,
    seq: number,
    data: unknown,
    build: Derived['build'] | null,
  ): StoredEvent;
  /**
   * Keeps only the events `keep` accepts (given each event's org and time), in publication order, and frees
   * the others: an organization deleted, events past their retention. O(events): the columns are rebuilt.
   * Events read before (an envelope a reader holds) stay valid. Returns how many were dropped.
   */
  retain(keep: (org_id: string, created_at_ms: number) => boolean): number;
  /** Events dropped by `retain` since the store was made (0: the store holds every event published). */
  readonly dropped: number;
  /** The first stored event's created_at_ms (no envelope made), or undefined when the store is empty. */
  firstCreatedAt_ms(): number | undefined;
}

/**
 * Event data rebuilt on read from an entity instead of kept: `build(source)` must read only fields of the
 * source that never change once the event is published (ids, assets, amounts fixed at creation), so every
 * read gives the same bytes. `build` is one module-level function per event kind (it is interned).
 */
export interface Derived<S = any> {
  readonly source: S;
  readonly build: (source: S) => Record<string, unknown>;
}

/** Event ids are world ids of this prefix (ids.ts): the columns keep their parts and print them on read. */
const ID_PREFIX = 'evt';

const U32_LIMIT = 2 ** 32;
/** Events per column chunk: the first chunk doubles up to this size, then whole chunks are added. */
const CHUNK_BITS = 14;
const CHUNK = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK - 1;
const FIRST_CHUNK = 64;

/**
 * Numbers by position, appended in order, in chunked typed arrays: 4 bytes each while every value is
 * a u32, 8 (Float64) once one is not. Chunks are never copied once full, and at most one is part-empty.
 */
class NumberColumn {
  private chunks: Array<Uint32Array | Float64Array> = [];
  constructor(private wide = false) {}
  get(i: number): number {
    return this.chunks[i >>> CHUNK_BITS][i & CHUNK_MASK];
  }
  /** Stores the value of position `i`, the next one. */
  push(i: number, value: number): void {
    const c = i >>> CHUNK_BITS;
    const o = i & CHUNK_MASK;
    if (!this.wide && !(Number.isInteger(value) && value >= 0 && value < U32_LIMIT)) this.widen();
    let chunk = this.chunks[c];
    if (chunk === undefined) this.chunks.push((chunk = this.make(c === 0 ? FIRST_CHUNK : CHUNK)));
    else if (o === chunk.length) {
      const grown = this.make(chunk.length * 2);
      grown.set(chunk);
      this.chunks[c] = chunk = grown;
    }
    chunk[o] = value;
  }
  /** Float64 from now on, each stored value mapped (the time column turns offsets into times). */
  widen(map: (v: number) => number = (v) => v): void {
    this.chunks = this.chunks.map((chunk) => Float64Array.from(chunk, map));
    this.wide = true;
  }
  private make(n: number): Uint32Array | Float64Array {
    return this.wide ? new Float64Array(n) : new Uint32Array(n);
  }
}

/** Times as ms after the first one, 4 bytes each (49 days); absolute Float64 times past that. */
class TimeColumn {
  private readonly values = new NumberColumn();
  private base_ms = NaN;
  private absolute = false;
  get(i: number): number {
    return this.absolute ? this.values.get(i) : this.base_ms + this.values.get(i);
  }
  push(i: number, at_ms: number): void {
    if (!this.absolute) {
      if (i === 0) this.base_ms = at_ms;
      const offset = at_ms - this.base_ms;
      if (Number.isInteger(offset) && offset >= 0 && offset < U32_LIMIT && this.base_ms + offset === at_ms)
        return this.values.push(i, offset);
      const base_ms = this.base_ms;
      this.values.widen((v) => base_ms + v);
      this.absolute = true;
    }
    this.values.push(i, at_ms);
  }
}

/**
 * Event positions in publication order, 4 bytes each in a typed array that doubles as it fills (a JS
 * array of small integers holds 8 bytes a slot here, and 9 slots per settled trade).
 */
class Positions {
  private items = new Uint32Array(16);
  length = 0;
  get(i: number): number {
    return this.items[i];
  }
  push(position: number): void {
    if (this.length === this.items.length) {
      const grown = new Uint32Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.length++] = position;
  }
}

const NO_POSITIONS = new Positions();

/** One account id's events: positions in publication order, and the owner code of each (org, account). */
interface AccountEvents {
  positions: Positions;
  /** The org of the account's first event, and the owner code of the pair. */
  org_id: string;
  code: number;
  others: Map<string, number> | null;
}

/**
 * The store as columns, one entry per event at its position in publication order: the id as its random
 * part and counter (numbers, not a 20-character string), interned type and (org, account) codes, the
 * time and seq, the data object itself, and its position in its account's and organization's lists (~42 bytes an event). One object per event (record + id
 * string, ~130 bytes) was the largest item of a settled trade's memory. Events are made on read.
 */
class Columns {
  length = 0;
  readonly random = new NumberColumn(true);
  readonly counter = new NumberColumn();
  readonly type = new NumberColumn();
  readonly owner = new NumberColumn();
  readonly created_at_ms = new TimeColumn();
  readonly seq = new NumberColumn();
  /** The data object, or for a derived event its source (the type code says which). */
  readonly data: unknown[] = [];
  readonly types: string[];
  /** Per type code: null for stored data, else the function that rebuilds the data from the source. */
  readonly builders: Array<Derived['build'] | null>;
  readonly typeCodes: Map<string, number>;
  /** Derived events get codes of their own, one per (build, type): no per-event byte says which they are. */
  readonly derivedCodes: Map<Derived['build'], Map<string, number>>;

  /** New columns; with `types`, sharing that store's interned types (a rebuild keeps type codes). */
  constructor(types?: Columns) {
    this.types = types?.types ?? [];
    this.builders = types?.builders ?? [];
    this.typeCodes = types?.typeCodes ?? new Map();
    this.derivedCodes = types?.derivedCodes ?? new Map();
  }
  readonly owners: Array<{ org_id: string; account_id: string }> = [];
  /** Per account id: its event positions in publication order, and its owner code(s). */
  readonly accounts = new Map<string, AccountEvents>();
  /** Per organization: its event positions in publication order (4 bytes an event). */
  readonly orgs = new Map<string, Positions>();

  addToOrg(org_id: string, index: number): void {
    let positions = this.orgs.get(org_id);
    if (positions === undefined) this.orgs.set(org_id, (positions = new Positions()));
    positions.push(index);
  }

  eventId(i: number): string {
    return formatId(ID_PREFIX, this.random.get(i), this.counter.get(i));
  }

  typeCode(type: string, build: Derived['build'] | null): number {
    let codes = this.typeCodes;
    if (build !== null) {
      let byType = this.derivedCodes.get(build);
      if (byType === undefined) this.derivedCodes.set(build, (byType = new Map()));
      codes = byType;
    }
    let code = codes.get(type);
    if (code === undefined) {
      codes.set(type, (code = this.types.push(type) - 1));
      this.builders.push(build);
    }
    return code;
  }

  dataAt(i: number): Record<string, unknown> {
    const build = this.builders[this.type.get(i)];
    return build === null ? (this.data[i] as Record<string, unknown>) : Object.freeze(build(this.data[i]));
  }

  /** Adds position `index` to the account's events; returns the owner code of (org, account). */
  addToAccount(org_id: string, account_id: string, index: number): number {
    let account = this.accounts.get(account_id);
    if (account === undefined)
      this.accounts.set(
        account_id,
        (account = { positions: new Positions(), org_id, code: this.newOwner(org_id, account_id), others: null }),
      );
    account.positions.push(index);
    if (account.org_id === org_id) return account.code;
    // The same account id published under another org (only a hand-made publish does that).
    account.others ??= new Map();
    let code = account.others.get(org_id);
    if (code === undefined) account.others.set(org_id, (code = this.newOwner(org_id, account_id)));
    return code;
  }

  private newOwner(org_id: string, account_id: string): number {
    return this.owners.push({ org_id, account_id }) - 1;
  }
}

/**
 * A stored event as read back from the columns: `envelope` is a frozen object with exactly the five
 * fields in the spec's order, made on first use (a feed scan rejects other orgs' events without it); org
 * and seq read the columns. Readers keep it briefly (a feed page, one delivery attempt).
 */
class EventAt implements StoredEvent {
  #envelope: Readonly<EventEnvelope> | undefined;
  constructor(
    private readonly columns: Columns,
    readonly index: number,
  ) {}
  get envelope(): Readonly<EventEnvelope> {
    if (this.#envelope === undefined) {
      const { columns: c, index: i } = this;
      this.#envelope = Object.freeze({
        event_id: c.eventId(i),
        type: c.types[c.type.get(i)],
        created_at_ms: c.created_at_ms.get(i),
        account_id: c.owners[c.owner.get(i)].account_id,
        data: c.dataAt(i),
      });
    }
    return this.#envelope;
  }
  get org_id(): string {
    return this.columns.owners[this.columns.owner.get(this.index)].org_id;
  }
  get seq(): number {
    return this.columns.seq.get(this.index);
  }

  /** Its copy reads the copied columns; its envelope is made again on first use. */
  [COPY](copy: CopyFn): EventAt {
    return new EventAt(copy(this.columns), this.index);
  }
}

/** Events at the given positions of the columns (all of them when `positions` is null). */
class EventView implements EventList {
  constructor(
    private readonly columns: Columns,
    private readonly positions: Positions | null,
  ) {}
  get length(): number {
    return this.positions === null ? this.columns.length : this.positions.length;
  }
  at(index: number): StoredEvent | undefined {
    const i = index < 0 ? this.length + index : index;
    if (!(i >= 0 && i < this.length)) return undefined;
    return new EventAt(this.columns, this.positions === null ? i : this.positions.get(i));
  }
  *[Symbol.iterator](): Iterator<StoredEvent> {
    for (let i = 0; i < this.length; i++) yield this.at(i)!;
  }
  map<T>(fn: (e: StoredEvent, index: number) => T): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.length; i++) out.push(fn(this.at(i)!, i));
    return out;
  }
  filter(fn: (e: StoredEvent) => boolean): StoredEvent[] {
    const out: StoredEvent[] = [];
    for (let i = 0; i < this.length; i++) {
      const e = this.at(i)!;
      if (fn(e)) out.push(e);
    }
    return out;
  }
  find(fn: (e: StoredEvent) => boolean): StoredEvent | undefined {
    for (let i = 0; i < this.length; i++) {
      const e = this.at(i)!;
      if (fn(e)) return e;
    }
    return undefined;
  }
}

/**
 * A class, not closures over a factory's locals: every world's store shares one `append` (see SimScheduler
 * in sim/scheduler.ts for why that matters to the optimizing compiler).
 */
class ColumnEventStore implements EventStore {
  private columns = new Columns();
  private view = new EventView(this.columns, null);
  private dropped_count = 0;
  /** The last event published, and its counter: a reader asking for it at once gets the same object. */
  private lastAt: EventAt | undefined;
  private lastCounter = -1;
  readonly byId: EventIndex = { get: (event_id) => this.find(event_id), has: (event_id) => this.find(event_id) !== undefined };

  /**
   * Its copy (a world's snapshot, copy.ts): the columns' copy (events' data are entities: the copy's are the
   * copied entities). `byId` closes over its store, so the copy makes its own; the last event published is
   * found again by search, which gives an equal event.
   */
  [COPY](copy: CopyFn): ColumnEventStore {
    const out = new ColumnEventStore();
    out.columns = copy(this.columns);
    out.view = new EventView(out.columns, null);
    out.dropped_count = this.dropped_count;
    return out;
  }

  get all(): EventList {
    return this.view;
  }

  get dropped(): number {
    return this.dropped_count;
  }

  // The world's id counter only grows and every event id is drawn at publish, so the counter column is
  // sorted: a binary search finds an event, then the whole id must match.
  private find(event_id: string): StoredEvent | undefined {
    const columns = this.columns;
    const want = exactCounter(ID_PREFIX, event_id);
    if (want < 0) return undefined;
    const lastAt = this.lastAt;
    if (lastAt !== undefined && want === this.lastCounter) return columns.eventId(lastAt.index) === event_id ? lastAt : undefined;
    let lo = 0;
    let hi = columns.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const got = columns.counter.get(mid);
      if (got === want) return columns.eventId(mid) === event_id ? new EventAt(columns, mid) : undefined;
      if (got < want) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  firstCreatedAt_ms(): number | undefined {
    return this.columns.length === 0 ? undefined : this.columns.created_at_ms.get(0);
  }

  retain(keep: (org_id: string, created_at_ms: number) => boolean): number {
    const old = this.columns;
    const next = new Columns(old);
    for (let i = 0; i < old.length; i++) {
      const owner = old.owners[old.owner.get(i)];
      const at_ms = old.created_at_ms.get(i);
      if (!keep(owner.org_id, at_ms)) continue;
      const index = next.length++;
      next.random.push(index, old.random.get(i));
      next.counter.push(index, old.counter.get(i));
      next.type.push(index, old.type.get(i));
      next.owner.push(index, next.addToAccount(owner.org_id, owner.account_id, index));
      next.addToOrg(owner.org_id, index);
      next.created_at_ms.push(index, at_ms);
      next.seq.push(index, old.seq.get(i));
      next.data.push(old.data[i]);
    }
    const gone = old.length - next.length;
    if (gone === 0) return 0;
    this.columns = next;
    this.view = new EventView(next, null);
    this.lastAt = undefined;
    this.lastCounter = -1;
    this.dropped_count += gone;
    return gone;
  }

  forAccount(account_id: string): EventList {
    return new EventView(this.columns, this.columns.accounts.get(account_id)?.positions ?? NO_POSITIONS);
  }

  forOrg(org_id: string): EventList {
    return new EventView(this.columns, this.columns.orgs.get(org_id) ?? NO_POSITIONS);
  }

  add(event: StoredEvent): void {
    const columns = this.columns;
    const e = event.envelope;
    const id = parseId(ID_PREFIX, e.event_id);
    // The columns rebuild the id from its parts; an id they could not is a swapsim bug, caught here.
    if (id === null) throw new Error(`event id ${e.event_id} is not an evt id`);
    const index = columns.length++;
    columns.random.push(index, id.random);
    columns.counter.push(index, id.counter);
    columns.type.push(index, columns.typeCode(e.type, null));
    columns.owner.push(index, columns.addToAccount(event.org_id, e.account_id, index));
    columns.addToOrg(event.org_id, index);
    columns.created_at_ms.push(index, e.created_at_ms);
    columns.seq.push(index, event.seq);
    columns.data.push(e.data);
    this.lastAt = undefined;
  }

  append(
    id: IdParts,
    type: string,
    created_at_ms: number,
    org_id: string,
    account_id: string,
    seq: number,
    data: unknown,
    build: Derived['build'] | null,
  ): StoredEvent {
    const columns = this.columns;
    const index = columns.length++;
    columns.random.push(index, id.random);
    columns.counter.push(index, id.counter);
    columns.type.push(index, columns.typeCode(type, build));
    columns.owner.push(index, columns.addToAccount(org_id, account_id, index));
    columns.addToOrg(org_id, index);
    columns.created_at_ms.push(index, created_at_ms);
    columns.seq.push(index, seq);
    columns.data.push(data);
    const at = new EventAt(columns, index);
    this.lastAt = at;
    this.lastCounter = id.counter;
    return at;
  }
}

export function createEventStore(): EventStore {
  return new ColumnEventStore();
}
