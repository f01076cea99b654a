// GET /_sim/timeline: what happened, per entity and sim time, as `TimelineEntry` rows (declared below; reports read them):
// machine transitions, published events, fault firings and webhook delivery attempts, oldest first.
// Scenario runs and reports draw their swimlanes from it. Read-only: it only reads the world's logs.
import { z } from 'zod';
import type { World } from '../world.ts';
import type { StoredEvent } from '../engine/events.ts';
import { defineRoute } from '../contract/route.ts';
import { ApiError } from '../contract/errors.ts';
import { commaList, msQuery } from '../contract/validate.ts';
import { timelineReply } from './schemas.ts';
import { listDeposits } from '../resources/deposits/index.ts';
import { webhookStore } from '../resources/webhooks/index.ts';

/** One thing that happened to one entity at one sim time; a report draws one swimlane per entity (reports/types.ts re-exports it). */
export interface TimelineEntry {
  sim_ms: number;
  /** account, deposit, rfq, quote, trade, zap, cancel, credit, destination, recovery, export, webhook_delivery, … */
  entity_type: string;
  entity_id: string;
  /** transition: a machine moved from → to; event: an event was published; fault: an injected fault fired;
   *  delivery: a webhook delivery attempt; expectation: a check of the scenario or verify; step: a DSL step. */
  kind: 'transition' | 'event' | 'fault' | 'delivery' | 'expectation' | 'step';
  from?: string;
  to?: string;
  event_type?: string;
  /** Free text a person reads (fault effect, delivery status, expectation label, step description). */
  detail?: string;
  /** For expectations (and deliveries): passed or not. */
  ok?: boolean;
}

interface TimelineQuery {
  since_ms?: number;
  until_ms?: number;
  /** Exact entities: their transitions, the events naming them, those events' deliveries, fault firings naming them. */
  entity_ids?: string[];
  /** An organization's entities: every id its events name (accounts, trades, credits, …), expanded once. */
  organization_id?: string;
  /**
   * Only this account's events are read (its own index): an entity's events all carry its account, so with
   * `entity_id` this gives the same rows without reading every event of a large world (the dashboard's timelines).
   */
  account_id?: string;
}

/** Every string an event names as an entity: the account, `*_id` fields, tx hashes. */
function idsOf(e: StoredEvent): string[] {
  const out = [e.envelope.account_id];
  for (const [k, v] of Object.entries(e.envelope.data)) if (typeof v === 'string' && (k.endsWith('_id') || k === 'tx_hash')) out.push(v);
  return out;
}

/** The set of entity ids the query is about, or null for "everything". */
function scopeIds(world: World, q: TimelineQuery): Set<string> | null {
  if (q.entity_ids === undefined && q.organization_id === undefined) return null;
  const ids = new Set(q.entity_ids ?? []);
  if (q.organization_id !== undefined) {
    if (!world.orgs.has(q.organization_id))
      throw new ApiError('not_found', `no organization ${q.organization_id}`, { param: 'organization_id' });
    for (const e of world.events.all) if (e.org_id === q.organization_id) for (const id of idsOf(e)) ids.add(id);
    // Deposits are named by address in events; their lifecycle runs under the deposit id.
    for (const account_id of [...ids]) for (const d of listDeposits(world, { account_id })) ids.add(d.deposit_id);
    for (const d of webhookStore(world).deliveryList) if (d.org_id === q.organization_id) ids.add(d.delivery_id);
  }
  return ids;
}

const inWindow = (q: TimelineQuery, at_ms: number): boolean =>
  (q.since_ms === undefined || at_ms >= q.since_ms) && (q.until_ms === undefined || at_ms <= q.until_ms);

/** The entity an event is about: `trade.filled` → the trade; deposit events → the deposit's own id. */
function eventEntity(world: World, e: StoredEvent): { entity_type: string; entity_id: string } {
  const entity_type = e.envelope.type.split('.')[0];
  const data = e.envelope.data;
  if (entity_type === 'deposit' && typeof data.deposit_address_id === 'string') {
    const deposits = listDeposits(world, { deposit_address_id: data.deposit_address_id }).filter(
      (d) => d.landed_at_ms <= e.envelope.created_at_ms,
    );
    const d = deposits.find((x) => x.tx_hash === data.tx_hash) ?? deposits.at(-1);
    if (d) return { entity_type, entity_id: d.deposit_id };
  }
  const own = data[`${entity_type}_id`];
  return { entity_type, entity_id: typeof own === 'string' ? own : e.envelope.account_id };
}

function transitionEntries(world: World, q: TimelineQuery, scope: Set<string> | null): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  // One entity: its own records (no record made for every other entity's transitions).
  const one = scope !== null && scope.size === 1 && q.organization_id === undefined ? [...scope][0] : undefined;
  for (const r of one === undefined ? world.transitions.all() : world.transitions.forEntity(one)) {
    if (!inWindow(q, r.at_ms) || (scope && !scope.has(r.entity_id))) continue;
    out.push({
      sim_ms: r.at_ms,
      entity_type: r.kind,
      entity_id: r.entity_id,
      kind: 'transition',
      ...(r.from === null ? {} : { from: r.from }),
      to: r.to,
      detail: r.event,
    });
  }
  return out;
}

function eventEntries(world: World, q: TimelineQuery, scope: Set<string> | null, seen: Set<string>): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  for (const e of q.account_id === undefined ? world.events.all : world.events.forAccount(q.account_id)) {
    if (scope && !idsOf(e).some((id) => scope.has(id))) continue;
    // In scope whatever its time: a delivery attempt inside the window may carry an older event.
    seen.add(e.envelope.event_id);
    if (!inWindow(q, e.envelope.created_at_ms)) continue;
    out.push({
      sim_ms: e.envelope.created_at_ms,
      ...eventEntity(world, e),
      kind: 'event',
      event_type: e.envelope.type,
      detail: e.envelope.event_id,
    });
  }
  return out;
}

function deliveryEntries(world: World, q: TimelineQuery, events: Set<string>): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  for (const d of webhookStore(world).deliveryList) {
    if (!events.has(d.event_id)) continue;
    const type = world.events.byId.get(d.event_id)?.envelope.type;
    for (const a of d.attempt_log) {
      if (!inWindow(q, a.at_ms)) continue;
      const effects = a.effects.length > 0 ? `, ${a.effects.join('+')}` : '';
      out.push({
        sim_ms: a.at_ms,
        entity_type: 'webhook_delivery',
        entity_id: d.delivery_id,
        kind: 'delivery',
        event_type: type,
        detail: `${d.event_id} HTTP ${a.http_status} (${a.copies} sent${effects}${d.replay ? ', replay' : ''}) → ${a.state}`,
        ok: a.http_status >= 200 && a.http_status < 300,
      });
    }
  }
  return out;
}

function faultEntries(world: World, q: TimelineQuery, scope: Set<string> | null): TimelineEntry[] {
  const rules = new Map(world.sim.faults.list().map((r) => [r.fault_id, r]));
  const out: TimelineEntry[] = [];
  for (const f of world.sim.faults.firings()) {
    const subjects = f.subject.split(',');
    if (!inWindow(q, f.at_ms) || (scope && !subjects.some((s) => scope.has(s)))) continue;
    const rule = rules.get(f.fault_id);
    out.push({
      sim_ms: f.at_ms,
      entity_type: f.target,
      entity_id: subjects[0] ?? f.fault_id,
      kind: 'fault',
      detail: `${f.fault_id} ${rule ? JSON.stringify(rule.effect) : '(rule removed)'} on ${f.subject}`,
    });
  }
  return out;
}

/** The merged timeline, oldest first; at one sim time, transitions, then events, faults, deliveries. */
function buildTimeline(world: World, q: TimelineQuery): TimelineEntry[] {
  const scope = scopeIds(world, q);
  const seen = new Set<string>();
  const events = eventEntries(world, q, scope, seen);
  const all = [...transitionEntries(world, q, scope), ...events, ...faultEntries(world, q, scope), ...deliveryEntries(world, q, seen)];
  const rank = { transition: 0, event: 1, fault: 2, delivery: 3, step: 4, expectation: 5 } as const;
  // Array.prototype.sort is stable: within one kind and time, log order stays.
  return all.sort((a, b) => a.sim_ms - b.sim_ms || rank[a.kind] - rank[b.kind]);
}

const timelineQuery = z.object({
  since_ms: msQuery,
  until_ms: msQuery,
  entity_id: commaList.optional(),
  organization_id: z.string().min(1).max(128).optional(),
  account_id: z.string().min(1).max(128).optional(),
});

export function timelineRoutes() {
  return [
    defineRoute({
      auth: 'public',
      method: 'get',
      path: '/timeline',
      tag: 'Control',
      summary: 'Transitions, events, fault firings and webhook attempts per entity, oldest first',
      query: timelineQuery,
      response: timelineReply,
      handler: ({ query }, { world }) => {
        const timeline = buildTimeline(world, {
          since_ms: query.since_ms,
          until_ms: query.until_ms,
          entity_ids: query.entity_id,
          organization_id: query.organization_id,
          account_id: query.account_id,
        });
        return { body: { now_ms: world.sim.now_ms(), timeline } };
      },
    }),
  ];
}
