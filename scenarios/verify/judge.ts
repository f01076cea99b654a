// How verify judges one run, beyond the app's final state: the provider's delivery log (every attempt from
// GET /_sim/timeline, each delivery's end state) and the relay's wall-time record of the same deliveries.
// A correctly signed delivery that the app answered non-2xx, let time out, or left to end failed is a
// finding, unless verify itself caused it (a dropped or wrongly signed attempt, an outage, API faults on the
// app's key that fired at that sim instant); so is an answer slower than the latency limit.
import type { Sim } from '../../lib/sim.ts';
import type { RelayRecord } from './relay.ts';

export interface Attempt {
  delivery_id: string;
  event_id: string;
  event_type: string;
  at_ms: number;
  http_status: number;
  copies: number;
  /** Webhook effects verify's rules applied to this attempt (drop, duplicate, bad_signature). */
  effects: string[];
  replay: boolean;
  /** The delivery's state right after this attempt: retrying, succeeded or exhausted (ended failed). */
  end_state: string;
}

export interface Finding {
  /** What kind of mistake: slow_handler, run_time_limit, forged_delivery, rotation_grace, delivery_refused, slow_answer, state, probe, error. */
  kind: string;
  /** The first line of the failure: the reason, in a sentence. */
  headline: string;
  entity_type: string;
  entity_id: string;
  field: string;
  app: unknown;
  provider: unknown;
  /** Further lines (what else was seen). */
  detail: string[];
  /** Events whose delivery log belongs in the report. */
  event_ids: string[];
}

const DETAIL = /^(\S+) HTTP (\d+) \((\d+) sent(?:, ([a-z_+]+))?(, replay)?\) → (\w+)$/;

/** Every delivery attempt of the accounts' events, oldest first, parsed from the control plane's timeline. */
export async function deliveryLog(sim: Sim, account_ids: string[]): Promise<Attempt[]> {
  if (account_ids.length === 0) return [];
  const r = await sim.control('GET', `/timeline?entity_id=${account_ids.map(encodeURIComponent).join(',')}`);
  if (r.status !== 200) throw new Error(`GET /_sim/timeline: ${r.status} ${JSON.stringify(r.body)}`);
  const out: Attempt[] = [];
  // /_sim/timeline declares no response schema: its rows are reports/types.ts's TimelineEntry.
  for (const e of (r.body as { timeline: unknown }).timeline as Array<{
    kind: string;
    sim_ms: number;
    entity_id: string;
    event_type?: string;
    detail?: string;
  }>) {
    if (e.kind !== 'delivery' || !e.detail) continue;
    const m = DETAIL.exec(e.detail);
    if (!m) throw new Error(`unreadable delivery entry: ${e.detail}`);
    out.push({
      delivery_id: e.entity_id,
      event_id: m[1],
      event_type: e.event_type ?? '',
      at_ms: e.sim_ms,
      http_status: Number(m[2]),
      copies: Number(m[3]),
      effects: m[4] ? m[4].split('+') : [],
      replay: m[5] !== undefined,
      end_state: m[6],
    });
  }
  return out;
}

const ok = (status: number): boolean => status >= 200 && status <= 299;
const INJECTED = new Set(['drop', 'bad_signature']);

export interface DeliveryJudgement {
  findings: Finding[];
  excused: string[];
}

/**
 * Non-2xx answers (0 = no answer) to correctly signed deliveries, and deliveries that ended failed, skipping
 * attempts verify spoiled and those during which an API fault on the app's key fired (between the attempt and
 * the sim time its answer landed: the app could not apply the event and said so; the provider retries).
 */
export function judgeDeliveries(
  log: Attempt[],
  api_fault_at_ms: readonly number[],
  window_ms: number,
  rel: (ms: number) => string,
): DeliveryJudgement {
  // The app reads the provider while it handles a delivery: between the attempt and the moment its answer lands.
  const faulted = (a: Attempt): boolean => api_fault_at_ms.some((t) => t >= a.at_ms && t <= a.at_ms + window_ms);
  const findings: Finding[] = [];
  const excused: string[] = [];
  const byDelivery = new Map<string, Attempt[]>();
  for (const a of log) {
    const list = byDelivery.get(a.delivery_id) ?? [];
    list.push(a);
    byDelivery.set(a.delivery_id, list);
  }
  for (const attempts of byDelivery.values()) {
    const judged = attempts.filter((a) => !a.effects.some((e) => INJECTED.has(e)));
    const refused = judged.filter((a) => !ok(a.http_status));
    const blamed = refused.filter((a) => !faulted(a));
    for (const a of refused)
      if (faulted(a))
        excused.push(
          `${a.event_id} (${a.event_type}) answered ${a.http_status} at ${rel(a.at_ms)} while the app's own reads were failing (verify's API faults fired between the attempt and its answer): not held against it`,
        );
    if (blamed.length === 0) continue;
    const first = blamed[0];
    // Each attempt carries the delivery's state right after it (the timeline's label): the last one says how it ended.
    const ended_failed = attempts[attempts.length - 1].end_state === 'exhausted';
    const answers = attempts
      .map(
        (a) =>
          `${rel(a.at_ms)} ${a.effects.some((e) => INJECTED.has(e)) ? `${a.effects.join('+')} by verify` : a.http_status === 0 ? 'no answer' : `HTTP ${a.http_status}`}`,
      )
      .join(', ');
    const what = first.http_status === 0 ? 'got no answer (timeout or connection error)' : `was answered ${first.http_status}`;
    findings.push({
      kind: 'delivery_refused',
      headline: `a correctly signed delivery of ${first.event_id} (${first.event_type}) ${what}${ended_failed ? ', and the delivery ended failed' : ''}: a receiver answers 2xx to every valid delivery it has taken (or will take) into account`,
      entity_type: 'webhook_delivery',
      entity_id: first.delivery_id,
      field: 'http_status',
      app: first.http_status,
      provider: '2xx',
      detail: [`attempts of ${first.delivery_id}: ${answers}`],
      event_ids: [first.event_id],
    });
  }
  return { findings, excused };
}

/** The slowest answer above the limit (verify's own copies included: they are deliveries the app had to take). */
export function judgeLatency(records: RelayRecord[], limit_ms: number): Finding | null {
  const slow = records.filter((r) => r.status !== 0 && r.latency_ms > limit_ms).sort((a, b) => b.latency_ms - a.latency_ms);
  if (slow.length === 0) return null;
  const r = slow[0];
  return {
    kind: 'slow_answer',
    headline: `handler took ${(r.latency_ms / 1000).toFixed(1)} s to answer ${r.event_id} (${r.event_type}), above the ${limit_ms / 1000} s latency limit (the provider gives up at 10 s and retries)`,
    entity_type: 'webhook_delivery',
    entity_id: r.delivery_id,
    field: 'latency_ms',
    app: Math.round(r.latency_ms),
    provider: `≤ ${limit_ms}`,
    detail: slow.length > 1 ? [`${slow.length} answers above the limit`] : [],
    event_ids: [r.event_id],
  };
}

/** One line per event: its type, then every attempt (sim time, answer, copies, verify's effects) and the relay's wall latencies. */
export function formatDeliveryLog(
  event_ids: string[],
  log: Attempt[],
  records: RelayRecord[],
  rel: (ms: number) => string,
  cut = false,
): string[] {
  const lines: string[] = [];
  for (const event_id of [...new Set(event_ids)]) {
    let attempts = log.filter((a) => a.event_id === event_id);
    // After a cut the relay answered for the app: only the attempts up to the first refusal are the app's.
    let truncated = false;
    if (cut) {
      const stop = attempts.findIndex((a) => a.http_status < 200 || a.http_status > 299);
      if (stop >= 0 && stop < attempts.length - 1) {
        attempts = attempts.slice(0, stop + 1);
        truncated = true;
      }
    }
    const wire = records.filter((r) => r.event_id === event_id);
    if (attempts.length === 0 && wire.length === 0) {
      lines.push(`${event_id}: never delivered`);
      continue;
    }
    const type = attempts[0]?.event_type ?? wire[0]?.event_type ?? '';
    const parts = attempts.map((a) => {
      const fx = a.effects.length ? ` [${a.effects.join('+')} by verify]` : '';
      return `${rel(a.at_ms)} ${a.http_status === 0 ? 'no answer' : `HTTP ${a.http_status}`}${a.copies !== 1 ? ` (${a.copies} copies)` : ''}${fx}`;
    });
    const end = truncated ? 'the run was cut here; later attempts were answered by verify' : attempts.at(-1)?.end_state;
    const extra = wire
      .filter((r) => r.kind !== 'provider')
      .map((r) => `${r.kind.replace('_', ' ')}: ${r.status === 0 ? 'no answer' : `HTTP ${r.status}`}`);
    const slowest = wire.reduce((m, r) => Math.max(m, r.latency_ms), 0);
    lines.push(
      `${event_id} ${type}: ${parts.join('; ') || 'no provider attempt'}${end ? ` → ${end}` : ''}${extra.length ? `; ${extra.join('; ')}` : ''}${wire.length ? `; slowest answer ${(slowest / 1000).toFixed(2)} s` : ''}`,
    );
  }
  return lines;
}
