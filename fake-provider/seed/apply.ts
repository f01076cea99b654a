// Applying a seed (schema.ts) to a world through the same declared routes /v1 and /_sim serve: every body is
// parsed with its route's own schema before anything is done (a bad one changes nothing), then each handler
// runs as its request would. Wallets and deposits need sim time: the clock is advanced until the balances
// are spendable (their deposits verified); pending deposits land after that and are left in flight.
import type { World, Organization } from '../world.ts';
import type { AnyRoute, ApiContext, Reply } from '../contract/route.ts';
import { ApiError } from '../contract/errors.ts';
import { parseWith } from '../contract/validate.ts';
import { createOrganization } from '../organizations.ts';
import type { Runtime } from '../runtime.ts';
import { advanceServer, createOrgWorld, orgOfKeyAnywhere, worldOf } from '../worlds.ts';
import { RESOURCES } from '../resources/index.ts';
import { requireAccount, walletReady, WALLET_CHAINS } from '../resources/accounts/index.ts';
import type { Seed } from './schema.ts';

type Holding = Seed['organizations'][number]['accounts'][number]['balances'][number];

/** How far the clock may be moved to take balances to finality (a BTC deposit needs about an hour). */
const FINALITY_BOUND_MS = 48 * 3_600_000;

interface Call {
  route: AnyRoute;
  input: { body?: unknown; params?: unknown; query?: unknown };
}

function routeOf(method: string, path: string): AnyRoute {
  for (const r of RESOURCES)
    for (const route of [...(r.routes ?? []), ...(r.control ?? [])])
      if (route.method === method && route.path === path) return route as AnyRoute;
  throw new Error(`seed: no route ${method} ${path}`);
}

/** Parses a call's input with its route's schemas; a failure names the seed item it came from. */
function prepare(method: string, path: string, raw: { body?: unknown; params?: unknown }, where: string): Call {
  const route = routeOf(method, path);
  try {
    return {
      route,
      input: {
        body: route.body ? parseWith(route.body, raw.body ?? {}, 'body') : undefined,
        params: route.params ? parseWith(route.params, raw.params ?? {}, 'path') : undefined,
        query: undefined,
      },
    };
  } catch (e) {
    if (e instanceof ApiError) throw new ApiError(e.code, `${where}: ${e.message}`, { param: e.param ? `${where}.${e.param}` : where });
    throw e;
  }
}

async function run(call: Call, params: unknown, world: World, org: Organization | null, request_id: string): Promise<Record<string, any>> {
  const input = { ...call.input, ...(params === undefined ? {} : { params }) };
  const reply: Reply = org
    ? await world.sim.scheduler.runAs(org.organization_id, () =>
        call.route.handler(input, { world, org, api_key: org.api_keys[0], request_id, resources: RESOURCES } satisfies ApiContext),
      )
    : await call.route.handler(input, { world, request_id, ip: '127.0.0.1' });
  return reply.body ?? {};
}

export interface SeedResult {
  organizations: Array<{
    organization_id: string;
    api_key: string;
    created: boolean;
    webhook: { webhook_id: string; secret: string } | null;
    accounts: Array<{ account_id: string; label: string; deposit_ids: string[]; pending_deposit_ids: string[] }>;
  }>;
  clock: { now_ms: number; advanced_ms: number };
}

/** Checks every body before the first effect: the parsed calls, by organization and account. */
function prepareAll(seed: Seed) {
  return seed.organizations.map((o, i) => {
    const at = `organizations.${i}`;
    return {
      seed: o,
      webhook: o.webhook ? prepare('post', '/webhooks', { body: { url: o.webhook.url } }, `${at}.webhook`) : null,
      accounts: o.accounts.map((a, j) => {
        const where = `${at}.accounts.${j}`;
        const holdings = (list: Holding[], kind: string) =>
          list.map((h, k) => ({
            h,
            address: prepare(
              'post',
              '/accounts/:account_id/deposit-addresses',
              { body: { asset_key: h.asset_key }, params: { account_id: 'acct_placeholder' } },
              `${where}.${kind}.${k}`,
            ),
          }));
        return {
          seed: a,
          create: prepare(
            'post',
            '/accounts',
            { body: { label: a.label, ...(a.external_id ? { external_id: a.external_id } : {}) } },
            where,
          ),
          email: a.email
            ? prepare(
                'patch',
                '/accounts/:account_id',
                { body: { email: a.email }, params: { account_id: 'acct_placeholder' } },
                `${where}.email`,
              )
            : null,
          balances: holdings(a.balances, 'balances'),
          pending: holdings(a.pending_deposits, 'pending_deposits'),
        };
      }),
    };
  });
}

/**
 * Applies seed data. An organization it creates gets a world of its own whose clock follows the server's, as one
 * created by `POST /_sim/organizations` without a clock does (worlds.ts), unless the server keeps its tenants in
 * its own world (`org_worlds: 'shared'`); one it names by an existing key stays where it lives. The clock moves
 * (wallets, finality) are the server clock's, so every follower moves with it.
 */
export async function applySeed(runtime: Runtime, seed: Seed, request_id: string): Promise<SeedResult> {
  const world = runtime.world;
  const plan = prepareAll(seed);
  const land = routeOf('post', '/deposits');
  const listDeposits = routeOf('get', '/deposits');
  const start_ms = world.sim.now_ms();
  const made = plan.map((o) => {
    const existing = orgOfKeyAnywhere(runtime, o.seed.api_key);
    const input = {
      api_keys: [o.seed.api_key],
      recovery_enabled: o.seed.recovery_enabled,
      partner_screening: o.seed.partner_screening,
      rate_limits: o.seed.rate_limits,
    };
    const org =
      existing ?? (runtime.options.org_worlds === 'shared' ? createOrganization(world, input) : createOrgWorld(runtime, input, null));
    return {
      o,
      org,
      world: worldOf(runtime, org.organization_id),
      created: !existing,
      webhook: null as SeedResult['organizations'][number]['webhook'],
      accounts: [] as Array<{ account_id: string; label: string; deposit_ids: string[]; pending_deposit_ids: string[] }>,
    };
  });
  for (const m of made) {
    if (m.o.webhook) {
      const hook = (await run(m.o.webhook, undefined, m.world, m.org, request_id)).webhook;
      m.webhook = { webhook_id: hook.webhook_id, secret: hook.secret };
    }
    for (const a of m.o.accounts) {
      const account_id = (await run(a.create, undefined, m.world, m.org, request_id)).account.account_id as string;
      if (a.email) await run(a.email, { account_id }, m.world, m.org, request_id);
      m.accounts.push({ account_id, label: a.seed.label, deposit_ids: [], pending_deposit_ids: [] });
    }
  }
  // Deposit addresses need the account's wallets, derived a few seconds after it is created.
  const landAll = async (pick: 'balances' | 'pending', ids: 'deposit_ids' | 'pending_deposit_ids'): Promise<void> => {
    for (const m of made) {
      for (const [j, a] of m.o.accounts.entries()) {
        const account_id = m.accounts[j].account_id;
        for (const { h, address } of a[pick]) {
          const deposit_address_id = (await run(address, { account_id }, m.world, m.org, request_id)).deposit_address.deposit_address_id;
          const landed = await run(
            { route: land, input: { body: parseWith(land.body!, { deposit_address_id, atoms: h.atoms }, 'body') } },
            undefined,
            m.world,
            null,
            request_id,
          );
          m.accounts[j][ids].push(landed.deposit.deposit_id);
        }
      }
    }
  };
  const deposits = async (): Promise<Map<string, string>> => {
    const out = new Map<string, string>();
    for (const w of new Set(made.map((m) => m.world))) {
      const all = (await run({ route: listDeposits, input: { query: {} } }, undefined, w, null, request_id)).deposits as Array<{
        deposit_id: string;
        status: string;
      }>;
      for (const d of all) out.set(d.deposit_id, d.status);
    }
    return out;
  };
  const needsWallets = made.some((m) => m.o.accounts.some((a) => a.balances.length + a.pending.length > 0));
  if (needsWallets) await walletsReady(runtime, made);
  await landAll('balances', 'deposit_ids');
  const wanted = made.flatMap((m) => m.accounts.flatMap((a) => a.deposit_ids));
  let statuses = await deposits();
  for (
    let moved = 0, step = 1_000;
    wanted.some((id) => statuses.get(id) === 'pending') && moved < FINALITY_BOUND_MS;
    moved += step, step = Math.min(step * 2, 3_600_000)
  ) {
    await advanceServer(runtime, step);
    statuses = await deposits();
  }
  const stuck = wanted.filter((id) => statuses.get(id) !== 'verified');
  if (stuck.length > 0)
    throw new ApiError(
      'invalid_parameter',
      `seed: ${stuck.length} balance deposit(s) did not verify (${stuck.map((id) => `${id}: ${statuses.get(id) ?? 'unknown'}`).join(', ')}); is a screening flag or fault rule in place?`,
      { param: 'organizations' },
    );
  await landAll('pending', 'pending_deposit_ids');
  return {
    organizations: made.map((m) => ({
      organization_id: m.org.organization_id,
      api_key: m.o.seed.api_key,
      created: m.created,
      webhook: m.webhook,
      accounts: m.accounts,
    })),
    clock: { now_ms: world.sim.now_ms(), advanced_ms: world.sim.now_ms() - start_ms },
  };
}

/** Moves the clock (a second at a time, a minute at most) until every seeded account has all its wallets. */
async function walletsReady(
  runtime: Runtime,
  made: Array<{ org: Organization; world: World; accounts: Array<{ account_id: string }> }>,
): Promise<void> {
  const ready = (): boolean =>
    made.every((m) =>
      m.accounts.every((a) => WALLET_CHAINS.every((c) => walletReady(requireAccount(m.world, m.org.organization_id, a.account_id), c))),
    );
  for (let moved = 0; !ready() && moved < 60_000; moved += 1_000) await advanceServer(runtime, 1_000);
}
