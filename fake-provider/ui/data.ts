// The dashboard's read-only control routes (GET /_sim/ui/...): what the page needs that no other endpoint gives
// in one call: accounts with balances and credit counts, an account's credits with their sources and holders,
// every lifecycle's entities by organization and kind, events with their webhook deliveries and every attempt,
// and a change cursor to poll. Paged newest first; they read the world through the resources' exports only.
import { z } from 'zod';
import type { Runtime } from '../runtime.ts';
import type { World } from '../world.ts';
import { defineRoute } from '../contract/route.ts';
import { ApiError } from '../contract/errors.ts';
import { cursorQuery, idString, limitQuery } from '../contract/validate.ts';
import { accountStatus, accountStore } from '../resources/accounts/index.ts';
import { balancesOf, creditHolder, creditSnapshot, creditStatus, creditsOf } from '../resources/credits/index.ts';
import { depositStatus, depositStore } from '../resources/deposits/index.ts';
import { tradeStatus, tradeStore } from '../resources/trades/index.ts';
import { zapStatus, zapStore } from '../resources/zaps/index.ts';
import { cancelStatus, cancelStore } from '../resources/cancels/index.ts';
import { recoveryStatus, recoveryStore } from '../resources/recoveries/index.ts';
import { rfqStatus, rfqStore } from '../resources/rfqs/index.ts';
import { destinationStatus, destinationStore } from '../resources/destinations/index.ts';
import { deliveryStatus, webhookStore, type Delivery } from '../resources/webhooks/index.ts';

const tag = 'Control';
const DEFAULT_LIMIT = 25;

/** The lifecycles the dashboard lists, in the order its menu shows them. */
const ENTITY_KINDS = ['trade', 'zap', 'rfq', 'cancel', 'recovery', 'deposit', 'destination'] as const;
type EntityKind = (typeof ENTITY_KINDS)[number];

/** One row of an entity list: enough to find it again and to open its timeline. */
interface EntityRow {
  kind: EntityKind;
  id: string;
  account_id: string | null;
  status: string;
  created_at_ms: number;
}

/** One kind's entities of an organization, oldest first, and how to make one into a row (only a page's are made). */
interface Listed<T> {
  items: T[];
  row(t: T): EntityRow;
}

function listed<T>(items: T[], row: (t: T) => EntityRow): Listed<unknown> {
  return { items, row } as Listed<unknown>;
}

/** Every entity of one kind owned by `org_id`, oldest first (each store keeps creation order). */
function entitiesOf(world: World, kind: EntityKind, org_id: string): Listed<unknown> {
  const row = (id: string, account_id: string | null, status: string, created_at_ms: number): EntityRow => ({
    kind,
    id,
    account_id,
    status,
    created_at_ms,
  });
  switch (kind) {
    case 'trade':
      return listed(
        tradeStore(world).list.filter((t) => t.org.organization_id === org_id),
        (t) => row(t.trade_id, t.quote.rfq.account_id, tradeStatus(world, t), t.created_at_ms),
      );
    case 'zap':
      return listed(
        zapStore(world).list.filter((z) => z.org_id === org_id),
        (z) => row(z.zap_id, z.account_id, zapStatus(world, z), z.created_at_ms),
      );
    case 'rfq':
      return listed(
        [...rfqStore(world).rfqs.values()].filter((r) => r.org_id === org_id).sort((a, b) => a.seq - b.seq),
        (r) => row(r.rfq_id, r.account_id, rfqStatus(r), r.created_at_ms),
      );
    case 'cancel':
      return listed(
        cancelStore(world).list.filter((c) => c.org_id === org_id),
        (c) => row(c.cancel_id, c.account_id, cancelStatus(c), c.created_at_ms),
      );
    case 'recovery':
      return listed(
        recoveryStore(world).list.filter((r) => r.org_id === org_id),
        (r) => row(r.recovery_id, r.account_id, recoveryStatus(r), r.created_at_ms),
      );
    case 'deposit':
      return listed(
        depositStore(world).list.filter((d) => d.address.org_id === org_id),
        (d) => row(d.deposit_id, d.address.account_id, depositStatus(d), d.landed_at_ms),
      );
    case 'destination':
      return listed(
        destinationStore(world).list.filter((d) => d.org_id === org_id),
        (d) => row(d.destination_id, d.account_id, destinationStatus(d), d.created_at_ms),
      );
  }
}

/**
 * Newest first over an oldest-first array: the cursor is the position (from the start) the next page ends
 * before, so items appended between pages never shift or repeat what a page shows.
 */
function pageBackwards<T>(
  all: readonly T[],
  limit: number,
  cursor: string | undefined,
): { items: T[]; has_more: boolean; next_cursor: string | null } {
  const p = pagePositions(all.length, limit, cursor);
  return { items: p.positions.map((i) => all[i]), has_more: p.has_more, next_cursor: p.next_cursor };
}

/** The positions of one page, newest first, over a list of `length` (events are read only at these). */
function pagePositions(
  length: number,
  limit: number,
  cursor: string | undefined,
): { positions: number[]; has_more: boolean; next_cursor: string | null } {
  let end = length;
  if (cursor !== undefined) {
    const m = /^p([0-9]{1,9})$/.exec(cursor);
    if (!m || Number(m[1]) > length)
      throw new ApiError('invalid_parameter', 'cursor is not a cursor this list returned', { param: 'cursor' });
    end = Number(m[1]);
  }
  const start = Math.max(0, end - limit);
  const positions: number[] = [];
  for (let i = end - 1; i >= start; i--) positions.push(i);
  return { positions, has_more: start > 0, next_cursor: start > 0 ? `p${start}` : null };
}

function requireOrg(world: World, organization_id: string): void {
  if (!world.orgs.has(organization_id)) throw new ApiError('not_found', `no organization ${organization_id}`, { param: 'organization_id' });
}

function requireAccountRecord(world: World, account_id: string) {
  const account = accountStore(world).byId.get(account_id);
  if (account === undefined) throw new ApiError('not_found', `no account ${account_id}`, { param: 'account_id' });
  return account;
}

/** An account's credits counted by what the dashboard shows: open (free), locked (open, held by an operation), consumed. */
function creditCounts(world: World, account_id: string): { open: number; locked: number; consumed: number } {
  const counts = { open: 0, locked: 0, consumed: 0 };
  for (const c of creditsOf(world, account_id)) {
    if (creditStatus(c) === 'consumed') counts.consumed++;
    else if (creditHolder(c) !== null) counts.locked++;
    else counts.open++;
  }
  return counts;
}

function serializeDelivery(d: Delivery) {
  return {
    delivery_id: d.delivery_id,
    webhook_id: d.webhook_id,
    status: deliveryStatus(d),
    replay: d.replay,
    attempts: d.attempt_log.map((a) => ({
      at_ms: a.at_ms,
      http_status: a.http_status,
      copies: a.copies,
      effects: [...a.effects],
      state: a.state,
    })),
  };
}

/** A number that changes whenever anything the dashboard shows may have changed: the page polls it. */
/** `hosted`: how many organizations have worlds of their own (one created or deleted changes the organization list). */
function changeCursor(world: World, hosted: number): string {
  let attempts = 0;
  for (const d of webhookStore(world).deliveryList) attempts += d.attempt_log.length;
  // Not the clock: the header shows it, and a realtime clock would redraw the view every poll for nothing.
  const parts = [
    world.events.all.length,
    world.transitions.length,
    attempts,
    world.sim.faults.list().length,
    world.sim.faults.firings().length,
    world.orgs.size,
    hosted,
  ];
  return parts.join('.');
}

const orgQuery = { organization_id: idString, limit: limitQuery, cursor: cursorQuery };
const balance = z.object({ asset_key: z.string(), available_atoms: z.string(), pending_atoms: z.string() });
const counts = z.object({ open: z.number().int(), locked: z.number().int(), consumed: z.number().int() });
const page = { has_more: z.boolean(), next_cursor: z.string().nullable(), total: z.number().int() };
const attempt = z.object({
  at_ms: z.number().int(),
  http_status: z.number().int(),
  copies: z.number().int(),
  effects: z.array(z.string()),
  state: z.string(),
});
const delivery = z.object({
  delivery_id: z.string(),
  webhook_id: z.string(),
  status: z.string(),
  replay: z.boolean(),
  attempts: z.array(attempt),
});

const uiReplies = {
  pulse: z.object({
    request_id: z.string(),
    cursor: z.string(),
    now_ms: z.number().int(),
    mode: z.enum(['virtual', 'realtime']),
    speed: z.number(),
    control_token: z.boolean(),
  }),
  accounts: z.object({
    request_id: z.string(),
    accounts: z.array(
      z.object({
        account_id: z.string(),
        label: z.string().nullable(),
        status: z.string(),
        created_at_ms: z.number().int(),
        balances: z.array(balance),
        credits: counts,
      }),
    ),
    ...page,
  }),
  credits: z.object({
    request_id: z.string(),
    account_id: z.string(),
    organization_id: z.string(),
    credits: z.array(
      z.object({
        credit_id: z.string(),
        asset_key: z.string(),
        atoms: z.string(),
        status: z.enum(['open', 'locked', 'consumed']),
        source_type: z.string(),
        source_id: z.string(),
        held_by: z.string().nullable(),
        consumed_by: z.string().nullable(),
        created_at_ms: z.number().int(),
      }),
    ),
    ...page,
  }),
  entities: z.object({
    request_id: z.string(),
    entities: z.array(
      z.object({
        kind: z.enum(ENTITY_KINDS),
        id: z.string(),
        account_id: z.string().nullable(),
        status: z.string(),
        created_at_ms: z.number().int(),
      }),
    ),
    ...page,
  }),
  events: z.object({
    request_id: z.string(),
    events: z.array(
      z.object({
        event_id: z.string(),
        type: z.string(),
        account_id: z.string(),
        created_at_ms: z.number().int(),
        deliveries: z.array(delivery),
      }),
    ),
    ...page,
  }),
};

export function uiDataRoutes(runtime: Runtime) {
  return [
    defineRoute({
      auth: 'public',
      method: 'get',
      path: '/ui/pulse',
      tag,
      summary: 'Dashboard: a change cursor to poll (it changes whenever the world may have), the clock and its speed',
      // With an organization that has a clock of its own, the call runs in its world (worlds.ts): its clock and changes.
      query: z.object({ organization_id: z.string().min(1).max(256).optional() }).strict(),
      response: uiReplies.pulse,
      handler: (_i, { world }) => ({
        body: {
          cursor: changeCursor(world, runtime.worlds.size),
          now_ms: world.sim.now_ms(),
          mode: world.sim.clock.mode,
          speed: world.sim.clock.speed,
          control_token: Boolean(runtime.options.control_token),
        },
      }),
    }),
    defineRoute({
      auth: 'public',
      method: 'get',
      path: '/ui/accounts',
      tag,
      summary: "Dashboard: an organization's accounts, newest first, with balances and credits counted open, locked and consumed",
      query: z.object(orgQuery).strict(),
      response: uiReplies.accounts,
      handler: ({ query }, { world }) => {
        requireOrg(world, query.organization_id);
        const all = accountStore(world).list.filter((a) => a.org_id === query.organization_id);
        const p = pageBackwards(all, query.limit ?? DEFAULT_LIMIT, query.cursor);
        const accounts = p.items.map((a) => ({
          account_id: a.account_id,
          label: a.label,
          status: accountStatus(a),
          created_at_ms: a.created_at_ms,
          balances: balancesOf(world, a.account_id).map((b) => ({
            asset_key: b.asset_key,
            available_atoms: b.available_atoms.toString(),
            pending_atoms: b.pending_atoms.toString(),
          })),
          credits: creditCounts(world, a.account_id),
        }));
        return { body: { accounts, has_more: p.has_more, next_cursor: p.next_cursor, total: all.length } };
      },
    }),
    defineRoute({
      auth: 'public',
      method: 'get',
      path: '/ui/credits',
      tag,
      summary: "Dashboard: an account's credits (open, locked, consumed), newest first, with their sources",
      query: z.object({ account_id: idString, limit: limitQuery, cursor: cursorQuery }).strict(),
      response: uiReplies.credits,
      handler: ({ query }, { world }) => {
        const account = requireAccountRecord(world, query.account_id);
        const all = creditsOf(world, query.account_id);
        const p = pageBackwards(all, query.limit ?? DEFAULT_LIMIT, query.cursor);
        const credits = p.items.map((c) => {
          const consumed = creditStatus(c) === 'consumed';
          const held_by = creditHolder(c);
          return {
            credit_id: c.credit_id,
            asset_key: c.asset_key,
            atoms: c.atoms.toString(),
            status: consumed ? 'consumed' : held_by !== null ? 'locked' : 'open',
            source_type: c.source_type,
            source_id: c.source_id,
            held_by,
            consumed_by: creditSnapshot(c).context.consumed_by,
            created_at_ms: c.created_at_ms,
          } as const;
        });
        return {
          body: {
            account_id: account.account_id,
            organization_id: account.org_id,
            credits,
            has_more: p.has_more,
            next_cursor: p.next_cursor,
            total: all.length,
          },
        };
      },
    }),
    defineRoute({
      auth: 'public',
      method: 'get',
      path: '/ui/entities',
      tag,
      summary: "Dashboard: an organization's entities of one lifecycle, newest first, with their status",
      query: z.object({ ...orgQuery, kind: z.enum(ENTITY_KINDS), account_id: idString.optional() }).strict(),
      response: uiReplies.entities,
      handler: ({ query }, { world }) => {
        requireOrg(world, query.organization_id);
        const of = entitiesOf(world, query.kind, query.organization_id);
        // A status is read only for the rows shown (a trade's status walks its snapshot).
        const all = query.account_id === undefined ? of.items : of.items.filter((e) => of.row(e).account_id === query.account_id);
        const p = pageBackwards(all, query.limit ?? DEFAULT_LIMIT, query.cursor);
        return { body: { entities: p.items.map(of.row), has_more: p.has_more, next_cursor: p.next_cursor, total: all.length } };
      },
    }),
    defineRoute({
      auth: 'public',
      method: 'get',
      path: '/ui/events',
      tag,
      summary: "Dashboard: an organization's events, newest first, each with its webhook deliveries and every attempt",
      query: z.object(orgQuery).strict(),
      response: uiReplies.events,
      handler: ({ query }, { world }) => {
        requireOrg(world, query.organization_id);
        const mine = world.events.forOrg(query.organization_id);
        // Only the page's events are made into envelopes: an organization may hold hundreds of thousands.
        const p = pagePositions(mine.length, query.limit ?? DEFAULT_LIMIT, query.cursor);
        const items = p.positions.map((i) => mine.at(i)!);
        const wanted = new Map(items.map((e) => [e.envelope.event_id, [] as Delivery[]]));
        for (const d of webhookStore(world).deliveryList) if (d.org_id === query.organization_id) wanted.get(d.event_id)?.push(d);
        const events = items.map((e) => ({
          event_id: e.envelope.event_id,
          type: e.envelope.type,
          account_id: e.envelope.account_id,
          created_at_ms: e.envelope.created_at_ms,
          deliveries: wanted.get(e.envelope.event_id)!.map(serializeDelivery),
        }));
        return { body: { events, has_more: p.has_more, next_cursor: p.next_cursor, total: mine.length } };
      },
    }),
  ];
}
