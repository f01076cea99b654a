// The fault plan: typed rules, matched at named choke points (HTTP middleware, scheduler steps, machine
// event injection). Probabilities are drawn from the `faults` stream; `times` counts down; firings are kept.
import type { Rng } from './rng.ts';
import { COPY, type CopyFn } from './scheduler.ts';

export const FAULT_TARGETS = ['trade', 'zap', 'cancel', 'deposit', 'recovery', 'webhook', 'http'] as const;
export type FaultTarget = (typeof FAULT_TARGETS)[number];

export type FaultEffect =
  | { fail: string }
  | { reorg: 'out' | 'in' }
  | { delay_ms: number }
  | { webhook: 'drop' | 'duplicate' | 'reorder' | 'bad_signature' }
  | { http_status: 429 | 500 | 503; retry_after?: boolean }
  | { lose_response: true }
  | { flag: string };

interface FaultMatch {
  ids?: string[];
  account_id?: string;
  asset_key?: string;
  event_type?: string;
  method?: string;
  path?: string;
}

export interface FaultRule {
  fault_id: string;
  target: FaultTarget;
  effect: FaultEffect;
  match: FaultMatch;
  probability: number;
  /** Remaining firings; null means unlimited. */
  times: number | null;
  created_at_ms: number;
}

interface FaultFiring {
  fault_id: string;
  target: FaultTarget;
  at_ms: number;
  subject: string;
}

/** What a choke point knows about the thing it is about to do. */
export interface FaultSubject {
  ids?: string[];
  account_id?: string;
  asset_key?: string;
  event_type?: string;
  method?: string;
  path?: string;
  /** The effect kinds this choke point can apply, e.g. ['fail', 'delay_ms']. */
  accepts: string[];
  /** For `fail` rules: the failure codes that can happen at this stage (a rule for another stage waits). */
  fail_codes?: readonly string[];
}

export interface FaultPlan {
  add(rule: Omit<FaultRule, 'fault_id' | 'created_at_ms'>, fault_id: string, now_ms: number): FaultRule;
  remove(fault_id: string): boolean;
  list(): FaultRule[];
  /** Whether any rule targets `target` (a cheap guard for hot paths: no copy, no draw). */
  has(target: FaultTarget): boolean;
  firings(): FaultFiring[];
  /** Every rule for `target` that matches and fires now (probability drawn, `times` decremented). */
  fire(target: FaultTarget, subject: FaultSubject, now_ms: number): FaultRule[];
  clear(): void;
}

const wildcard = (pattern: string, value: string): boolean =>
  pattern.endsWith('*') ? value.startsWith(pattern.slice(0, -1)) : pattern === value;

export function matches(rule: FaultRule, s: FaultSubject): boolean {
  const m = rule.match;
  if (!s.accepts.includes(Object.keys(rule.effect)[0])) return false;
  if ('fail' in rule.effect && s.fail_codes !== undefined && !s.fail_codes.includes(rule.effect.fail)) return false;
  if (m.ids && m.ids.length > 0 && !(s.ids ?? []).some((id) => m.ids!.includes(id))) return false;
  if (m.account_id !== undefined && m.account_id !== s.account_id) return false;
  if (m.asset_key !== undefined && m.asset_key !== s.asset_key) return false;
  if (m.event_type !== undefined && (s.event_type === undefined || !wildcard(m.event_type, s.event_type))) return false;
  if (m.method !== undefined && m.method.toUpperCase() !== s.method?.toUpperCase()) return false;
  if (m.path !== undefined && (s.path === undefined || !wildcard(m.path, s.path))) return false;
  return true;
}

/**
 * A class, so every world's plan shares one `has` and `fire` (see SimScheduler in scheduler.ts for why). `parent`:
 * the server's plan (read when used), whose rules (unscoped `POST /_sim/faults`) also hold in an organization's world whose clock
 * follows the server's (fake-provider/worlds.ts). They fire here with this plan's draws, so one world's trades
 * never shift another's; a rule's `times` stays one count for every world, as when tenants shared one world.
 */
class RulePlan implements FaultPlan {
  private rules: FaultRule[] = [];
  private fired: FaultFiring[] = [];

  constructor(
    private readonly rng: Rng,
    private readonly parent: (() => FaultPlan) | null = null,
  ) {}

  add(rule: Omit<FaultRule, 'fault_id' | 'created_at_ms'>, fault_id: string, now_ms: number): FaultRule {
    const full: FaultRule = { ...rule, fault_id, created_at_ms: now_ms };
    this.rules.push(full);
    return full;
  }

  remove(fault_id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.fault_id !== fault_id);
    return this.rules.length < before;
  }

  list(): FaultRule[] {
    return this.parent === null ? this.rules.slice() : [...this.rules, ...this.parent().list()];
  }

  has(target: FaultTarget): boolean {
    return this.rules.some((r) => r.target === target) || this.parent?.().has(target) === true;
  }

  firings(): FaultFiring[] {
    return this.fired.slice();
  }

  fire(target: FaultTarget, subject: FaultSubject, now_ms: number): FaultRule[] {
    const out: FaultRule[] = [];
    for (const rule of this.rules) {
      if (rule.target !== target || rule.times === 0 || !matches(rule, subject)) continue;
      // Draw only for rules that match, so adding an unrelated rule never shifts other draws.
      if (rule.probability < 1 && !this.rng.chance(rule.probability)) continue;
      if (rule.times !== null) rule.times--;
      this.fired.push({ fault_id: rule.fault_id, target, at_ms: now_ms, subject: (subject.ids ?? [subject.path ?? '']).join(',') });
      out.push(rule);
    }
    if (this.parent !== null) this.fireInherited(target, subject, now_ms, out);
    return out;
  }

  private fireInherited(target: FaultTarget, subject: FaultSubject, now_ms: number, out: FaultRule[]): void {
    const parent = this.parent!();
    if (!parent.has(target)) return;
    for (const rule of parent.list()) {
      if (rule.target !== target || rule.times === 0 || !matches(rule, subject)) continue;
      if (rule.probability < 1 && !this.rng.chance(rule.probability)) continue;
      if (rule.times !== null) rule.times--;
      this.fired.push({ fault_id: rule.fault_id, target, at_ms: now_ms, subject: (subject.ids ?? [subject.path ?? '']).join(',') });
      out.push(rule);
    }
  }

  clear(): void {
    this.rules = [];
    this.fired = [];
  }

  /** A copy (a snapshot of the world) keeps its parent: the server's plan is not the world's to copy. */
  [COPY](copy: CopyFn): RulePlan {
    const out = new RulePlan(copy(this.rng), this.parent);
    out.rules = copy(this.rules);
    out.fired = copy(this.fired);
    return out;
  }
}

/**
 * `parent`: the server's plan, for a world whose clock follows the server's (see RulePlan); a function, since a
 * reset or a restore puts another world, with another plan, in the server's place.
 */
export function createFaultPlan(rng: Rng, parent?: () => FaultPlan): FaultPlan {
  return new RulePlan(rng, parent ?? null);
}
