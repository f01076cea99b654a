// Worlds a runtime hosts beside its default one: an organization created with a `clock` option (virtual or
// realtime, like Stripe's test clocks) lives in a world of its own, with its own clock, scheduler, randomness
// (from the server seed and the organization id), fault plan, stores and webhook outbox. `/v1` is routed to it
// by API key, and a control call to it by an `organization_id` scope (query or body). Its clock moves only
// for it: another tenant's advance, settle, trigger or hanging receiver never touches it, nor it theirs.
import type { IncomingHttpHeaders } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { createSimKernel, type ClockMode } from '../sim/index.ts';
import { createWorld, type Organization, type World } from './world.ts';
import type { HostedWorld, Runtime } from './runtime.ts';
import { createOrganization, refusePastMaxOrganizations, type OrganizationInput } from './organizations.ts';
import { RESOURCES } from './resources/index.ts';
import { installRetention } from './retention.ts';
import { dropHeldRequests } from './http/faults.ts';
import { closeDeliveries } from './resources/webhooks/model.ts';
import { bearerToken, orgOfKey } from './http/auth.ts';
import { ApiError } from './contract/errors.ts';

/** What choosing a request's world reads of it: its URL as sent, its headers and its parsed body. */
export interface RoutedRequest {
  url: string;
  headers: IncomingHttpHeaders;
  body?: unknown;
}

export interface OwnClock {
  mode: ClockMode;
  /** Where it starts (default: the server clock's time now, so a replay starts it at the same instant). */
  start_ms?: number;
  /** Realtime only: sim ms per wall ms. */
  speed?: number;
}

/** The organizations of every world, the default one's first. */
export function allOrganizations(runtime: Runtime): Array<{ org: Organization; world: World; own_clock: boolean }> {
  const out = [...runtime.world.orgs.values()].map((org) => ({ org, world: runtime.world, own_clock: false }));
  for (const hosted of runtime.worlds.values())
    for (const org of hosted.world.orgs.values()) out.push({ org, world: hosted.world, own_clock: true });
  return out;
}

/** The organization holding this key in any world, if any. */
export function orgOfKeyAnywhere(runtime: Runtime, key: string): Organization | undefined {
  const world = runtime.keyWorlds.get(key);
  return world ? orgOfKey(world, key) : orgOfKey(runtime.world, key);
}

/**
 * Creates an organization in a world of its own with the given clock. Its id is drawn in the default world (so
 * ids and their order do not depend on which tenants have clocks); its world's seed and secret seed derive
 * from the server's and that id. A realtime clock gets its own driver, journaled like the server's.
 */
export function createOrgWorld(runtime: Runtime, input: OrganizationInput, clock: OwnClock): Organization {
  const server = runtime.world;
  refusePastMaxOrganizations(server, runtime.worlds.size);
  const organization_id = server.newId('org');
  const options = runtime.options;
  const sim = createSimKernel({
    seed: `${server.sim.seed}/${organization_id}`,
    secret_seed: `${server.sim.secret_seed}/${organization_id}`,
    clock: clock.mode,
    speed: clock.speed,
    start_ms: clock.start_ms ?? server.sim.now_ms(),
    journal: server.sim.journal,
  });
  const world = createWorld({ sim, profile: server.profile, endpoint: options.endpoint });
  for (const r of RESOURCES) r.install?.(world);
  installRetention(world);
  const org = createOrganization(world, input, organization_id);
  const hosted: HostedWorld = { world, stop: driveOrgClock(world, organization_id) };
  runtime.worlds.set(organization_id, hosted);
  for (const k of org.api_keys) runtime.keyWorlds.set(k, world);
  return org;
}

/**
 * Starts a hosted world's realtime driver, each movement journaled under its organization, and returns its stop (a
 * no-op on a virtual clock, and in a replay, which moves the clock from the journal's clock lines instead).
 */
export function driveOrgClock(world: World, organization_id: string): () => void {
  const sim = world.sim;
  if (sim.clock.mode !== 'realtime' || sim.journal.mode === 'replay') return () => undefined;
  return sim.scheduler.startRealtime((ms) =>
    sim.journal.write({ kind: 'clock', sim_ms: sim.now_ms(), op: 'advance', ms, organization_id }),
  );
}

/**
 * Drops an organization's own world: its clock driver stops, requests it holds are answered 503, waiting POSTs
 * resolve unsent and running ones are aborted, and its keys stop routing (then 401): nothing of it is sent or
 * scheduled after this returns. False when the organization has no world of its own.
 */
export function dropOrgWorld(runtime: Runtime, organization_id: string): boolean {
  const hosted = runtime.worlds.get(organization_id);
  if (hosted === undefined) return false;
  runtime.worlds.delete(organization_id);
  hosted.stop();
  dropHeldRequests(hosted.world);
  closeDeliveries(hosted.world);
  for (const org of hosted.world.orgs.values())
    for (const k of org.api_keys) if (runtime.keyWorlds.get(k) === hosted.world) runtime.keyWorlds.delete(k);
  return true;
}

/** Every hosted world goes (a reset, a shutdown). */
export function dropOrgWorlds(runtime: Runtime): void {
  for (const id of [...runtime.worlds.keys()]) dropOrgWorld(runtime, id);
}

/** The `organization_id` a control request names (query first, then a top-level string field of its JSON body). */
function scopeOf(req: RoutedRequest): string | undefined {
  const at = req.url.indexOf('?');
  const q = at < 0 ? '' : req.url.slice(at + 1);
  if (q.includes('organization_id=')) {
    const v = parseQuery(q).organization_id;
    if (typeof v === 'string') return v;
  }
  const body = req.body as Record<string, unknown> | undefined;
  return body !== null && typeof body === 'object' && typeof body.organization_id === 'string' ? body.organization_id : undefined;
}

const CLOCK_PATH = /^\/_sim\/clock(\/|$|\?)/;
/** The server's own calls (organizations, reset): they have no organization's world to run in. */
const SERVER_PATH = /^\/_sim\/(organizations|reset)(\/|$|\?)/;

/**
 * The world a request runs in. `/v1`: the world of the organization holding its bearer key (else the default
 * world, which answers 401 for a key nobody holds). `/_sim`: the world of the organization named by
 * `organization_id` (query or body; the body field is taken off, so strict bodies do not refuse it); none
 * keeps today's meaning, the default world. A clock call scoped to an organization that shares the server
 * clock is refused (it would move every such tenant's time), and so is a scope naming no organization.
 */
export function pickWorld(
  runtime: Pick<Runtime, 'world' | 'worlds' | 'keyWorlds'>,
  req: RoutedRequest,
): { world: World; refusal: ApiError | null } {
  const url = req.url;
  if (url.startsWith('/v1')) {
    if (runtime.worlds.size === 0) return { world: runtime.world, refusal: null };
    const key = bearerToken(typeof req.headers.authorization === 'string' ? req.headers.authorization : undefined);
    return { world: (key !== undefined && runtime.keyWorlds.get(key)) || runtime.world, refusal: null };
  }
  return scoped(runtime, req, url);
}

function scoped(runtime: Pick<Runtime, 'world' | 'worlds'>, req: RoutedRequest, url: string): { world: World; refusal: ApiError | null } {
  const id = scopeOf(req);
  if (id === undefined) return { world: runtime.world, refusal: null };
  const body = req.body as Record<string, unknown> | undefined;
  if (body !== null && typeof body === 'object' && 'organization_id' in body) delete body.organization_id;
  if (SERVER_PATH.test(url))
    return {
      world: runtime.world,
      refusal: new ApiError(
        'invalid_parameter',
        "organization_id scopes a call to one organization's world; organizations and reset are the server's calls",
        { param: 'organization_id' },
      ),
    };
  const hosted = runtime.worlds.get(id);
  if (hosted !== undefined) return { world: hosted.world, refusal: null };
  if (!runtime.world.orgs.has(id))
    return { world: runtime.world, refusal: new ApiError('not_found', `no organization ${id}`, { param: 'organization_id' }) };
  if (CLOCK_PATH.test(url)) {
    return {
      world: runtime.world,
      refusal: new ApiError(
        'invalid_parameter',
        `organization ${id} shares the server clock (it was created without a clock option): a scoped clock call would move every such tenant's time`,
        { param: 'organization_id' },
      ),
    };
  }
  return { world: runtime.world, refusal: null };
}
