// Worlds a runtime hosts beside its default one: every organization created at runtime lives in a world of its
// own, with its own scheduler, randomness (from the server seed and the organization id), fault plan, stores and
// webhook outbox (its lanes; its POSTs in flight count against the server's one `webhook_max_in_flight_total`,
// runtime.webhookBound). Its clock is its own when created with a `clock` option (virtual or realtime, like Stripe's
// test clocks), moving only for it; otherwise it *follows* the server clock: every movement of the server's
// (advance, settle, a realtime tick) moves it to the same time, its tasks run on its own scheduler. `/v1` is
// routed to a world by API key, a control call by an `organization_id` scope (query or body), or, unscoped, by
// the account, deposit address, destination or key it names.
import type { IncomingHttpHeaders } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { createSimKernel, type ClockMode } from '../sim/index.ts';
import { createWorld, type Organization, type World } from './world.ts';
import type { HostedWorld, Runtime } from './runtime.ts';
import { createOrganization, refusePastMaxOrganizations, type OrganizationInput } from './organizations.ts';
import { RESOURCES } from './resources/index.ts';
import { installRetention } from './retention.ts';
import { dropHeldRequests } from './http/faults.ts';
import { closeDeliveries, shareInFlightBound } from './resources/webhooks/model.ts';
import { bearerToken, orgOfKey } from './http/auth.ts';
import { ApiError } from './contract/errors.ts';
import { accountStore } from './resources/accounts/index.ts';
import { depositAddressStore } from './resources/deposits/index.ts';
import { getDestinationRecord } from './resources/destinations/index.ts';
import type { Scheduler } from '../sim/index.ts';
import { inheritServerWide } from './server-wide.ts';

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
    for (const org of hosted.world.orgs.values()) out.push({ org, world: hosted.world, own_clock: !hosted.follows });
  return out;
}

/** The world an organization lives in: its own, or the server's (a seed organization, `org_worlds: 'shared'`). */
export function worldOf(runtime: Pick<Runtime, 'world' | 'worlds'>, organization_id: string): World {
  return runtime.worlds.get(organization_id)?.world ?? runtime.world;
}

/** The organization holding this key in any world, if any. */
export function orgOfKeyAnywhere(runtime: Runtime, key: string): Organization | undefined {
  const world = runtime.keyWorlds.get(key);
  return world ? orgOfKey(world, key) : orgOfKey(runtime.world, key);
}

/**
 * Creates an organization in a world of its own, with the given clock or (`null`) one that follows the server's.
 * Its id is drawn in the default world (so ids and their order do not depend on which tenants have clocks); its
 * world's seed and secret seed derive from the server's and that id. A realtime clock of its own gets its own
 * driver, journaled like the server's; a follower has none (the server's movements move it, `followServer`), and
 * the server's fault rules hold in it too (unscoped `POST /_sim/faults`, as when tenants shared one world).
 */
export function createOrgWorld(runtime: Runtime, input: OrganizationInput, clock: OwnClock | null): Organization {
  const server = runtime.world;
  refusePastMaxOrganizations(server, runtime.worlds.size);
  const organization_id = server.newId('org');
  const options = runtime.options;
  const follows = clock === null;
  const sim = createSimKernel({
    seed: `${server.sim.seed}/${organization_id}`,
    secret_seed: `${server.sim.secret_seed}/${organization_id}`,
    // A follower shows the server clock's mode (its webhooks then behave as the server's would: on a realtime
    // clock an attempt never holds the clock), though only the server's movements move it.
    clock: follows ? server.sim.clock.mode : clock.mode,
    speed: follows ? server.sim.clock.speed : clock.speed,
    start_ms: follows ? server.sim.now_ms() : (clock.start_ms ?? server.sim.now_ms()),
    journal: server.sim.journal,
    fault_parent: follows ? () => runtime.world.sim.faults : undefined,
    // The server's rules' `times` counts are shared with it: how it consumes them is journaled under its id.
    fault_world: follows ? organization_id : undefined,
  });
  const world = createWorld({ sim, profile: server.profile, endpoint: options.endpoint });
  // Its webhook POSTs in flight count against the server's one bound, with every other world's.
  shareInFlightBound(world, runtime.webhookBound);
  for (const r of RESOURCES) r.install?.(world);
  installRetention(world);
  const org = createOrganization(world, input, organization_id);
  if (follows) inheritServerWide(runtime, world);
  const hosted: HostedWorld = { world, stop: driveOrgClock(world, organization_id, follows), follows };
  runtime.worlds.set(organization_id, hosted);
  for (const k of org.api_keys) runtime.keyWorlds.set(k, world);
  return org;
}

type RunReport = Awaited<ReturnType<Scheduler['advance']>>;

function merged(reports: RunReport[]): RunReport {
  const out: RunReport = { ran: 0, kinds: {}, truncated: false };
  for (const r of reports) {
    out.ran += r.ran;
    out.truncated ||= r.truncated;
    for (const [k, n] of Object.entries(r.kinds)) out.kinds[k] = (out.kinds[k] ?? 0) + n;
  }
  return out;
}

function followers(runtime: Pick<Runtime, 'worlds'>): HostedWorld[] {
  const out: HostedWorld[] = [];
  for (const hosted of runtime.worlds.values()) if (hosted.follows) out.push(hosted);
  return out;
}

/** Moves a follower to `target_ms` (never back), running what falls due on its own scheduler. */
function follow(hosted: HostedWorld, target_ms: number): Promise<RunReport> {
  const scheduler = hosted.world.sim.scheduler;
  return scheduler.advance(Math.max(0, target_ms - hosted.world.sim.now_ms()));
}

/**
 * `POST /_sim/clock/advance` unscoped: the server's world first (it keeps the demo organization and the
 * `--api-key` ones), then every follower to the server's new time, each on its own scheduler at once, so one
 * tenant's slow receiver holds the answer but never another tenant's deliveries. What ran is summed.
 */
export async function advanceServer(runtime: Runtime, ms: number): Promise<RunReport> {
  const report = await runtime.world.sim.scheduler.advance(ms);
  if (runtime.worlds.size === 0) return report;
  const target_ms = runtime.world.sim.now_ms();
  return merged([report, ...(await Promise.all(followers(runtime).map((h) => follow(h, target_ms))))]);
}

/**
 * `POST /_sim/clock/settle` unscoped: every world shared the server clock before, so it settles until no world
 * has work left (or the bound): the server's world, then the followers at once, each bounded by the same
 * instant; then all go to the latest time any of them reached, so the clocks agree again.
 */
export async function settleServer(runtime: Runtime, max_ms: number): Promise<{ report: RunReport; pending: number }> {
  const server = runtime.world.sim;
  const limit_ms = server.now_ms() + Math.max(0, max_ms);
  const first = await server.scheduler.settle(max_ms);
  const hosted = followers(runtime);
  if (hosted.length === 0) return { report: first, pending: server.scheduler.pending() };
  const rest = await Promise.all(hosted.map((h) => h.world.sim.scheduler.settle(Math.max(0, limit_ms - h.world.sim.now_ms()))));
  const end_ms = Math.max(server.now_ms(), ...hosted.map((h) => h.world.sim.now_ms()));
  const catchUp = await Promise.all([
    server.scheduler.advance(Math.max(0, end_ms - server.now_ms())),
    ...hosted.map((h) => follow(h, end_ms)),
  ]);
  let pending = server.scheduler.pending();
  for (const h of hosted) pending += h.world.sim.scheduler.pending();
  return { report: merged([first, ...rest, ...catchUp]), pending };
}

/**
 * A realtime server tick (or its journal line in a replay): every follower not still running its last move goes
 * to the server's time. A follower busy with a slow task catches up at a later tick (moves are to a time, not by
 * an amount), so a tenant's slow work never holds the server's clock or another tenant's.
 */
export function followServer(runtime: Pick<Runtime, 'world' | 'worlds'>, target_ms: number): Promise<unknown> {
  if (runtime.worlds.size === 0) return Promise.resolve();
  const moves: Array<Promise<unknown>> = [];
  for (const hosted of followers(runtime)) {
    if (hosted.moving) continue;
    hosted.moving = true;
    moves.push(
      follow(hosted, target_ms)
        .catch(() => undefined)
        .finally(() => {
          hosted.moving = false;
        }),
    );
  }
  return Promise.all(moves);
}

/**
 * Starts a hosted world's realtime driver, each movement journaled under its organization, and returns its stop (a
 * no-op on a virtual clock, and in a replay, which moves the clock from the journal's clock lines instead).
 */
export function driveOrgClock(world: World, organization_id: string, follows: boolean): () => void {
  const sim = world.sim;
  if (follows || sim.clock.mode !== 'realtime' || sim.journal.mode === 'replay') return () => undefined;
  return sim.scheduler.startRealtime((ms) =>
    sim.journal.write({ kind: 'clock', sim_ms: sim.now_ms(), op: 'advance', ms, organization_id }),
  );
}

/**
 * Drops an organization's world: its clock driver stops, requests it holds are answered 503, waiting POSTs
 * resolve unsent and running ones are aborted (their slots of the server bound free at once), and its keys stop routing (then 401): nothing of it is sent or
 * scheduled after this returns. False when the organization has no world of its own (it is in the server's).
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

/** A query parameter of a URL, if present (most control calls carry none: no parse then). */
function queryParam(url: string, name: string): string | undefined {
  const at = url.indexOf('?');
  if (at < 0 || !url.includes(`${name}=`, at)) return undefined;
  const v = parseQuery(url.slice(at + 1))[name];
  return typeof v === 'string' ? v : undefined;
}

/** The `organization_id` a control request names (query first, then a top-level string field of its JSON body). */
function scopeOf(req: RoutedRequest): string | undefined {
  const q = queryParam(req.url, 'organization_id');
  if (q !== undefined) return q;
  const body = req.body as Record<string, unknown> | undefined;
  return body !== null && typeof body === 'object' && typeof body.organization_id === 'string' ? body.organization_id : undefined;
}

const CLOCK_PATH = /^\/_sim\/clock(\/|$|\?)/;
/** The server's own calls (organizations, reset): they have no organization's world to run in. */
const SERVER_PATH = /^\/_sim\/(organizations|reset)(\/|$|\?)/;
const DESTINATION_PATH = /^\/_sim\/destinations\/([^/?]+)\//;

/**
 * The world a request runs in. `/v1`: the world of the organization holding its bearer key (else the default
 * world, which answers 401 for a key nobody holds; a keyless `/v1/public/` call, the world of the account it names). `/_sim`: the world of the organization named by
 * `organization_id` (query or body; the body field is taken off, so strict bodies do not refuse it). Unscoped, a
 * call naming an account, deposit address, destination or API key runs in the world holding it (as when every
 * tenant without a clock of its own shared the server's world); any other keeps today's meaning, the server's
 * world (whose clock moves the followers, and whose fault rules hold in them). A clock call scoped to an
 * organization that follows the server clock is refused (it would leave the server's time), and so is a scope
 * naming no organization.
 */
export function pickWorld(
  runtime: Pick<Runtime, 'world' | 'worlds' | 'keyWorlds'>,
  req: RoutedRequest,
): { world: World; refusal: ApiError | null } {
  const url = req.url;
  if (url.startsWith('/v1')) {
    if (runtime.worlds.size === 0) return { world: runtime.world, refusal: null };
    const key = bearerToken(typeof req.headers.authorization === 'string' ? req.headers.authorization : undefined);
    const keyed = key !== undefined ? runtime.keyWorlds.get(key) : undefined;
    if (keyed !== undefined) return { world: keyed, refusal: null };
    // The end user's public calls carry no key: they name their account, whose world answers.
    return { world: url.startsWith('/v1/public/') ? holderOf(runtime, req, url) : runtime.world, refusal: null };
  }
  return scoped(runtime, req, url);
}

function scoped(
  runtime: Pick<Runtime, 'world' | 'worlds' | 'keyWorlds'>,
  req: RoutedRequest,
  url: string,
): { world: World; refusal: ApiError | null } {
  const id = scopeOf(req);
  if (id === undefined) return { world: runtime.worlds.size === 0 ? runtime.world : holderOf(runtime, req, url), refusal: null };
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
  if (hosted !== undefined && !(hosted.follows && CLOCK_PATH.test(url))) return { world: hosted.world, refusal: null };
  if (hosted === undefined && !runtime.world.orgs.has(id))
    return { world: runtime.world, refusal: new ApiError('not_found', `no organization ${id}`, { param: 'organization_id' }) };
  if (CLOCK_PATH.test(url)) {
    return {
      world: runtime.world,
      refusal: new ApiError(
        'invalid_parameter',
        `organization ${id} follows the server clock (it was created without a clock option): move the server's (unscoped), which moves every such tenant's time`,
        { param: 'organization_id' },
      ),
    };
  }
  return { world: runtime.world, refusal: null };
}

/**
 * The world holding what an unscoped control call names: an `account_id` or a `deposit_address_id` (query or body), a destination (path) or an `api_key` (query). The server's world when none is named or none holds it
 * (it then answers as it always did). One map lookup per hosted world: control calls are not the hot path.
 */
function holderOf(runtime: Pick<Runtime, 'world' | 'worlds' | 'keyWorlds'>, req: RoutedRequest, url: string): World {
  const body = req.body !== null && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
  const api_key = queryParam(url, 'api_key');
  if (api_key !== undefined) return runtime.keyWorlds.get(api_key) ?? runtime.world;
  const account_id = queryParam(url, 'account_id') ?? (typeof body.account_id === 'string' ? body.account_id : undefined);
  const address_id =
    queryParam(url, 'deposit_address_id') ?? (typeof body.deposit_address_id === 'string' ? body.deposit_address_id : undefined);
  const destination_id = DESTINATION_PATH.exec(url)?.[1];
  if (account_id === undefined && address_id === undefined && destination_id === undefined) return runtime.world;
  const holds = (w: World): boolean =>
    (account_id !== undefined && accountStore(w).byId.get(account_id) !== undefined) ||
    (address_id !== undefined && depositAddressStore(w).byId.get(address_id) !== undefined) ||
    (destination_id !== undefined && getDestinationRecord(w, destination_id) !== undefined);
  if (holds(runtime.world)) return runtime.world;
  for (const hosted of runtime.worlds.values()) if (holds(hosted.world)) return hosted.world;
  return runtime.world;
}
