// The engine benchmark's yardstick: xstate 5's own pure `initialTransition()`/`transition()` driving the
// same machines through the same steps as one engine lifecycle (17 transitions: deposit, its credit, RFQ,
// quote, trade, the two settlement credits), over plain objects kept in Maps by id. No events, scheduler or
// ids: only the machines stepped the way xstate's documentation shows. Measured in the same process and
// minute as each engine figure (one baseline run before each measured run, the ratio per pair), it turns the engine's absolute figures, which swing 2× with the machine's
// load, into ratios that do not.
import { initialTransition, transition, type AnyStateMachine, type EventObject } from 'xstate';
import { Bench } from 'tinybench';
import { creditMachine } from '../../fake-provider/resources/credits/machine.ts';
import { depositMachine } from '../../fake-provider/resources/deposits/machine.ts';
import { quoteMachine, rfqMachine } from '../../fake-provider/resources/rfqs/machine.ts';
import { tradeMachine } from '../../fake-provider/resources/trades/machine.ts';

/** What a plain store holds per entity: its id and xstate's snapshot. */
interface PlainEntity {
  readonly id: string;
  snapshot: unknown;
}

export interface PlainWorld {
  entities: Map<string, PlainEntity>;
  next: number;
  now_ms: number;
  /** Transitions taken (creation counts as one, as in the engine's log): 17 per lifecycle. */
  transitions: number;
  /** Actions xstate returned (emits and assigns), read so that nothing is optimised away. */
  actions: number;
}

export const plainWorld = (): PlainWorld => ({ entities: new Map(), next: 0, now_ms: 1_767_225_600_000, transitions: 0, actions: 0 });

const FINALITY = 20;

function create(w: PlainWorld, prefix: string, machine: AnyStateMachine, input?: unknown): PlainEntity {
  const id = `${prefix}_${(w.next++).toString(36).padStart(16, '0')}`;
  const [snapshot, actions] = initialTransition(machine, input as never);
  const entity = { id, snapshot };
  w.entities.set(id, entity);
  w.transitions++;
  w.actions += actions.length;
  return entity;
}

function step(w: PlainWorld, machine: AnyStateMachine, id: string, event: EventObject): void {
  const entity = w.entities.get(id)!;
  const [next, actions] = transition(machine, entity.snapshot as never, event as never);
  entity.snapshot = next;
  w.transitions++;
  w.actions += actions.length;
}

/** One lifecycle, the engine's 17 transitions in its order (deposit → credit → firm RFQ → accept → settled). */
export function plainLifecycle(w: PlainWorld): void {
  const t = w.now_ms;
  const dep = create(w, 'dep', depositMachine, { required_confirmations: FINALITY, partner_screening: false });
  step(w, depositMachine, dep.id, { type: 'SCREENED_CLEAN' });
  step(w, depositMachine, dep.id, { type: 'CONFIRM', blocks: FINALITY } as EventObject);
  const credit = create(w, 'cred', creditMachine);
  const rfq = create(w, 'rfq', rfqMachine, { created_at_ms: t, expires_at_ms: t + 1_000 });
  const quote = create(w, 'quote', quoteMachine, { expires_at_ms: t + 1_000 });
  step(w, rfqMachine, rfq.id, { type: 'SOLVED', quote_id: quote.id, at_ms: t } as EventObject);
  const trade = create(w, 'trd', tradeMachine);
  step(w, creditMachine, credit.id, { type: 'LOCK', holder_id: trade.id } as EventObject);
  step(w, quoteMachine, quote.id, { type: 'ACCEPT', trade_id: trade.id, at_ms: t } as EventObject);
  step(w, rfqMachine, rfq.id, { type: 'EXPIRE', at_ms: t + 1_000 } as EventObject);
  step(w, tradeMachine, trade.id, { type: 'FILL' });
  step(w, tradeMachine, trade.id, { type: 'SETTLE_INITIATED' });
  const settlement = create(w, 'cred', creditMachine);
  step(w, tradeMachine, trade.id, { type: 'SETTLED', credit_id: settlement.id } as EventObject);
  step(w, creditMachine, credit.id, { type: 'CONSUME', holder_id: trade.id } as EventObject);
  create(w, 'cred', creditMachine);
  w.now_ms += 7_000;
}

/** The states one lifecycle ends in (the baseline's own test: the same lifecycle as the engine's). */
export function finalStates(w: PlainWorld): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of w.entities.values()) out[e.id] = (e.snapshot as { value: string }).value;
  return out;
}

/** tinybench over single lifecycles in one growing plain world (as the engine's `lifecycle` section). */
export async function baselineLifecycle(time_ms: number): Promise<{ median_ms: number; lifecycles_per_s: number; samples: number }> {
  const w = plainWorld();
  const bench = new Bench({ name: 'xstate lifecycle', time: time_ms, warmupTime: 500, throws: true });
  bench.add('xstate transition(): same lifecycle', () => plainLifecycle(w));
  await bench.run();
  const r = bench.tasks[0].result;
  if (r.state !== 'completed') throw new Error(`tinybench task ended ${r.state}`);
  return {
    median_ms: Number(r.latency.p50.toFixed(4)),
    lifecycles_per_s: Math.round(1000 / r.latency.p50),
    samples: r.latency.samplesCount,
  };
}

/** `n` lifecycles in a fresh plain world: lifecycles per wall second. */
export function baselineRun(n: number): number {
  const w = plainWorld();
  const t0 = performance.now();
  for (let k = 0; k < n; k++) plainLifecycle(w);
  const wall_ms = performance.now() - t0;
  if (w.transitions !== 17 * n) throw new Error(`baseline: ${w.transitions} transitions for ${n} lifecycles`);
  return Math.round((n * 1000) / wall_ms);
}

export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Engine figure ÷ baseline figure, both in lifecycles per wall second, to 3 digits. */
export const ratio = (engine_per_s: number, baseline_per_s: number): number => Number((engine_per_s / baseline_per_s).toFixed(3));
