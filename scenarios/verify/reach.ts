// Which coverage items (coverage.ts) a run reached, read from what happened, not from what was planned: the
// provider's events for the run's accounts (failure codes and the stage each failure came from, flag reasons,
// the partner window, recoveries, suspensions), the fault rules that fired (delivery effects, API faults on the
// app's key), the delivery log (a progress event delivered after the terminal one) and what verify itself sent
// (forgeries, stale and future timestamps, concurrent copies, rotations and restarts). A planned item whose
// operation was refused or whose rule never fired is simply not reached, and the table says so.
import type { Attempt } from './judge.ts';
import type { RelayRecord } from './relay.ts';
import type { VerifyRun } from './run.ts';
import type { VerifyScenario } from './scenario.ts';
import { SWAP_FAULT_FAILURES } from './coverage.ts';

export interface ReachInput {
  scenario: VerifyScenario;
  run: VerifyRun;
  /** The run's events, in feed order per account. */
  events: ReadonlyArray<{ event_id: string; type: string; data: Record<string, unknown> }>;
  /** Fault rules that fired (their ids). */
  fired: ReadonlySet<string>;
  log: readonly Attempt[];
  records: readonly RelayRecord[];
}

const PROGRESS = new Set(['executing', 'filled', 'pending_settle', 'awaiting_deposit', 'created', 'sent']);
const TERMINAL = new Set(['settled', 'failed', 'confirmed']);

/** The id an event is about: its trade, zap, cancel or recovery. */
function entityOf(type: string, data: Record<string, unknown>): string | null {
  const family = type.split('.')[0];
  const id = data[`${family}_id`];
  return typeof id === 'string' ? id : null;
}

export function observeReach(x: ReachInput): string[] {
  const reached = new Set<string>();
  const add = (id: string): void => void reached.add(id);
  // The last progress status each swap announced, so a failure names the stage it came from.
  const stage = new Map<string, string>();
  const awaited = new Set<string>();
  const orphaned = new Set<string>();
  const partner_window = new Set<string>();
  for (const e of x.events) {
    const [family, news] = e.type.split('.', 2);
    const id = entityOf(e.type, e.data);
    if ((family === 'trade' || family === 'zap') && id) {
      if (news === 'failed') {
        const code = String(e.data.failure_code ?? '');
        const from = stage.get(id);
        const at = SWAP_FAULT_FAILURES[family].find(([c]) => c === code)?.[1] ?? null;
        // The stage a fault rule's code fails from: such an item counts only when the failure came from it.
        if (at === null || from === at) add(`${family}.failed.${code}`);
      } else if (news === 'settled') add(family === 'zap' && awaited.has(id) ? 'zap.deposit_funded' : `${family}.settled`);
      else if (news === 'settlement_orphaned') orphaned.add(id);
      else if (news === 'awaiting_deposit') awaited.add(id);
      else if (PROGRESS.has(news)) stage.set(id, news);
    }
    if (family === 'cancel' && news === 'confirmed') add('cancel.confirmed');
    if (family === 'cancel' && news === 'failed') add(`cancel.failed.${String(e.data.failure_code ?? '')}`);
    if (e.type === 'recovery.claimed') add('recovery.claimed');
    if (e.type === 'recovery.failed') add('recovery.failed');
    if (e.type === 'deposit.verified') {
      add('deposit.verified');
      if (partner_window.has(String(e.data.deposit_address_id))) add('deposit.partner_window_lapsed');
    }
    if (e.type === 'deposit.partner_screening') partner_window.add(String(e.data.deposit_address_id));
    if (e.type === 'deposit.flagged') add(`deposit.flagged.${String(e.data.flag_reason ?? '')}`);
    if (e.type === 'destination.suspended') add('destination.suspended');
    if (e.type === 'destination.reactivated') add('destination.reactivated');
    if (e.type === 'account.created' && /[^\x20-\x7e]/.test(String(e.data.label ?? ''))) add('payload.non_ascii');
  }
  // A reorg leg is the fault rule's; the events say that the settlement was orphaned and reconfirmed.
  for (const r of x.run.op_rules) {
    const m = /^\{"reorg":"(out|in)"\} on ((trd|zap)_\S+)$/.exec(r.what);
    if (m && x.fired.has(r.fault_id) && orphaned.has(m[2])) add(`${m[3] === 'trd' ? 'trade' : 'zap'}.reorg.${m[1]}`);
  }
  for (const [fault_id, effect] of Object.entries(x.run.rule_effects)) {
    if (!x.fired.has(fault_id)) continue;
    if (effect === 'outage') add('delivery.outage_past_retry_window');
    else if (effect !== 'late') add(`delivery.${effect}`);
  }
  for (const [fault_id, kind] of Object.entries(x.run.api_rule_kinds)) if (x.fired.has(fault_id)) add(`api.${kind}`);
  // A progress event whose first attempt came after the terminal event's: late as the app saw it.
  const first_attempt = new Map<string, number>();
  for (const a of x.log) if (!first_attempt.has(a.event_id)) first_attempt.set(a.event_id, a.at_ms);
  const terminal_at = new Map<string, number>();
  for (const e of x.events) {
    const id = entityOf(e.type, e.data);
    const at = first_attempt.get(e.event_id);
    if (id && at !== undefined && TERMINAL.has(e.type.split('.')[1])) terminal_at.set(id, Math.min(terminal_at.get(id) ?? Infinity, at));
  }
  for (const e of x.events) {
    const id = entityOf(e.type, e.data);
    const at = first_attempt.get(e.event_id);
    if (id && at !== undefined && PROGRESS.has(e.type.split('.')[1]) && at > (terminal_at.get(id) ?? Infinity))
      add('delivery.late_progress');
  }
  if (x.records.some((r) => r.kind === 'concurrent_copy')) add('delivery.concurrent_copies');
  // Seen on the wire: a body whose bytes re-serializing its JSON would not give back.
  if (x.records.some((r) => r.kind === 'provider' && r.styled)) add('payload.styled_body');
  for (const f of x.run.forged) add(`forged.${f.forgery}`);
  for (const s of x.run.stale) if (s.record.status !== 0 || !s.record.timed_out) add(`timestamp.${s.when}`);
  for (const p of x.run.probes) {
    if (!p.compared) continue;
    if (p.pending_deposits > 0) add('deposit.pending_probe');
    if (p.flagged_deposits > 0) add('deposit.flagged_probe');
  }
  if (x.scenario.adversarial_profile) add('profile.adversarial');
  if (x.run.rotations > 0) add('app.rotation');
  if (x.run.restarts > 0) add('app.restart');
  return [...reached].sort();
}
