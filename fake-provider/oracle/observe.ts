// What an integrator can see of a world, gathered in one place for the spec oracle: the event feed, and
// every trade, zap, cancel, deposit, credit, recovery and delivery as its /v1 (or /_sim) answer shows it.
// The oracle's checks read only this view, never the resources' internal state, so a bug inside a resource
// cannot also bend the check that is meant to catch it.
import type { World } from '../world.ts';
import type { Profile } from '../profile.ts';
import type { EventEnvelope } from '../engine/events.ts';
import { accountStore } from '../resources/accounts/index.ts';
import { creditStore, serializeCredit } from '../resources/credits/index.ts';
import { depositStore, serializeDeposit } from '../resources/deposits/index.ts';
import { serializeTrade, tradeStore } from '../resources/trades/index.ts';
import { serializeZap, zapStore } from '../resources/zaps/index.ts';
import { cancelStore, serializeCancel } from '../resources/cancels/index.ts';
import { recoveryStatus, recoveryStore } from '../resources/recoveries/index.ts';
import { deliveryStatus, webhookStore } from '../resources/webhooks/index.ts';
import { RESOURCES } from '../resources/index.ts';
import { historyOf } from '../resources/history/index.ts';

type Body = Record<string, any>;

interface ObservedSwap {
  kind: 'trade' | 'zap';
  id: string;
  account_id: string;
  /** GET /trades/{id} or GET /zaps/{id}. */
  body: Body;
  /** The account's history record, once terminal (amounts in and out, assets). */
  record: Body | null;
}

interface ObservedCancel {
  id: string;
  account_id: string;
  body: Body;
  record: Body | null;
}

interface ObservedOrg {
  organization_id: string;
  platform_fee_bps: string;
  integrator_fee_bps: string;
  partner_screening: boolean;
  recovery_enabled: boolean;
}

export interface Observed {
  profile: Profile;
  now_ms: number;
  orgs: Map<string, ObservedOrg>;
  /** account_id → its organization. */
  accounts: Map<string, string>;
  /** The event feed of every organization, in publication order. */
  events: Array<{ org_id: string; envelope: EventEnvelope }>;
  /** GET /_sim/deposits rows. */
  deposits: Body[];
  /** GET /accounts/{id}/credits rows, open and consumed. */
  credits: Body[];
  swaps: ObservedSwap[];
  cancels: ObservedCancel[];
  recoveries: Array<{ recovery_id: string; account_id: string; credit_id: string; status: string }>;
  /** Deliveries with every attempt (time and answer), as the delivery log records them. */
  deliveries: Array<{
    delivery_id: string;
    event_id: string;
    status: string;
    replay: boolean;
    attempts: Array<{ at_ms: number; http_status: number }>;
  }>;
}

export function observe(world: World): Observed {
  const orgs = new Map<string, ObservedOrg>();
  for (const o of world.orgs.values()) {
    orgs.set(o.organization_id, {
      organization_id: o.organization_id,
      platform_fee_bps: o.platform_fee_bps,
      integrator_fee_bps: o.integrator_fee_bps,
      partner_screening: o.partner_screening,
      recovery_enabled: o.recovery_enabled,
    });
  }
  const accounts = new Map<string, string>();
  const records = new Map<string, Body>();
  for (const a of accountStore(world).list) {
    accounts.set(a.account_id, a.org_id);
    for (const r of historyOf(RESOURCES, world, a.account_id)) {
      const b = r.body as Body;
      records.set(String(b.trade_id ?? b.zap_id ?? b.cancel_id), b);
    }
  }
  const events: Observed['events'] = [];
  for (const e of world.events.all) events.push({ org_id: e.org_id, envelope: e.envelope });

  const swaps: ObservedSwap[] = [];
  for (const t of tradeStore(world).list) {
    swaps.push({
      kind: 'trade',
      id: t.trade_id,
      account_id: t.swap.account_id,
      body: serializeTrade(world, t.trade_id),
      record: records.get(t.trade_id) ?? null,
    });
  }
  for (const z of zapStore(world).list) {
    swaps.push({
      kind: 'zap',
      id: z.zap_id,
      account_id: z.account_id,
      body: serializeZap(world, z),
      record: records.get(z.zap_id) ?? null,
    });
  }
  const cancels: ObservedCancel[] = cancelStore(world).list.map((c) => ({
    id: c.cancel_id,
    account_id: c.account_id,
    body: serializeCancel(world, c),
    record: records.get(c.cancel_id) ?? null,
  }));
  const recoveries = recoveryStore(world).list.map((r) => ({
    recovery_id: r.recovery_id,
    account_id: r.account_id,
    credit_id: r.credit_id,
    status: recoveryStatus(r),
  }));
  const { deliveryList } = webhookStore(world);
  const deliveries = deliveryList.map((d) => ({
    delivery_id: d.delivery_id,
    event_id: d.event_id,
    status: deliveryStatus(d),
    replay: d.replay,
    attempts: d.attempt_log.map((a) => ({ at_ms: a.at_ms, http_status: a.http_status })),
  }));
  return {
    profile: world.profile,
    now_ms: world.sim.now_ms(),
    orgs,
    accounts,
    events,
    deposits: depositStore(world).list.map((d) => serializeDeposit(world, d)),
    credits: creditStore(world).list.map((c) => serializeCredit(c)),
    swaps,
    cancels,
    recoveries,
    deliveries,
  };
}
