// What a running fake is, as a type: the current world (a reset swaps it), the options every world of it is
// made from, the rate limiter and the bugs seen. app.ts builds one; the control plane, the gate and the journal
// read it. Types only, so any module may import it without importing the app.
import type { Server } from 'node:http';
import type { SimKernelOptions } from '../sim/index.ts';
import type { Profile } from './profile.ts';
import type { World } from './world.ts';
import type { OrganizationInput } from './organizations.ts';
import type { RateLimiter } from './http/rate-limits.ts';
import type { SelfEndpoint } from './network.ts';
import type { TriggerRunner } from './ui/trigger-runner.ts';
import type { AnyRoute } from './contract/route.ts';
import type { InFlightBound } from './resources/webhooks/outbox.ts';

export interface RuntimeOptions extends SimKernelOptions {
  profile?: Profile;
  /** Organizations created in every fresh world (the demo org of `npm start`, the keys given by --api-key). */
  seed_orgs?: OrganizationInput[];
  control_token?: string;
  /** Allow control calls from any address without a token (tests of the gate itself turn this off). */
  control_open?: boolean;
  /** Where the server listens: server.ts fills it in; every world of the runtime reads it (webhook destinations). */
  endpoint?: SelfEndpoint;
  /** Runs the scenario library's triggers for the dashboard (`swapsim serve` hands it in; ui/trigger-runner.ts). */
  trigger_runner?: TriggerRunner;
  /**
   * Where an organization created at runtime without a clock of its own lives (worlds.ts): `own` (default) a
   * world of its own whose clock follows the server's; `shared` the server's world, as before issue 26 (a server
   * with a single tenant, such as `swapsim scenario run`'s in-process ones, whose bytes stay as they were).
   */
  org_worlds?: 'own' | 'shared';
}

/** An unscoped market or screening call as kept for followers created later (server-wide.ts): its route's handler and input. */
interface ServerWideCall {
  route: AnyRoute;
  input: unknown;
}

/** A world a runtime hosts beside its default one (worlds.ts): one organization's. */
export interface HostedWorld {
  world: World;
  /** Stops its realtime driver (a no-op for a virtual clock, and for a world that follows the server clock). */
  stop: () => void;
  /** Its clock follows the server's (an organization created without a clock); false: a clock of its own. */
  follows: boolean;
  /** A follower still running its last move (a realtime tick skips it; the next one catches it up). */
  moving?: boolean;
}

export interface Runtime {
  world: World;
  /** Organizations in worlds of their own (a clock of their own, or following the server's), by id (worlds.ts). */
  readonly worlds: Map<string, HostedWorld>;
  /** The API keys of those organizations → their world: `/v1` is routed by key. */
  readonly keyWorlds: Map<string, World>;
  /** Unscoped market and screening calls, the latest per what each sets: a new follower world starts with them (server-wide.ts). */
  readonly serverWide: Map<string, ServerWideCall>;
  readonly options: RuntimeOptions;
  readonly limiter: RateLimiter;
  /**
   * `webhook_max_in_flight_total` over the server: every world of the runtime (the server's, each organization's,
   * those a reset or restore makes) counts its webhook POSTs in flight against this one bound.
   */
  readonly webhookBound: InFlightBound;
  /** Unexpected errors (each one is a swapsim bug); reported by /_sim/invariants. */
  readonly bugs: Array<{ request_id: string; message: string }>;
  reset(): World;
  stopRealtime: () => void;
}

/** A world served over HTTP, as server.ts's `serve` returns it (server.ts's RunningServer is this type). */
export interface ServedWorld {
  runtime: Runtime;
  server: Server;
  port: number;
  host: string;
  base_url: string;
  control_url: string;
  close(): Promise<void>;
}

export type ServeWorld = (options: RuntimeOptions & { port?: number; host?: string }) => Promise<ServedWorld>;
