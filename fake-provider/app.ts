// The runtime and the app: one runtime holds the current world (reset swaps it), the /v1 API built from
// every resource's declared routes (served by http/front.ts, the rest by express), the control plane under
// /_sim, and the OpenAPI document.
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Request, type Response, type NextFunction } from 'express';
import { createSim, randomSecretSeed, type SimOptions } from '../sim/index.ts';
import { DEFAULT_PROFILE, type Profile } from './profile.ts';
import { createWorld, type World } from './world.ts';
import { ApiError } from './http/errors.ts';
import { errorMiddleware, handlerFor, jsonBody, renderError, serveRoute, type AnyRoute, type Locals } from './http/api.ts';
import { controlDocument, v1Document } from './http/openapi.ts';
import { routeTable } from './http/dispatch.ts';
import { frontDoor } from './http/front.ts';
import { createRateLimiter, type RateLimiter } from './http/rate-limits.ts';
import { dropHeldRequests } from './http/faults.ts';
import { RESOURCES } from './resources/index.ts';
import { installRetention } from './retention.ts';
import { controlRoutes } from './control/routes.ts';
import { controlGate } from './control/gate.ts';
import { createOrganization, type OrganizationInput } from './organizations.ts';
import { requestJournal, runtimeJournal, SWAPSIM_VERSION, worldStart_ms } from './replay/record.ts';
import type { SelfEndpoint } from './resources/webhooks/destinations.ts';

export interface RuntimeOptions extends SimOptions {
  profile?: Profile;
  /** Organizations created in every fresh world (the demo org of `npm start`, the keys given by --api-key). */
  seed_orgs?: OrganizationInput[];
  control_token?: string;
  /** Allow control calls from any address without a token (tests of the gate itself turn this off). */
  control_open?: boolean;
  /** Where the server listens: server.ts fills it in; every world of the runtime reads it (webhook destinations). */
  endpoint?: SelfEndpoint;
}

export interface Runtime {
  world: World;
  readonly options: RuntimeOptions;
  readonly limiter: RateLimiter;
  /** Unexpected errors (each one is a swapsim bug); reported by /_sim/invariants. */
  readonly bugs: Array<{ request_id: string; message: string }>;
  reset(): World;
  stopRealtime: () => void;
}

export function newWorld(options: RuntimeOptions): World {
  const sim = createSim({ ...options, start_ms: worldStart_ms(options) });
  const world = createWorld({ sim, profile: options.profile ?? DEFAULT_PROFILE, endpoint: options.endpoint });
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
  const runtime: Runtime = {
    world: newWorld(options),
    options,
    limiter: createRateLimiter({ retry_after: () => runtime.world.profile.rate_limit_retry_after, algorithm: () => runtime.world.profile.rate_limit_algorithm }),
    bugs: [],
    stopRealtime: () => undefined,
    reset() {
      runtime.stopRealtime();
      dropHeldRequests(runtime.world);
      runtime.world = newWorld(options);
      startDriver();
      return runtime.world;
    },
  };
  // In realtime mode the driver moves the clock; each movement is an input, so it is journaled.
  const startDriver = (): void => {
    const sim = runtime.world.sim;
    // A replay moves the clock from the journal's clock lines instead.
    if (sim.clock.mode !== 'realtime' || sim.journal.mode === 'replay') return;
    runtime.stopRealtime = sim.scheduler.startRealtime((ms) => sim.journal.write({ kind: 'clock', sim_ms: sim.now_ms(), op: 'advance', ms }));
  };
  startDriver();
  return runtime;
}

export function apiRoutes(): AnyRoute[] {
  return RESOURCES.flatMap((r) => r.routes ?? []);
}

/** The OpenAPI 3.1 document of /v1, generated from the same zod schemas that validate requests. */
export function openapiDocument(): unknown {
  return v1Document(apiRoutes());
}

function mount(router: express.Router, routes: AnyRoute[], limiter: RateLimiter): void {
  for (const route of routes) router[route.method](route.path, handlerFor(route, limiter));
}

/** The server's request listener: declared /v1 routes through http/front.ts, everything else through express. */
export function createApp(runtime: Runtime): (req: IncomingMessage, res: ServerResponse) => void {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  // Readiness for scripts and CI (`curl --retry-connrefused …/_sim/health`): answered before the journal (a
  // probe is not an input), the control gate (it tells nothing but that the server is up) and any rate limit.
  app.get('/_sim/health', (_req: Request, res: Response) => {
    res.set('cache-control', 'no-store').json({ status: 'ok', version: SWAPSIM_VERSION });
  });

  // Bodies are read first; then one small middleware gives every request its world and request id (ids
  // come from the sim, so a replayed run produces the same ids) and journals it when a journal is kept.
  // Drawing the id once the body is in makes the journal's order the order in which requests took effect.
  // front.ts runs the same steps for the declared /v1 routes.
  const journal = requestJournal(runtime);
  app.use(jsonBody, ...journal.middleware);

  const onBug = (err: unknown, request_id: string): void => {
    runtime.bugs.push({ request_id, message: err instanceof Error ? err.message : String(err) });
    console.error(`[swapsim] internal error on ${request_id}:`, err instanceof Error ? err.stack : err);
  };
  const fail = errorMiddleware(onBug);

  const v1 = express.Router();
  let openapi: unknown;
  v1.get('/openapi.json', (_req, res) => {
    openapi ??= openapiDocument();
    res.json(openapi);
  });
  mount(v1, apiRoutes(), runtime.limiter);
  v1.use((req: Request, _res: Response, next: NextFunction) => next(new ApiError('route_not_found', `no route ${req.method} /v1${req.path}`)));
  app.use('/v1', v1);

  const control = express.Router();
  control.use(controlGate(runtime));
  const controlPlane = [...controlRoutes(runtime), ...RESOURCES.flatMap((r) => r.control ?? [])];
  let controlOpenapi: unknown;
  control.get('/openapi.json', (_req, res) => {
    controlOpenapi ??= controlDocument(controlPlane);
    res.json(controlOpenapi);
  });
  mount(control, controlPlane, runtime.limiter);
  control.use((req: Request, _res: Response, next: NextFunction) => next(new ApiError('route_not_found', `no control route ${req.method} /_sim${req.path}`)));
  app.use('/_sim', control);

  app.use((req: Request, res: Response) => {
    const { world, request_id } = res.locals as Locals;
    renderError(res, new ApiError('route_not_found', `no route ${req.method} ${req.path}; the API lives under /v1`), world, request_id);
  });
  app.use(fail);

  // The declared /v1 routes in a table matched by method + first segment (express's router walked ~45
  // layers in order); the express /v1 router above serves the same routes and stays the reference.
  const table = routeTable('/v1', apiRoutes().map((route) => ({ route, serve: serveRoute(route, runtime.limiter) })));
  return frontDoor({ app, table, begin: journal.begin, fail });
}
