// One world per simulation: the kernel, the profile, organizations, the event store and each resource's
// store (created lazily through `defineStore`). Passed in everywhere, never global; `reset` makes a new one.
import type { Rng, SimKernel } from '../sim/index.ts';
import type { Profile } from './profile.ts';
import { createEventStore, type EventStore, type StoredEvent } from './engine/events.ts';
import { createTransitionLog, type TransitionLog } from './engine/transition-log.ts';
import { drawId, drawIdParts, type IdParts } from './engine/ids.ts';
import { runTask } from './engine/task-registry.ts';
import type { SelfEndpoint } from './network.ts';

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
  /** Accounts it created (never fewer: accounts are not deleted); capped by profile `org_max_accounts`. */
  accounts_created: number;
}

export interface World {
  readonly sim: SimKernel;
  readonly profile: Profile;
  readonly orgs: Map<string, Organization>;
  readonly events: EventStore;
  readonly transitions: TransitionLog;
  /** Per-resource stores, keyed by the name given to `defineStore`. */
  readonly stores: Map<string, unknown>;
  /** The same stores by the slot `defineStore` gave each (an array index on the hot path, not a map lookup). */
  readonly storeSlots: unknown[];
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

interface WorldHooks {
  /** Told of every event as it is published (its envelope is made only if a listener reads it). */
  eventPublished: Array<(world: World, event: StoredEvent) => void>;
}

/**
 * A class, not an object literal of closures: every world shares one `newId` and `nextSeq` (see
 * SimScheduler in sim/scheduler.ts for why that matters to the optimizing compiler).
 */
class SimWorld implements World {
  readonly orgs = new Map<string, Organization>();
  readonly events: EventStore = createEventStore();
  readonly transitions: TransitionLog = createTransitionLog();
  readonly stores = new Map<string, unknown>();
  readonly storeSlots: unknown[] = [];
  readonly hooks: WorldHooks = { eventPublished: [] };
  readonly endpoint: SelfEndpoint;
  private seq = 0;
  private idCounter = 0;
  private requestCounter = 0;
  private readonly ids: Rng;
  private readonly requestIds: Rng;

  constructor(
    readonly sim: SimKernel,
    readonly profile: Profile,
    endpoint: SelfEndpoint | undefined,
  ) {
    this.endpoint = endpoint ?? { host: null, port: null };
    this.ids = sim.rng.fork('ids');
    this.requestIds = sim.rng.fork('request-ids');
    runTasksOf(this);
  }

  nextSeq(): number {
    return ++this.seq;
  }

  newId(prefix: string): string {
    return drawId(this.ids, prefix, ++this.idCounter);
  }

  newRequestId(): string {
    return drawId(this.requestIds, 'req', ++this.requestCounter);
  }

  newIdParts(): IdParts {
    return drawIdParts(this.ids, ++this.idCounter);
  }
}

/** The world's scheduler runs its data tasks with this world (a copied world is given its own, copy-world.ts). */
export function runTasksOf(world: World): void {
  world.sim.scheduler.runWith((kind, args, task_id) => runTask(world, kind, args, task_id));
}

export function createWorld(opts: { sim: SimKernel; profile: Profile; endpoint?: SelfEndpoint }): World {
  return new SimWorld(opts.sim, opts.profile, opts.endpoint);
}

/** Slots given to stores so far: one per `defineStore` call (module-level declarations, a fixed few). */
let storeSlotsTaken = 0;

/** Declares a resource's store: `const accounts = defineStore('accounts', () => ({...}))`, then `accounts(world)`. */
export function defineStore<T>(name: string, create: (world: World) => T): (world: World) => T {
  const slot = storeSlotsTaken++;
  return (world) => {
    const held = world.storeSlots[slot];
    if (held !== undefined) return held as T;
    let store = world.stores.get(name) as T | undefined;
    if (store === undefined) {
      store = create(world);
      world.stores.set(name, store);
    }
    world.storeSlots[slot] = store;
    return store;
  };
}
