// One world per simulation: the kernel, the profile, organizations, the event store and each resource's
// store (created lazily through `defineStore`). Passed in everywhere, never global; `reset` makes a new one.
import type { SimKernel } from '../sim/index.ts';
import type { Profile } from './profile.ts';
import { createEventStore, type EventStore, type StoredEvent } from './engine/events.ts';
import { createTransitionLog, type TransitionLog } from './engine/transition-log.ts';
import { ID_COUNTER_DIGITS, ID_HEX_CHARS } from './engine/id-counter.ts';
import type { SelfEndpoint } from './resources/webhooks/destinations.ts';

export interface RateLimits {
  reads: number;
  writes: number;
  indicative_rfqs: number;
  firm_rfqs: number;
}

export interface Organization {
  organization_id: string;
  /** API keys as given; compared through their digests in constant time (see http/auth.ts). */
  api_keys: string[];
  platform_fee_bps: string;
  integrator_fee_bps: string;
  recovery_enabled: boolean;
  partner_screening: boolean;
  /** Asset policy: asset keys this organization may not trade (403 forbidden_asset). */
  forbidden_assets: string[];
  rate_limits: RateLimits;
  created_at_ms: number;
}

export interface World {
  readonly sim: SimKernel;
  readonly profile: Profile;
  readonly orgs: Map<string, Organization>;
  readonly events: EventStore;
  readonly transitions: TransitionLog;
  /** Per-resource stores, keyed by the name given to `defineStore`. */
  readonly stores: Map<string, unknown>;
  /** Listeners installed by resources at world creation (e.g. webhooks on every published event). */
  readonly hooks: WorldHooks;
  /** Where the server listens (shared by every world of a runtime; ports unknown in an in-process world). */
  readonly endpoint: SelfEndpoint;
  /** Monotonic sequence for cursors: every stored record gets the next value. */
  nextSeq(): number;
  /** A fresh id `<prefix>_<random hex><counter>` from the `ids` stream: unique and deterministic. */
  newId(prefix: string): string;
  /**
   * A request id `req_<random hex><counter>` from its own stream and counter: a request that creates nothing
   * (a readiness probe) shifts no entity id.
   */
  newRequestId(): string;
  /**
   * The next id's parts, drawn exactly as `newId` draws them: its random bytes as one number (the 12 hex
   * digits read as a base-16 integer) and its counter. The event store keeps events' ids as these two
   * numbers and prints the id only when it is read.
   */
  newIdParts(): IdParts;
}

export interface IdParts {
  random: number;
  counter: number;
}

export interface WorldHooks {
  /** Told of every event as it is published (its envelope is made only if a listener reads it). */
  eventPublished: Array<(world: World, event: StoredEvent) => void>;
}

export function createWorld(opts: { sim: SimKernel; profile: Profile; endpoint?: SelfEndpoint }): World {
  let seq = 0;
  let idCounter = 0;
  const ids = opts.sim.rng.fork('ids');
  const requestIds = opts.sim.rng.fork('request-ids');
  let requestCounter = 0;
  return {
    sim: opts.sim,
    profile: opts.profile,
    orgs: new Map(),
    events: createEventStore(),
    transitions: createTransitionLog(),
    stores: new Map(),
    hooks: { eventPublished: [] },
    endpoint: opts.endpoint ?? { host: null, port: null },
    nextSeq: () => ++seq,
    // One flat string from the stream's own scratch: a template literal would leave a rope (ConsString) of
    // parts behind every id the world keeps, several per entity (~128 instead of ~48 bytes an id).
    newId: (prefix) => ids.hex(ID_RANDOM_BYTES, `${prefix}_`, (++idCounter).toString(36).padStart(ID_COUNTER_DIGITS, '0')),
    newRequestId: () => requestIds.hex(ID_RANDOM_BYTES, 'req_', (++requestCounter).toString(36).padStart(ID_COUNTER_DIGITS, '0')),
    newIdParts: () => {
      // The same two draws `hex(6)` makes, its bytes b0..b5 (each draw's least significant byte first).
      const w0 = ids.u32();
      const w1 = ids.u32();
      const high = (((w0 & 0xff) << 24) | (((w0 >>> 8) & 0xff) << 16) | (((w0 >>> 16) & 0xff) << 8) | (w0 >>> 24)) >>> 0;
      const low = ((w1 & 0xff) << 8) | ((w1 >>> 8) & 0xff);
      return { random: high * 65_536 + low, counter: ++idCounter };
    },
  };
}

/** Random bytes in an id: `<prefix>_` is followed by twice as many hex characters, then the counter. */
const ID_RANDOM_BYTES = ID_HEX_CHARS / 2;

/** Declares a resource's store: `const accounts = defineStore('accounts', () => ({...}))`, then `accounts(world)`. */
export function defineStore<T>(name: string, create: (world: World) => T): (world: World) => T {
  return (world) => {
    let store = world.stores.get(name) as T | undefined;
    if (store === undefined) {
      store = create(world);
      world.stores.set(name, store);
    }
    return store;
  };
}
