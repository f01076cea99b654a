// Webhook operations over the world: CRUD with one active webhook per organization, secret rotation,
// a delivery per published event (and per replayed one), each attempt a real signed HTTP POST run by the
// sim scheduler, with the `webhook` fault effects applied at the attempt. Dropping deliveries (organization
// deleted, retention passed) is in retention.ts.
import { defineTask, lifecycle, selectEvents, statusOf, type MachineSnapshot, type StoredEvent } from '../../engine/index.ts';
import { defineStore, type Organization, type World } from '../../world.ts';
import { ApiError } from '../../contract/errors.ts';
import { paginate, type Page } from '../../contract/pagination.ts';
import { serializeEvent } from '../events/index.ts';
import {
  deliveryMachine,
  STATUS_OF_STATE,
  type DeliveryEffect,
  type DeliveryEvent,
  type DeliveryState,
  type DeliveryStatus,
} from './machine.ts';
import { createTransport, lazySignedRequest, post, postTogether } from './sender.ts';
import { InFlightBound } from './outbox.ts';
import { startInOrder } from './order.ts';
import { styleBody } from './body-style.ts';
import { destinationGuard } from './destinations.ts';

const deliveryLifecycle = lifecycle(deliveryMachine);

export interface Webhook {
  webhook_id: string;
  org_id: string;
  url: string;
  active: boolean;
  created_at_ms: number;
  seq: number;
  /** Only the current secret signs; a rotated-out secret is never used again. */
  secret: string;
}

/** Fault effects that change what one attempt sends (delay and reorder move it instead). */
type SendEffect = 'drop' | 'duplicate' | 'bad_signature';

interface AttemptRecord {
  at_ms: number;
  http_status: number;
  /** Requests actually sent: 0 when dropped, 2 when duplicated. */
  copies: number;
  effects: readonly SendEffect[];
  /** The delivery's state right after this attempt (in_flight until its answer comes), for timelines. */
  state: DeliveryState;
}

export interface Delivery {
  delivery_id: string;
  event_id: string;
  webhook_id: string;
  org_id: string;
  seq: number;
  /** True for deliveries created by POST /webhooks/{id}/replay. */
  replay: boolean;
  snapshot: MachineSnapshot<typeof deliveryMachine>;
  /** The scheduler task that will run the next attempt; null when none is scheduled. */
  task_id: number | null;
  /** Effects fired for an attempt that a delay/reorder postponed: applied when it finally goes out. */
  held_effects: readonly SendEffect[] | null;
  attempt_log: AttemptRecord[];
  ended_at_ms: number | null;
}

/**
 * The bound on POSTs in flight this world's outbox counts against: the runtime's, shared by every world of it
 * (`shareInFlightBound`), or, for a world made alone, its own. A copy of the world shares it (InFlightBound's COPY).
 */
const boundStore = defineStore('webhook-bound', () => ({ bound: new InFlightBound() }));

/**
 * Hands a world the runtime's bound on POSTs in flight (`webhook_max_in_flight_total` over the server), as the
 * world is made: before its outbox exists, which takes the bound it finds then.
 */
export function shareInFlightBound(world: World, bound: InFlightBound): void {
  if (world.stores.has('webhooks')) throw new Error('shareInFlightBound: the world already has its webhook outbox');
  boundStore(world).bound = bound;
}

export const webhookStore = defineStore('webhooks', (world) => ({
  byId: new Map<string, Webhook>(),
  /** Insertion order = seq order. */
  list: [] as Webhook[],
  deliveries: new Map<string, Delivery>(),
  deliveryList: [] as Delivery[],
  /** Each webhook's deliveries in creation order, so its list never scans the others'. */
  byWebhook: new Map<string, Delivery[]>(),
  /** Secrets (and forged ones for bad_signature faults) come from the secret stream, never from the seed. */
  rng: world.sim.secrets.fork('webhooks'),
  /**
   * Keep-alive connections for this world's deliveries, each connection's address checked (destinations.ts), and
   * its organizations' lanes, counting against the bound over the server.
   */
  transport: createTransport(
    destinationGuard(world.profile, world.endpoint),
    () => ({
      max_in_flight: world.profile.webhook_max_in_flight,
      max_in_flight_total: world.profile.webhook_max_in_flight_total,
      max_queued: world.profile.webhook_max_queued,
    }),
    boundStore(world).bound,
  ),
}));

const newSecret = (world: World): string => `whsec_${webhookStore(world).rng.hex(32)}`;

export function deliveryState(d: Delivery): DeliveryState {
  return statusOf(d.snapshot) as DeliveryState;
}

export function deliveryStatus(d: Delivery): DeliveryStatus {
  return STATUS_OF_STATE[deliveryState(d)];
}

// ---- webhooks ----

function deactivateOthers(world: World, keep: Webhook): void {
  for (const w of webhookStore(world).list) if (w !== keep && w.org_id === keep.org_id) w.active = false;
}

/** 400 webhook_url_forbidden when the URL alone shows it would reach swapsim itself or a refused block. */
function checkDestination(world: World, url: string): void {
  const why = webhookStore(world).transport.guard.url(url);
  if (why) throw new ApiError('webhook_url_forbidden', `webhook url refused: ${why}`, { param: 'url' });
}

export function createWebhook(world: World, org: Organization, input: { url: string; active?: boolean }): Webhook {
  checkDestination(world, input.url);
  const store = webhookStore(world);
  const webhook: Webhook = {
    webhook_id: world.newId('wh'),
    org_id: org.organization_id,
    url: input.url,
    active: input.active ?? true,
    created_at_ms: world.sim.now_ms(),
    seq: world.nextSeq(),
    secret: newSecret(world),
  };
  if (webhook.active) deactivateOthers(world, webhook);
  store.byId.set(webhook.webhook_id, webhook);
  store.list.push(webhook);
  return webhook;
}

/** The webhook, if it exists and belongs to the org; otherwise 404 webhook_not_found. */
export function requireWebhook(world: World, org_id: string, webhook_id: string): Webhook {
  const w = webhookStore(world).byId.get(webhook_id);
  if (!w || w.org_id !== org_id) throw new ApiError('webhook_not_found', `no webhook ${webhook_id}`, { param: 'webhook_id' });
  return w;
}

function activeWebhook(world: World, org_id: string): Webhook | undefined {
  for (const w of webhookStore(world).list) if (w.org_id === org_id && w.active) return w;
  return undefined;
}

export function listWebhooks(world: World, org_id: string, q: { limit?: number; cursor?: string }): Page<Webhook> {
  return paginate(
    webhookStore(world).list.filter((w) => w.org_id === org_id),
    (w) => w.seq,
    q,
  );
}

/** A new url applies to pending retries too; activating deactivates the org's other webhooks. */
export function updateWebhook(world: World, webhook: Webhook, input: { url?: string; active?: boolean }): Webhook {
  if (input.url !== undefined) checkDestination(world, input.url);
  if (input.url !== undefined) webhook.url = input.url;
  if (input.active !== undefined) {
    webhook.active = input.active;
    if (input.active) deactivateOthers(world, webhook);
  }
  return webhook;
}

export function rotateSecret(world: World, webhook: Webhook): Webhook {
  webhook.secret = newSecret(world);
  return webhook;
}

export function serializeWebhook(w: Webhook, opts: { secret: boolean }): Record<string, unknown> {
  const out: Record<string, unknown> = { webhook_id: w.webhook_id, url: w.url, active: w.active, created_at_ms: w.created_at_ms };
  if (opts.secret) out.secret = w.secret;
  return out;
}

// ---- deliveries ----

function applyEffects(world: World, d: Delivery, effects: DeliveryEffect[]): void {
  for (const effect of effects) {
    d.task_id = world.sim.scheduler.schedule(effect.due_ms, 'webhook.attempt', { delivery_id: d.delivery_id });
  }
}

defineTask('webhook.attempt', (world, { delivery_id }: { delivery_id: string }, task_id) => runAttempt(world, delivery_id, task_id));

/** A delivery's first attempt, scheduled when its instant's ordering task starts it (order.ts). */
function startDelivery(world: World, delivery_id: string, effects: DeliveryEffect[]): void {
  const d = webhookStore(world).deliveries.get(delivery_id);
  if (d) applyEffects(world, d, effects);
}

function step(world: World, d: Delivery, event: DeliveryEvent): void {
  const next = deliveryLifecycle.send<DeliveryEffect>(world, d.delivery_id, d.snapshot, event);
  // Every event is sent from the one state that accepts it, so a refusal here is a swapsim bug.
  if (!next) throw new Error(`webhook_delivery ${d.delivery_id} refused ${event.type} in ${deliveryState(d)}`);
  d.snapshot = next.snapshot;
  if (next.snapshot.status === 'done') d.ended_at_ms = world.sim.now_ms();
  applyEffects(world, d, next.effects);
}

function createDelivery(world: World, webhook: Webhook, event: StoredEvent, due_ms: number, replay: boolean): Delivery {
  const store = webhookStore(world);
  const delivery_id = world.newId('dlv');
  const initial = deliveryLifecycle.start<DeliveryEffect>(world, delivery_id, {
    due_ms,
    // The profile's own (read-only) array: a copy per delivery was an array per delivery held for 72 h.
    retry_schedule_ms: world.profile.webhook_retry_schedule_ms,
    retry_window_ms: world.profile.webhook_retry_window_ms,
  });
  const d: Delivery = {
    delivery_id,
    event_id: event.envelope.event_id,
    webhook_id: webhook.webhook_id,
    org_id: webhook.org_id,
    seq: world.nextSeq(),
    replay,
    snapshot: initial.snapshot,
    task_id: null,
    held_effects: null,
    attempt_log: [],
    ended_at_ms: null,
  };
  store.deliveries.set(delivery_id, d);
  store.deliveryList.push(d);
  let mine = store.byWebhook.get(d.webhook_id);
  if (!mine) store.byWebhook.set(d.webhook_id, (mine = []));
  mine.push(d);
  // Profile `webhook_delivery_order` decides when (in this instant) the first attempt is scheduled.
  startInOrder(world, { account_id: event.envelope.account_id, delivery_id, effects: initial.effects, start: startDelivery });
  return d;
}

/** The `world.hooks.eventPublished` listener: the org's active webhook (if any) gets a delivery, due now. */
export function onEventPublished(world: World, event: StoredEvent): void {
  const webhook = activeWebhook(world, event.org_id);
  if (webhook) createDelivery(world, webhook, event, event.envelope.created_at_ms, false);
}

/** Fires the webhook fault rules once per attempt; returns the postponement and what to do to the send. */
function fireFaults(world: World, d: Delivery, event: StoredEvent): { postpone_ms: number; effects: SendEffect[] } {
  const rules = world.sim.faults.fire(
    'webhook',
    {
      ids: [event.envelope.event_id, d.webhook_id, d.delivery_id],
      account_id: event.envelope.account_id,
      event_type: event.envelope.type,
      accepts: ['webhook', 'delay_ms'],
    },
    world.sim.now_ms(),
  );
  let postpone_ms = 0;
  const effects: SendEffect[] = [];
  for (const { effect } of rules) {
    if ('delay_ms' in effect) postpone_ms += effect.delay_ms;
    else if ('webhook' in effect) {
      if (effect.webhook === 'reorder') postpone_ms += world.profile.webhook_reorder_delay_ms;
      else if (!effects.includes(effect.webhook)) effects.push(effect.webhook);
    }
  }
  return { postpone_ms, effects };
}

const NO_EFFECTS: readonly SendEffect[] = Object.freeze([]);

const is2xx = (status: number): boolean => status >= 200 && status <= 299;

/**
 * One attempt, run by the scheduler. The POST queues on its webhook's lane (outbox.ts: bounded per webhook and
 * in total, one per account at a time; a timeout fails what waits behind it at once).
 * Realtime clock: the attempt is sent and the task ends; its outcome is applied when the answer comes (a
 * journal records it as an outside line, where its effects begin), so time never waits for a receiver.
 * Virtual clock: `advance`/`settle` wait for it, each POST bounded by `webhook_timeout_ms` of wall time.
 * Without a journal the POST is joined to the scheduler (scheduler.ts `join`): attempts due at the same
 * instant go out together and their outcomes are applied in dispatch order before time moves on. With a
 * journal each attempt is awaited in turn, so its `outside` lines keep dispatch order. The API keeps
 * answering meanwhile, so a receiver may call /v1 back; a receiver that calls /_sim/clock/* from inside a
 * delivery waits on the serialized clock until its own attempt times out (and fails). A stale task
 * (rescheduled since) is a no-op.
 */
function runAttempt(world: World, delivery_id: string, task_id: number): void | Promise<void> {
  const store = webhookStore(world);
  const d = store.deliveries.get(delivery_id);
  if (!d || d.task_id !== task_id || deliveryState(d) !== 'pending') return;
  d.task_id = null;
  const webhook = store.byId.get(d.webhook_id)!;
  const event = world.events.byId.get(d.event_id)!;
  if (!webhook.active && world.profile.webhook_inactive_abandons) {
    step(world, d, { type: 'ABANDON' });
    return;
  }
  let effects = d.held_effects;
  if (effects === null) {
    const fired = fireFaults(world, d, event);
    if (fired.postpone_ms > 0) {
      d.held_effects = fired.effects;
      step(world, d, { type: 'POSTPONE', due_ms: world.sim.now_ms() + fired.postpone_ms });
      return;
    }
    effects = fired.effects;
  }
  d.held_effects = null;
  const at_ms = world.sim.now_ms();
  step(world, d, { type: 'ATTEMPT', at_ms });
  // Most attempts fire no fault: they share one empty list instead of holding one each.
  const sent: readonly SendEffect[] = effects.length === 0 ? NO_EFFECTS : effects;
  // Logged as the attempt starts (the machine counts it then), completed when its answer comes: on a realtime
  // clock the answer comes while other work runs, and the log must agree with the machine meanwhile.
  const record: AttemptRecord = { at_ms, http_status: 0, copies: 0, effects: sent, state: deliveryState(d) };
  // Grown by one exactly: a pushed-to `[]` reserves 17 slots, and most deliveries log one or two attempts.
  d.attempt_log = d.attempt_log.length === 0 ? [record] : [...d.attempt_log, record];

  const finish = (copies: number, statuses: number[]): void => {
    // Dropped while its POST was out (its organization deleted, or past retention): nothing to record.
    if (store.deliveries.get(d.delivery_id) !== d) return;
    const http_status = statuses.find(is2xx) ?? statuses[statuses.length - 1] ?? 0;
    step(world, d, is2xx(http_status) ? { type: 'SUCCEEDED', http_status } : { type: 'FAILED', http_status, at_ms });
    record.http_status = http_status;
    record.copies = copies;
    record.state = deliveryState(d);
  };
  if (sent.includes('drop')) return finish(0, []);

  // Made when the POST leaves its lane, not while it waits there (sender.ts LazyRequest); the envelope is taken
  // now, so the body is the event as it is at the attempt.
  const envelope = serializeEvent(event);
  const style = world.profile.webhook_body_style;
  const req = lazySignedRequest({
    url: webhook.url,
    prefix: world.profile.webhook_header_prefix,
    // A forged key: the receiver's check must fail, exactly as for a spoofed request.
    secret: sent.includes('bad_signature') ? newSecret(world) : webhook.secret,
    webhook_id: webhook.webhook_id,
    event_id: d.event_id,
    delivery_id: d.delivery_id,
    // Wall time, as the spec's freshness check needs; at_ms (attempted_at_ms) stays sim time.
    timestamp_ms: world.sim.wallStamp_ms('webhook_timestamp', d.delivery_id, at_ms),
    // Profile `webhook_body_style`: the bytes sent, and signed, may carry whitespace and escapes the feed's do not.
    body: () => styleBody(JSON.stringify(envelope), style),
  });
  const copies = sent.includes('duplicate') ? 2 : 1;
  const { journal, scheduler } = world.sim;
  const slot_ms = world.profile.webhook_answer_slot_ms;
  // One account's deliveries keep their dispatch order on the wire (the spec's only ordering promise): its
  // organization's lane sends them in submission order; other accounts' go out alongside.
  const lane = { lane_id: webhook.org_id, account_id: event.envelope.account_id, sim_ms: at_ms };
  if (slot_ms > 0 && journal.mode === 'off') {
    // Answer slot (issue 15, verify): the outcome lands at a fixed sim time (so runs stay deterministic), and only
    // there does the clock wait for it. A duplicate's copies leave together, as an at-least-once sender's do (one
    // after another, a 5 s receiver cost a second wave of 5 s); their statuses keep copy order whichever answers
    // first. With `webhook_answer_slot_stagger_ms` the POST waits until the account's previous one was handed to the
    // socket plus that wall gap (never for its answer): sent at once, several reach the receiver in a racy order,
    // and an app applying events in arrival order fails by chance.
    const stagger_ms = world.profile.webhook_answer_slot_stagger_ms;
    const answered =
      stagger_ms > 0
        ? postTogether(req, copies, world.profile.webhook_timeout_ms, store.transport, lane, stagger_ms, () =>
            store.byId.has(webhook.webhook_id),
          )
        : Promise.all(Array.from({ length: copies }, () => post(req, world.profile.webhook_timeout_ms, journal, store.transport)));
    scheduler.scheduleCall(at_ms + slot_ms, 'webhook.answer', () => answered.then((statuses) => finish(copies, statuses)));
    return;
  }
  // Here the lane sends one POST per account at a time.
  const sending = (async () => {
    const statuses: number[] = [];
    // Here a duplicate's second copy follows the first: the lane runs one POST per account at a time, and a journal
    // records each copy's answer in turn. A first copy that timed out trips the lane, so the second fails at once.
    for (let i = 0; i < copies; i++) statuses.push(await post(req, world.profile.webhook_timeout_ms, journal, store.transport, lane));
    return statuses;
  })();
  if (world.sim.clock.mode === 'realtime') {
    void sending.then((statuses) => finish(copies, statuses));
    return;
  }
  if (journal.mode === 'off') return scheduler.join(sending, (statuses) => finish(copies, statuses));
  return sending.then((statuses) => finish(copies, statuses));
}

/** Shutdown: waiting POSTs resolve 0 at once, running ones are aborted; later attempts fail without sending. */
export function closeDeliveries(world: World): void {
  if (world.stores.has('webhooks')) webhookStore(world).transport.close();
}

/** Re-delivers the org's events since `since_ms` (matching `types`) to this webhook, in publication order. */
export function replay(world: World, webhook: Webhook, input: { since_ms: number; types?: string[] }): Delivery[] {
  if (!webhook.active && world.profile.webhook_inactive_abandons) {
    throw new ApiError('invalid_parameter', `webhook ${webhook.webhook_id} is inactive; activate it before replaying`, {
      param: 'webhook_id',
    });
  }
  const events = selectEvents(world, { org_id: webhook.org_id, since_ms: input.since_ms, types: input.types });
  const now_ms = world.sim.now_ms();
  return events.map((e) => createDelivery(world, webhook, e, now_ms, true));
}

export function listDeliveries(
  world: World,
  webhook: Webhook,
  q: { event_id?: string; status?: DeliveryStatus; limit?: number; cursor?: string },
): Page<Delivery> {
  const items = (webhookStore(world).byWebhook.get(webhook.webhook_id) ?? []).filter(
    (d) => (q.event_id === undefined || d.event_id === q.event_id) && (q.status === undefined || deliveryStatus(d) === q.status),
  );
  // Newest first, like a delivery log.
  items.reverse();
  return paginate(items, (d) => d.seq, { limit: q.limit, cursor: q.cursor, order: 'desc' });
}

export function serializeDelivery(d: Delivery): Record<string, unknown> {
  const ctx = d.snapshot.context;
  const pending = deliveryState(d) === 'pending';
  return {
    delivery_id: d.delivery_id,
    event_id: d.event_id,
    status: deliveryStatus(d),
    http_status: ctx.http_status,
    attempted_at_ms: ctx.attempted_at_ms,
    // A retry is due only after a first attempt; the first attempt's own time is not a retry.
    next_retry_at_ms: pending && ctx.attempts > 0 ? ctx.due_ms : null,
  };
}
