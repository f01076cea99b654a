// Bounded sending per tenant: per organization a lane with at most `webhook_max_in_flight` POSTs at once (one
// per account at a time, so an account's deliveries keep their wire order) and `webhook_max_queued` waiting; at
// most `webhook_max_in_flight_total` POSTs over the server (an InFlightBound every world's outbox shares, one per
// runtime), except that a lane's first POST never waits for that bound (other tenants' hanging receivers cannot
// hold a bystander's delivery back; the bound is exceeded by at most one POST per organization, and
// organizations are capped by `max_organizations`). A freed slot of the server bound goes to the waiting lane,
// in any world, with the fewest POSTs out. A POST that times out trips its lane: what waits behind it, and what
// arrives at the same sim instant, fails at once instead of waiting out the timeout again, and the lane runs one
// POST at a time until one is answered, so a hanging receiver holds one slot, not eight. A closed outbox (its
// world deleted or shut down) gives its slots back at once.
import { COPY } from '../../../sim/index.ts';

/** What one POST came to: the status (0 when nothing answered) and whether the timeout cut it off. */
export interface Sent {
  status: number;
  timed_out: boolean;
}

export interface OutboxLimits {
  max_in_flight: number;
  max_in_flight_total: number;
  max_queued: number;
}

export interface Outbox {
  /** Queues one POST on the organization's lane; resolves with its status (0 when refused, tripped or closed). */
  submit(lane_id: string, account: string, sim_ms: number, run: () => Promise<Sent>): Promise<number>;
  /** Its organization is gone: whatever waits on the lane resolves 0 now, unsent. */
  drop(lane_id: string): void;
  /** POSTs running and waiting, for the soak bench and tests. */
  stats(): { in_flight: number; queued: number; lanes: number };
  /** Shutdown: whatever waits resolves 0 now, and every later submit at once. */
  close(): void;
}

/**
 * `webhook_max_in_flight_total` over every outbox that shares it: one per runtime, handed to each world as it is
 * made (model.ts `shareInFlightBound`), so POSTs in flight across every organization's world count against one
 * bound. An outbox made alone (a bench's world, a test of the sender) gets its own.
 */
export class InFlightBound {
  /** POSTs running over every outbox sharing this bound. */
  in_flight = 0;
  /** Lanes of any outbox with a ready account, waiting for a slot; a freed one goes to the lane with fewest out. */
  readonly starved: Waiter[] = [];

  /** The server's, like the transport: a copy of a world (a snapshot) shares it rather than copying it. */
  [COPY](): InFlightBound {
    return this;
  }

  /** Slots freed (a POST answered, an outbox closed): the neediest waiting lanes start while the bound allows. */
  wake(max_in_flight_total: number): void {
    while (this.in_flight < max_in_flight_total && this.starved.length > 0) this.takeNeediest().wake();
  }

  private takeNeediest(): Waiter {
    const starved = this.starved;
    let best = 0;
    for (let i = 1; i < starved.length; i++) if (starved[i]!.active < starved[best]!.active) best = i;
    return starved.splice(best, 1)[0]!;
  }
}

/** A lane as the server bound sees it: its POSTs out, and how to start its next ones. */
interface Waiter {
  readonly active: number;
  /** The outbox it belongs to (a closed one takes its lanes off the waiting list). */
  readonly owner: object;
  wake(): void;
}

interface Job {
  account: string;
  /** The sim instant it was submitted at: a timeout trips the lane for that instant. */
  sim_ms: number;
  run: () => Promise<Sent>;
  resolve: (status: number) => void;
}

interface Lane extends Waiter {
  id: string;
  active: number;
  /** Waiting jobs per account, in submission order. */
  waiting: Map<string, Job[]>;
  /** Accounts with a job running. */
  busy: Set<string>;
  /** Accounts with waiting jobs and none running, in the order they became ready (round robin). */
  ready: string[];
  queued: number;
  /** The sim instant of the last timeout: attempts at that same instant fail at once. */
  tripped_sim_ms: number;
  /** A POST timed out and none has been answered since: one at a time (a probe), not `max_in_flight`. */
  probing: boolean;
}

export function createOutbox(limits: () => OutboxLimits, bound: InFlightBound = new InFlightBound()): Outbox {
  const lanes = new Map<string, Lane>();
  /** This outbox's POSTs running (its share of `bound.in_flight`). */
  let mine = 0;
  let closed = false;
  const owner = {};

  const laneOf = (id: string): Lane => {
    let lane = lanes.get(id);
    if (lane === undefined) {
      const made: Lane = {
        id,
        active: 0,
        waiting: new Map(),
        busy: new Set(),
        ready: [],
        queued: 0,
        tripped_sim_ms: Number.NaN,
        probing: false,
        owner,
        wake: () => pump(made),
      };
      lanes.set(id, (lane = made));
    }
    return lane;
  };

  // An idle lane is dropped, unless it tripped: its trip must outlive the attempt that timed out, so that the
  // next attempt at that instant (awaited in turn when a journal is kept) fails at once too. One per webhook.
  const forget = (lane: Lane): void => {
    if (lane.active === 0 && lane.queued === 0 && Number.isNaN(lane.tripped_sim_ms)) lanes.delete(lane.id);
  };

  const failWaiting = (lane: Lane): void => {
    for (const jobs of lane.waiting.values()) for (const j of jobs) j.resolve(0);
    lane.waiting.clear();
    lane.ready.length = 0;
    lane.queued = 0;
  };

  const start = (lane: Lane, job: Job): void => {
    lane.active++;
    mine++;
    bound.in_flight++;
    lane.busy.add(job.account);
    const done = (sent: Sent): void => {
      // Closed meanwhile: its slots went back to the bound then, and nothing more starts here.
      if (closed) return job.resolve(sent.status);
      lane.active--;
      mine--;
      bound.in_flight--;
      lane.busy.delete(job.account);
      if (sent.timed_out) {
        lane.tripped_sim_ms = job.sim_ms;
        lane.probing = true;
        failWaiting(lane);
      } else if (sent.status !== 0) lane.probing = false;
      if (!sent.timed_out && lane.waiting.has(job.account)) lane.ready.push(job.account);
      job.resolve(sent.status);
      pump(lane);
      // A slot of the server bound freed: the waiting lane (of any world) with the fewest POSTs out goes next.
      bound.wake(limits().max_in_flight_total);
      forget(lane);
    };
    job.run().then(done, () => done({ status: 0, timed_out: false }));
  };

  /** Starts what the bounds allow on a lane. */
  const pump = (lane: Lane): void => {
    if (closed) return;
    const { max_in_flight, max_in_flight_total } = limits();
    const own_max = lane.probing ? 1 : max_in_flight;
    while (lane.ready.length > 0 && lane.active < own_max) {
      // A lane's first POST is its own: the server bound holds back only its second and later ones.
      if (bound.in_flight >= max_in_flight_total && lane.active > 0) {
        if (!bound.starved.includes(lane)) bound.starved.push(lane);
        return;
      }
      const account = lane.ready.shift()!;
      const jobs = lane.waiting.get(account)!;
      const job = jobs.shift()!;
      if (jobs.length === 0) lane.waiting.delete(account);
      lane.queued--;
      start(lane, job);
    }
  };

  return {
    submit(lane_id, account, sim_ms, run) {
      if (closed) return Promise.resolve(0);
      const lane = laneOf(lane_id);
      if (lane.tripped_sim_ms === sim_ms || lane.queued >= limits().max_queued) {
        forget(lane);
        return Promise.resolve(0);
      }
      return new Promise<number>((resolve) => {
        const job: Job = { account, sim_ms, run, resolve };
        let jobs = lane.waiting.get(account);
        if (jobs === undefined) {
          lane.waiting.set(account, (jobs = []));
          if (!lane.busy.has(account)) lane.ready.push(account);
        }
        jobs.push(job);
        lane.queued++;
        pump(lane);
      });
    },
    drop(lane_id) {
      const lane = lanes.get(lane_id);
      if (lane === undefined) return;
      failWaiting(lane);
      forget(lane);
    },
    stats: () => {
      let queued = 0;
      for (const l of lanes.values()) queued += l.queued;
      return { in_flight: mine, queued, lanes: lanes.size };
    },
    close() {
      if (closed) return;
      closed = true;
      for (const lane of lanes.values()) failWaiting(lane);
      // Its lanes wait no more, and its running POSTs (aborted by the transport) give their slots back now, so
      // the server's other worlds never wait on a world that is gone.
      for (let i = bound.starved.length - 1; i >= 0; i--) if (bound.starved[i]!.owner === owner) bound.starved.splice(i, 1);
      bound.in_flight -= mine;
      mine = 0;
      bound.wake(limits().max_in_flight_total);
    },
  };
}
