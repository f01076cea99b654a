// Lifecycles as the spec writes them (api-v1.md, States and transitions; Events), independent of the
// xstate machines that run them: each entity kind's wire statuses, the edges between them, which statuses
// are wire-terminal, and which event announces each status. The machines must agree with these tables;
// a transition the spec does not list is a violation even when the machine allows it. The few edges the
// spec leaves open are listed as documented extras, each tied to the profile setting that enables it.
import type { Profile } from '../profile.ts';

export type LifecycleKind = 'trade' | 'zap' | 'cancel' | 'recovery' | 'deposit' | 'credit' | 'destination' | 'account' | 'delivery' | 'rfq';

export interface SpecLifecycle {
  /** Statuses an entity may be created in. */
  initial: readonly string[];
  /** `from → to` pairs the spec lists. */
  edges: ReadonlyArray<readonly [string, string]>;
  /** Wire-terminal statuses: nothing leaves them (unless a documented extra says so). */
  terminal: readonly string[];
  /** The event type that announces entering each status (statuses without one are silent). */
  events: Readonly<Record<string, string>>;
}

export const SPEC_LIFECYCLES: Readonly<Record<LifecycleKind, SpecLifecycle>> = {
  // States and transitions → Trade.
  trade: {
    initial: ['executing'],
    edges: [
      ['executing', 'filled'],
      ['filled', 'pending_settle'],
      ['pending_settle', 'settled'],
      ['executing', 'failed'],
      ['filled', 'failed'],
      ['pending_settle', 'failed'],
    ],
    terminal: ['settled', 'failed'],
    events: {
      executing: 'trade.executing',
      filled: 'trade.filled',
      pending_settle: 'trade.pending_settle',
      settled: 'trade.settled',
      failed: 'trade.failed',
    },
  },
  // States and transitions → Zap ("any non-terminal → failed").
  zap: {
    initial: ['executing', 'awaiting_deposit'],
    edges: [
      ['awaiting_deposit', 'executing'],
      ['executing', 'filled'],
      ['filled', 'pending_settle'],
      ['pending_settle', 'settled'],
      ['awaiting_deposit', 'failed'],
      ['executing', 'failed'],
      ['filled', 'failed'],
      ['pending_settle', 'failed'],
    ],
    terminal: ['settled', 'failed'],
    events: {
      awaiting_deposit: 'zap.awaiting_deposit',
      executing: 'zap.executing',
      filled: 'zap.filled',
      pending_settle: 'zap.pending_settle',
      settled: 'zap.settled',
      failed: 'zap.failed',
    },
  },
  // States and transitions → Cancel.
  cancel: {
    initial: ['pending'],
    edges: [
      ['pending', 'sent'],
      ['sent', 'confirmed'],
      ['sent', 'failed'],
    ],
    terminal: ['confirmed', 'failed'],
    events: { pending: 'cancel.created', sent: 'cancel.sent', confirmed: 'cancel.confirmed', failed: 'cancel.failed' },
  },
  // States and transitions → Recovery. Activation has no event; an active recovery may be activated again.
  recovery: {
    initial: ['created'],
    edges: [
      ['created', 'active'],
      ['active', 'active'],
      ['active', 'claimed'],
      ['active', 'failed'],
    ],
    terminal: ['claimed'],
    events: { created: 'recovery.created', claimed: 'recovery.claimed', failed: 'recovery.failed' },
  },
  // States and transitions → Deposit.
  deposit: {
    initial: ['pending'],
    edges: [
      ['pending', 'verified'],
      ['pending', 'flagged'],
    ],
    terminal: ['verified', 'flagged'],
    events: { pending: 'deposit.pending', verified: 'deposit.verified', flagged: 'deposit.flagged' },
  },
  // States and transitions → Credit.
  credit: { initial: ['open'], edges: [['open', 'consumed']], terminal: ['consumed'], events: { open: 'credit.created' } },
  // States and transitions → Destination: usable while suspended_at_ms is null.
  destination: {
    initial: ['usable'],
    edges: [
      ['usable', 'suspended'],
      ['suspended', 'usable'],
    ],
    terminal: [],
    events: { suspended: 'destination.suspended', usable: 'destination.reactivated' },
  },
  // States and transitions → Account.
  account: {
    initial: ['active'],
    edges: [
      ['active', 'deactivated'],
      ['active', 'export_initiated'],
      ['export_initiated', 'exported'],
    ],
    terminal: ['exported'],
    events: {
      active: 'account.created',
      deactivated: 'account.deactivated',
      export_initiated: 'account.export_initiated',
      exported: 'account.key_exported',
    },
  },
  // Webhook and delivery: a delivery is pending until it succeeds or its retry window ends.
  delivery: {
    initial: ['pending'],
    edges: [
      ['pending', 'success'],
      ['pending', 'failed'],
    ],
    terminal: ['success', 'failed'],
    events: {},
  },
  // RFQ and quote: pending → ready.
  rfq: { initial: ['pending', 'ready'], edges: [['pending', 'ready']], terminal: [], events: {} },
};

interface Extra {
  kind: LifecycleKind;
  from: string;
  to: string;
  /** Why the spec allows it, or which profile setting enables it. */
  why: string;
}

/**
 * Edges the spec leaves open, as swapsim fills them in (docs/testing.md, docs/profile.md). Each one is either
 * implied by a spec rule the tables above do not spell out, or enabled by a profile setting.
 */
function documentedExtras(profile: Pick<Profile, 'orphan_status' | 'deactivated_allows_export'>): Extra[] {
  const extras: Extra[] = [
    // broadcast_failed is a cancel failure code; a cancel that was never broadcast can only fail from pending.
    { kind: 'cancel', from: 'pending', to: 'failed', why: 'broadcast_failed: the transfer was never broadcast' },
    // "claim error ... may set failed": the payout cancel of a claim failed, the credit stays open, and the
    // recovery can be activated (fresh OTP) and claimed again; a failed attempt can be re-activated.
    { kind: 'recovery', from: 'claimed', to: 'failed', why: "the claim's payout cancel failed (broadcast_failed, confirmation_timeout)" },
    { kind: 'recovery', from: 'failed', to: 'active', why: 're-activation after a failed claim attempt' },
  ];
  if (profile.orphan_status === 'pending_settle') {
    // "The resulting status changes in that case: not shown" — orphan_status: pending_settle shows the orphan.
    for (const kind of ['trade', 'zap'] as const) {
      extras.push({ kind, from: 'settled', to: 'pending_settle', why: 'orphan_status: pending_settle (a settled leg was orphaned)' });
      extras.push({ kind, from: 'pending_settle', to: 'settled', why: 'orphan_status: pending_settle (the orphaned leg reconfirmed)' });
    }
  }
  if (profile.deactivated_allows_export)
    extras.push({ kind: 'account', from: 'deactivated', to: 'export_initiated', why: 'deactivated_allows_export: true' });
  return extras;
}

/** The lifecycles with the profile's extras merged: what an entity's observed statuses may walk. */
export interface EdgeSet {
  /** `from → to` is an edge (from null: `to` is a status the entity can be created in). */
  allows(kind: LifecycleKind, from: string | null, to: string): boolean;
  /** The edges lead from `from` to `to` in one or more steps (a poll may miss the statuses in between). */
  reaches(kind: LifecycleKind, from: string | null, to: string): boolean;
  terminal(kind: LifecycleKind, status: string): boolean;
}

export function edgeSet(profile: Pick<Profile, 'orphan_status' | 'deactivated_allows_export'>): EdgeSet {
  const next = new Map<string, Set<string>>();
  const link = (kind: LifecycleKind, a: string, b: string): void => {
    const k = `${kind}:${a}`;
    if (!next.has(k)) next.set(k, new Set());
    next.get(k)!.add(b);
  };
  for (const [kind, l] of Object.entries(SPEC_LIFECYCLES) as [LifecycleKind, SpecLifecycle][])
    for (const [a, b] of l.edges) link(kind, a, b);
  const leaving = new Set<string>();
  for (const x of documentedExtras(profile)) {
    link(x.kind, x.from, x.to);
    leaving.add(`${x.kind}:${x.from}`);
  }
  const allows = (kind: LifecycleKind, from: string | null, to: string): boolean =>
    from === null ? SPEC_LIFECYCLES[kind].initial.includes(to) : from === to || (next.get(`${kind}:${from}`)?.has(to) ?? false);
  const reaches = (kind: LifecycleKind, from: string | null, to: string): boolean => {
    const start = from === null ? SPEC_LIFECYCLES[kind].initial : [from];
    const seen = new Set<string>(start);
    const queue = [...start];
    while (queue.length) {
      const s = queue.shift()!;
      if (s === to) return true;
      for (const n of next.get(`${kind}:${s}`) ?? []) {
        if (seen.has(n)) continue;
        queue.push(n);
        seen.add(n);
      }
    }
    return false;
  };
  return {
    allows,
    reaches,
    terminal: (kind, status) => SPEC_LIFECYCLES[kind].terminal.includes(status) && !leaving.has(`${kind}:${status}`),
  };
}

/**
 * Tracks each entity's statuses as polls show them (GET answers) and reports the first one the spec's edges
 * cannot lead to from the status seen before. A poll may miss statuses in between, so a step is valid when
 * a path of edges leads there; a status seen again is no step; nothing leaves a wire-terminal status.
 */
export class StatusWalk {
  private readonly last = new Map<string, string>();
  constructor(private readonly edges: EdgeSet) {}

  /** Records `status` for the entity; returns a message when no path of spec edges leads to it. */
  see(kind: LifecycleKind, id: string, status: string): string | null {
    const key = `${kind}:${id}`;
    const from = this.last.get(key) ?? null;
    this.last.set(key, status);
    if (from === status) return null;
    if (from !== null && this.edges.terminal(kind, from)) return `${kind} ${id} left wire-terminal status ${from} for ${status}`;
    if (this.edges.reaches(kind, from, status)) return null;
    return from === null
      ? `${kind} ${id} first seen as ${status}, not a status it can be created in or reach from one`
      : `${kind} ${id} went ${from} → ${status}, which no path of the spec's ${kind} lifecycle leads to`;
  }

  status(kind: LifecycleKind, id: string): string | undefined {
    return this.last.get(`${kind}:${id}`);
  }
}
