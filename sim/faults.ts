// The fault plan: typed rules, matched at named choke points (HTTP middleware, scheduler steps, machine
// event injection). Probabilities are drawn from the `faults` stream; `times` counts down; firings are kept.
// A server rule's `times` shared by several worlds is consumed as the journal says (ShareLedger).
import type { Journal } from './journal.ts';
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

/** The journal's `fact` lines that record how a world's matches of a shared `times` rule went (ShareLedger). */
export const FAULT_TIMES_FACT = 'fault_times';

/** A `fault_times` fact's value: from this world's `match`-th match of the rule on (0-based), the count is open or spent. */
interface TimesMark {
  match: number;
  open: boolean;
}

/** What a world knows of one shared rule: how many times it matched, what the count last said, how to decide. */
interface Tally {
  matches: number;
  open: boolean | null;
  /** In a replay: the journal holds this world's marks (true), or it predates them and the count decides (false). */
  journaled: boolean | null;
}

/**
 * A server rule with a `times` bound is one count for every world it holds in (the server's and its followers');
 * worlds that run at once (an unscoped advance: each follower's tasks wait on its own receivers) reach its last
 * firing in an order that follows I/O, which a replay cannot repeat. Once spent a count stays spent (until a restore
 * or a new rule), so in each world the count is open for a stretch of its matches, then spent for a stretch: the
 * recording journals each change as a `fault_times` fact (`<fault_id>@<world>`, `{match, open}`; the first match is
 * always one), and a replay takes every world's stretches from the journal, whatever order the worlds run in. A
 * journal without them (written before) leaves the count to decide, as it did. Shared by a world's copies (a
 * snapshot): the match numbers go on across a restore, in the recording and in the replay alike.
 */
interface ShareLedger {
  /** The world's name in the journal: its organization id, or `server`. */
  world: string;
  /** The journal of the kernel that made it (a restored copy journals to that same one: it is the server's). */
  journal: () => Journal;
  tallies: Map<string, Tally>;
}

const firingOf = (rule: FaultRule, target: FaultTarget, subject: FaultSubject, now_ms: number): FaultFiring => ({
  fault_id: rule.fault_id,
  target,
  at_ms: now_ms,
  subject: (subject.ids ?? [subject.path ?? '']).join(','),
});

/**
 * A class, so every world's plan shares one `has` and `fire` (see SimScheduler in scheduler.ts for why). `parent`:
 * the server's plan (read when used), whose rules (unscoped `POST /_sim/faults`) also hold in an organization's world whose clock
 * follows the server's (fake-provider/worlds.ts). They fire here with this plan's draws, so one world's trades
 * never shift another's; a rule's `times` stays one count for every world, as when tenants shared one world, and
 * with a `ledger` its consumption is journaled (ShareLedger).
 */
class RulePlan implements FaultPlan {
  private rules: FaultRule[] = [];
  private fired: FaultFiring[] = [];

  constructor(
    private readonly rng: Rng,
    private readonly parent: (() => FaultPlan) | null = null,
    private readonly ledger: ShareLedger | null = null,
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
    // A loop, not some(): asked on every request, and a rule list is mostly empty.
    for (const r of this.rules) if (r.target === target) return true;
    return this.parent?.().has(target) === true;
  }

  firings(): FaultFiring[] {
    return this.fired.slice();
  }

  fire(target: FaultTarget, subject: FaultSubject, now_ms: number): FaultRule[] {
    const out: FaultRule[] = [];
    // A world with a parent shares the parent's rules, not its own (scoped to it, it alone consumes them); the
    // server's world (a ledger, no parent) shares its own with its followers.
    const ownShared = this.parent === null && this.ledger !== null;
    for (const rule of this.rules) this.tryFire(rule, target, subject, now_ms, ownShared, out);
    if (this.parent !== null) {
      const parent = this.parent();
      if (parent.has(target)) for (const rule of parent.list()) this.tryFire(rule, target, subject, now_ms, this.ledger !== null, out);
    }
    return out;
  }

  /** Fires `rule` if it matches and its count is open here (shared: as the ledger decides) and the draw says so. */
  private tryFire(rule: FaultRule, target: FaultTarget, subject: FaultSubject, now_ms: number, shared: boolean, out: FaultRule[]): void {
    if (rule.target !== target) return;
    // A shared count is the ledger's to judge (a replay may grant a world a firing the count already gave away).
    const ledgered = shared && rule.times !== null;
    if (!ledgered && rule.times === 0) return;
    if (!matches(rule, subject)) return;
    if (ledgered && !this.countOpen(rule)) return;
    // Draw only for rules that match, so adding an unrelated rule never shifts other draws.
    if (rule.probability < 1 && !this.rng.chance(rule.probability)) return;
    // A replay grants the firings the journal gave this world, whatever order the worlds ran in: the count
    // reaches 0 with the last of them, never below.
    if (rule.times !== null && rule.times > 0) rule.times--;
    this.fired.push(firingOf(rule, target, subject, now_ms));
    out.push(rule);
  }

  /** Whether a shared rule's count is open to this world at this match: the journal's marks in a replay, else the count. */
  private countOpen(rule: FaultRule): boolean {
    const ledger = this.ledger!;
    const journal = ledger.journal();
    // Nothing to keep without a journal: no replay will ask.
    if (journal.mode === 'off') return rule.times !== 0;
    const key = `${rule.fault_id}@${ledger.world}`;
    let tally = ledger.tallies.get(key);
    if (tally === undefined) ledger.tallies.set(key, (tally = { matches: 0, open: null, journaled: null }));
    const match = tally.matches++;
    if (journal.mode === 'replay' && tally.journaled !== false) {
      // Taken only at its own match: a mark further on waits, and a later world of the same name (after a reset)
      // starts at match 0 with marks of its own.
      const mark = journal.fact(FAULT_TIMES_FACT, key, (v) => (v as TimesMark).match === match) as TimesMark | undefined;
      if (mark !== undefined) tally.open = mark.open;
      tally.journaled ??= mark !== undefined;
      if (tally.journaled) return tally.open!;
    }
    const open = rule.times !== 0;
    if (open !== tally.open && journal.mode === 'record')
      journal.write({ kind: 'fact', what: FAULT_TIMES_FACT, key, value: { match, open } });
    tally.open = open;
    return open;
  }

  clear(): void {
    this.rules = [];
    this.fired = [];
  }

  /**
   * A copy (a snapshot of the world) keeps its parent: the server's plan is not the world's to copy; and its ledger,
   * whose match numbers go on (ShareLedger).
   */
  [COPY](copy: CopyFn): RulePlan {
    const out = new RulePlan(copy(this.rng), this.parent, this.ledger);
    out.rules = copy(this.rules);
    out.fired = copy(this.fired);
    return out;
  }
}

/**
 * `parent`: the server's plan, for a world whose clock follows the server's (see RulePlan); a function, since a
 * reset or a restore puts another world, with another plan, in the server's place. `shares`: the world's name and
 * journal when it shares `times` counts with other worlds (the server's world, when organizations get worlds of
 * their own, and each follower): their consumption is journaled (ShareLedger).
 */
export function createFaultPlan(rng: Rng, parent?: () => FaultPlan, shares?: { world: string; journal: () => Journal }): FaultPlan {
  return new RulePlan(rng, parent ?? null, shares ? { ...shares, tallies: new Map() } : null);
}
