// Building the runtime and the app: a runtime holds the current world (reset swaps it; runtime.ts declares
// it); the app serves the /v1 API built from every resource's declared routes and the control plane under
// /_sim, both as planes of http/planes.ts (fastify), with their OpenAPI documents and the pipeline's observers.
import type { ServerOptions } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { createSimKernel, randomSecretSeed } from '../sim/index.ts';
import { DEFAULT_PROFILE } from './profile.ts';
import { createWorld, type World } from './world.ts';
import { ApiError } from './contract/errors.ts';
import type { AnyRoute } from './contract/route.ts';
import { sendJson } from './http/pipeline.ts';
import { controlDocument, v1Document } from './http/openapi.ts';
import { frontDoor } from './http/planes.ts';
import { clientErrorAnswer } from './http/limits.ts';
import type { RequestObserver } from './http/pipeline.ts';
import { conductObserver } from './conduct/observer.ts';
import { noteIdempotentWrite, witnessIdempotentAnswer } from './oracle/idempotency-ledger.ts';
import { createRateLimiter } from './http/rate-limits.ts';
import { dropHeldRequests } from './http/faults.ts';
import { RESOURCES } from './resources/index.ts';
import { eventEnvelope } from './resources/events/index.ts';
import { installRetention } from './retention.ts';
import { controlRoutes } from './control/routes.ts';
import { conductRoutes } from './conduct/index.ts';
import { controlGate } from './control/gate.ts';
import { uiAssetRoutes, uiDataRoutes, uiRunRoutes } from './ui/index.ts';
import { createOrganization } from './organizations.ts';
import { InFlightBound } from './resources/webhooks/outbox.ts';
import { shareInFlightBound } from './resources/webhooks/model.ts';
import { requestJournal, runtimeJournal, SWAPSIM_VERSION, worldStart_ms } from './replay/record.ts';
import type { Runtime, RuntimeOptions } from './runtime.ts';
import { dropOrgWorlds, followServer } from './worlds.ts';
import { serverWideRoutes } from './server-wide.ts';

/** A fresh world; `bound`: its runtime's bound on webhook POSTs in flight (a world made alone has its own). */
export function newWorld(options: RuntimeOptions, bound?: InFlightBound): World {
  // With worlds per organization the server's rules' `times` counts are shared with its followers (worlds.ts).
  const fault_world = options.org_worlds === 'shared' ? undefined : 'server';
  const sim = createSimKernel({ ...options, start_ms: worldStart_ms(options), fault_world });
  const world = createWorld({ sim, profile: options.profile ?? DEFAULT_PROFILE, endpoint: options.endpoint });
  if (bound !== undefined) shareInFlightBound(world, bound);
  for (const r of RESOURCES) r.install?.(world);
  installRetention(world);
  for (const org of options.seed_orgs ?? []) createOrganization(world, org);
  return world;
}

export function createRuntime(given: RuntimeOptions = {}): Runtime {
  // One journal for the runtime's life, shared by every world a reset makes (a reset is a journaled input).
  // One secret seed for the runtime's life (every world a reset makes draws the same secrets), random unless
  // given; the journal header keeps it so a replay draws the same keys and secrets.
  const resolved: RuntimeOptions = { ...given, secret_seed: given.secret_seed ?? randomSecretSeed() };
  const journal = runtimeJournal(resolved);
  const options: RuntimeOptions = { ...resolved, endpoint: given.endpoint ?? { host: null, port: null } };
  if (journal) options.journal = journal;
  // One bound over the server for the runtime's life: a reset's fresh world counts against it too, so POSTs the
  // world it replaces still has out keep their slots until they end.
  const webhookBound = new InFlightBound();
  const runtime: Runtime = {
    world: newWorld(options, webhookBound),
    worlds: new Map(),
    keyWorlds: new Map(),
    serverWide: new Map(),
    options,
    webhookBound,
    limiter: createRateLimiter({
      retry_after: () => runtime.world.profile.rate_limit_retry_after,
      algorithm: () => runtime.world.profile.rate_limit_algorithm,
    }),
    bugs: [],
    stopRealtime: () => undefined,
    reset() {
      runtime.stopRealtime();
      dropOrgWorlds(runtime);
      runtime.serverWide.clear();
      dropHeldRequests(runtime.world);
      runtime.world = newWorld(options, webhookBound);
      startDriver();
      return runtime.world;
    },
  };
  // In realtime mode the driver moves the clock; each movement is an input, so it is journaled.
  const startDriver = (): void => {
    const sim = runtime.world.sim;
    // A replay moves the clock from the journal's clock lines instead.
    if (sim.clock.mode !== 'realtime' || sim.journal.mode === 'replay') return;
    runtime.stopRealtime = sim.scheduler.startRealtime((ms) => {
      sim.journal.write({ kind: 'clock', sim_ms: sim.now_ms(), op: 'advance', ms });
      // Organizations whose clock follows the server's go to where this tick takes it (worlds.ts).
      void followServer(runtime, sim.now_ms() + ms);
    });
  };
  startDriver();
  return runtime;
}

/**
 * Every observer of the serving pipeline, registered here and nowhere else (http/pipeline.ts calls them by role,
 * never by name): client conduct per API key, and the oracle's witness of idempotent answers, which sits apart
 * from the idempotency store it checks (it sees the answers, not the store).
 */
const OBSERVERS: readonly RequestObserver[] = [
  conductObserver,
  { idempotentWrite: noteIdempotentWrite, idempotentAnswer: witnessIdempotentAnswer },
];

export function apiRoutes(): AnyRoute[] {
  return RESOURCES.flatMap((r) => r.routes ?? []);
}

/** The OpenAPI 3.1 document of /v1, generated from the same zod schemas that validate requests. */
function openapiDocument(): unknown {
  return v1Document(apiRoutes(), { envelope: eventEnvelope });
}

/**
 * The server's app (http/planes.ts): /v1 and /_sim each served from its declared routes, with their OpenAPI
 * documents, the readiness probe and the dashboard's files before anything else, and a 404 in the envelope
 * elsewhere. `server`: node's server options (server.ts's connection limits).
 */
export function createApp(runtime: Runtime, server: ServerOptions = {}): FastifyInstance {
  const onBug = (err: unknown, request_id: string): void => {
    runtime.bugs.push({ request_id, message: err instanceof Error ? err.message : String(err) });
    console.error(`[swapsim] internal error on ${request_id}:`, err instanceof Error ? err.stack : err);
  };
  // Market and screening calls, unscoped, set every world that follows the server clock, and reads over every
  // tenant gather every world's rows (server-wide.ts).
  const controlPlane = serverWideRoutes(runtime, [
    ...controlRoutes(runtime),
    ...RESOURCES.flatMap((r) => r.control ?? []),
    ...conductRoutes,
    ...uiDataRoutes(runtime),
  ]);
  return frontDoor({
    planes: [
      {
        prefix: '/v1',
        routes: apiRoutes(),
        control: false,
        document: () => openapiDocument(),
        notFound: (method, path) => new ApiError('route_not_found', `no route ${method} /v1${path}`),
      },
      {
        prefix: '/_sim',
        routes: controlPlane,
        control: true,
        document: () => controlDocument(controlPlane),
        gate: controlGate(runtime),
        notFound: (method, path) => new ApiError('route_not_found', `no control route ${method} /_sim${path}`),
      },
    ],
    serving: { limiter: runtime.limiter, resources: RESOURCES, observers: OBSERVERS },
    // Readiness for scripts and CI (`curl --retry-connrefused …/_sim/health`): answered before the journal (a
    // probe is not an input), the control gate (it tells nothing but that the server is up) and any rate limit.
    probes: [
      {
        path: '/_sim/health',
        serve: (_request, reply) => void sendJson(reply, 200, { status: 'ok', version: SWAPSIM_VERSION }, { 'cache-control': 'no-store' }),
      },
      // The dashboard's files (fake-provider/ui): no data in them, and a page load is not an input.
      ...uiAssetRoutes(runtime),
      // Its trigger runs (gated like /_sim): a run drives the API over HTTP, and its requests are the journal's.
      ...uiRunRoutes(runtime),
    ],
    outside: (method, pathname) => new ApiError('route_not_found', `no route ${method} ${pathname}; the API lives under /v1`),
    // The request's world and id (ids come from the sim, so a replayed run produces the same ids), drawn once
    // the body is in so that the journal's order is the order in which requests took effect.
    begin: requestJournal(runtime),
    onBug,
    body_timeout_ms: () => runtime.world.profile.request_body_timeout_ms,
    server,
    clientError: clientErrorAnswer(() => runtime.world.profile),
  });
}
