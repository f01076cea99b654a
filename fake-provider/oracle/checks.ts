// The spec oracle's checks over an Observed view: each one is a rule of api-v1.md or design.md
// (Invariants) restated over what an integrator sees, never over a resource's internal state.
//   spec.lifecycle.*     every entity's event sequence walks the spec's edges; wire-terminal absorbs;
//                        each lifecycle event once per transition; GET status agrees with the feed
//   spec.conservation    per account and asset: verified deposits + settlement inflows
//                        = open credits + inputs of settled swaps + confirmed cancels
//   spec.credit_sources  which sources may create a credit, and how many per source
//   spec.fees            fees out of the gross output at the organization's bps; total = platform + integrator
//   spec.protocol.*      retry window, screening before verification, partner window, one recovery per
//                        credit, failure codes at the stage they can happen, zap expiry
import { edgeSet, SPEC_LIFECYCLES, type LifecycleKind } from './spec-lifecycles.ts';
import { failureFrom, SPEC_FAILURE_CODES } from './spec-failure-codes.ts';
import type { Observed } from './observe.ts';
import type { Violation } from '../resource.ts';

type Body = Record<string, any>;

const SWAP_EVENT = /^(trade|zap)\.(.+)$/;
const HOUR_MS = 3_600_000;

/** Which kind and id an event is about, and the status it announces (null: not a status event). */
function subjectOf(type: string, data: Body, account_id: string): { kind: LifecycleKind; id: string; status: string | null } | null {
  const dot = type.indexOf('.');
  const prefix = type.slice(0, dot);
  const idField: Partial<Record<string, [LifecycleKind, string]>> = {
    trade: ['trade', 'trade_id'],
    zap: ['zap', 'zap_id'],
    cancel: ['cancel', 'cancel_id'],
    recovery: ['recovery', 'recovery_id'],
    destination: ['destination', 'destination_id'],
    credit: ['credit', 'credit_id'],
    account: ['account', ''],
  };
  const hit = idField[prefix];
  if (!hit) return null;
  const [kind, field] = hit;
  const id = field === '' ? account_id : String(data[field]);
  const l = SPEC_LIFECYCLES[kind];
  const status = Object.keys(l.events).find((s) => l.events[s] === type) ?? null;
  return { kind, id, status };
}

/** Statuses with no event of their own (recovery `active`), which an event walk may pass through silently. */
function silent(kind: LifecycleKind): Set<string> {
  const l = SPEC_LIFECYCLES[kind];
  const all = new Set<string>([...l.initial, ...l.edges.flat()]);
  return new Set([...all].filter((s) => !(s in l.events)));
}

interface Walked {
  status: string;
  /** The status before the one now held (for failures: the stage that failed). */
  before: string | null;
  /** Orphaned legs not yet reconfirmed. */
  orphaned: number;
  /** When each status was entered (event created_at_ms). */
  at: Map<string, number>;
}

/** Walks every entity's events against the spec's edges; returns what each entity reached. */
function walkEvents(o: Observed, out: Violation[]): Map<string, Walked> {
  const edges = edgeSet(o.profile);
  const walked = new Map<string, Walked>();
  const silentOf = new Map<LifecycleKind, Set<string>>();
  const via = (kind: LifecycleKind, from: string | null, to: string): boolean => {
    if (from !== null && from !== to && edges.allows(kind, from, to)) return true;
    if (from === null && edges.allows(kind, null, to)) return true;
    // Through one silent status (created → active → claimed).
    let s = silentOf.get(kind);
    if (!s) silentOf.set(kind, (s = silent(kind)));
    for (const mid of s) if (mid !== from && edges.allows(kind, from, mid) && edges.allows(kind, mid, to) && mid !== to) return true;
    return false;
  };
  const wallets = new Set<string>();
  for (const { envelope: e } of o.events) {
    const v = (invariant: string, entity_id: string, message: string): void =>
      void out.push({ invariant: `spec.${invariant}`, entity_id, message: `${message} (event ${e.event_id})` });
    if (e.type === 'account.wallet_created') {
      const key = `${e.account_id}|${String(e.data.chain)}`;
      if (wallets.has(key)) v('lifecycle.events_once', e.account_id, `account.wallet_created twice for chain ${String(e.data.chain)}`);
      wallets.add(key);
      continue;
    }
    const subject = subjectOf(e.type, e.data as Body, e.account_id);
    if (!subject) continue;
    const { kind, id } = subject;
    const key = `${kind}:${id}`;
    let w = walked.get(key);
    const swapOrphan = SWAP_EVENT.exec(e.type);
    if (swapOrphan && (swapOrphan[2] === 'settlement_orphaned' || swapOrphan[2] === 'settlement_reconfirmed')) {
      if (!w) {
        v('lifecycle.edges', id, `${e.type} before the ${kind} was created`);
        continue;
      }
      if (swapOrphan[2] === 'settlement_orphaned') {
        // Only a confirmed settlement transaction can be dropped: the legs exist from pending_settle on.
        if (w.status !== 'pending_settle' && w.status !== 'settled') v('lifecycle.edges', id, `${e.type} while ${w.status}`);
        else if (w.orphaned >= 2) v('lifecycle.events_once', id, `${e.type} with both legs already orphaned`);
        w.orphaned++;
      } else {
        if (w.orphaned === 0) v('lifecycle.edges', id, `${e.type} with no orphaned leg`);
        else if (w.status === 'failed') v('lifecycle.edges', id, `${e.type} after the ${kind} failed`);
        else w.orphaned--;
      }
      continue;
    }
    if (subject.status === null) continue;
    if (!w && kind === 'destination') w = { status: 'usable', before: null, orphaned: 0, at: new Map() };
    const from = w?.status ?? null;
    if (from !== null && from === subject.status) {
      v('lifecycle.events_once', id, `${e.type} published again while already ${from}`);
      continue;
    }
    if (!via(kind, from, subject.status)) {
      if (from !== null && edges.terminal(kind, from))
        v('lifecycle.terminal_absorbs', id, `${kind} left wire-terminal ${from} on ${e.type}`);
      else
        v(
          'lifecycle.edges',
          id,
          from === null ? `${kind} starts with ${e.type}` : `${kind} ${from} → ${subject.status} (${e.type}) is not an edge of the spec`,
        );
    }
    if (!w) w = { status: subject.status, before: null, orphaned: 0, at: new Map() };
    else {
      w.before = w.status;
      w.status = subject.status;
    }
    w.at.set(subject.status, e.created_at_ms);
    walked.set(key, w);
  }
  return walked;
}

/** GET answers agree with the feed: the status shown is the one the events reached. */
function statusesAgree(o: Observed, walked: Map<string, Walked>, out: Violation[]): void {
  const shown = (kind: LifecycleKind, w: Walked | undefined): string | undefined => {
    if (!w) return undefined;
    if ((kind === 'trade' || kind === 'zap') && w.status === 'settled' && w.orphaned > 0) return o.profile.orphan_status;
    return w.status;
  };
  const check = (kind: LifecycleKind, id: string, body: Body): void => {
    const want = shown(kind, walked.get(`${kind}:${id}`));
    if (want !== body.status)
      out.push({
        invariant: 'spec.lifecycle.status_matches_events',
        entity_id: id,
        message: `GET shows ${kind} ${body.status}, its events reached ${want ?? 'nothing'}`,
      });
    const code = body.failure_code as string | undefined;
    if ((body.status === 'failed') !== (code !== undefined && code !== null)) {
      out.push({ invariant: 'spec.lifecycle.failure_code', entity_id: id, message: `${kind} is ${body.status} with failure_code ${code}` });
    }
    if (code !== undefined && code !== null && !(SPEC_FAILURE_CODES[code]?.kinds as readonly string[] | undefined)?.includes(kind)) {
      out.push({
        invariant: 'spec.lifecycle.failure_code',
        entity_id: id,
        message: `${kind} failed with ${code}, which is not a ${kind} failure code`,
      });
    }
    const w = walked.get(`${kind}:${id}`);
    if (body.status === 'failed' && code && w?.before) {
      const stages = failureFrom(code);
      if (stages && !stages.includes(w.before))
        out.push({
          invariant: 'spec.protocol.failure_stage',
          entity_id: id,
          message: `${kind} failed with ${code} from ${w.before}; that code can happen only from ${stages.join(' or ')}`,
        });
    }
  };
  for (const s of o.swaps) check(s.kind, s.id, s.body);
  for (const c of o.cancels) check('cancel', c.id, c.body);
}

/** A decimal string (bps may have decimals) as a fraction. */
function decimal(text: string): { num: bigint; den: bigint } {
  const [whole, frac = ''] = text.split('.');
  return { num: BigInt(whole + frac), den: 10n ** BigInt(frac.length) };
}

const sameDecimal = (a: string, b: { num: bigint; den: bigint }): boolean => {
  const x = decimal(a);
  return x.num * b.den === b.num * x.den;
};

/** A fee is the gross output times its bps, rounded either way (rounding: not shown). */
function feeFits(fee_atoms: bigint, gross_atoms: bigint, bps: string): boolean {
  const { num, den } = decimal(bps);
  const exact_num = gross_atoms * num;
  const exact_den = den * 10_000n;
  const floor = exact_num / exact_den;
  return fee_atoms === floor || (exact_num % exact_den !== 0n && fee_atoms === floor + 1n);
}

function fees(o: Observed, out: Violation[]): void {
  for (const s of o.swaps) {
    if (s.body.status !== 'settled' || !s.record) continue;
    const f = s.record.fees as Body | undefined;
    const bad = (message: string): void => void out.push({ invariant: 'spec.fees', entity_id: s.id, message });
    if (!f) {
      bad('a settled swap shows no fees');
      continue;
    }
    const [p, i, t] = [BigInt(f.platform_atoms), BigInt(f.integrator_atoms), BigInt(f.total_atoms)];
    if (t !== p + i) bad(`total_atoms ${t} != platform ${p} + integrator ${i}`);
    const pb = decimal(f.platform_bps);
    const ib = decimal(f.integrator_bps);
    if (!sameDecimal(f.total_bps, { num: pb.num * ib.den + ib.num * pb.den, den: pb.den * ib.den }))
      bad(`total_bps ${f.total_bps} != ${f.platform_bps} + ${f.integrator_bps}`);
    const org = o.orgs.get(o.accounts.get(s.account_id) ?? '');
    if (org && !sameDecimal(f.platform_bps, decimal(org.platform_fee_bps)))
      bad(`platform_bps ${f.platform_bps}, the organization's is ${org.platform_fee_bps}`);
    // Both fees are deducted from the output: amount_out is net, so the gross is amount_out + total.
    const gross = BigInt(s.record.amount_out_atoms) + t;
    if (!feeFits(p, gross, f.platform_bps))
      bad(
        `platform_atoms ${p} is not ${f.platform_bps} bps of the gross output ${gross} (amount_out ${s.record.amount_out_atoms} + fees ${t})`,
      );
    if (!feeFits(i, gross, f.integrator_bps)) bad(`integrator_atoms ${i} is not ${f.integrator_bps} bps of the gross output ${gross}`);
  }
}

/** asset_key → chain, from the spec's asset_key forms (native.<chain>, erc20.<chain>_<contract>, spl.solana:<mint>). */
function chainOfAssetKey(asset_key: string): string | null {
  const m = /^(native|erc20|spl)\.([a-z0-9]+(?::[0-9]+)?)/.exec(asset_key);
  return m ? m[2] : null;
}

/**
 * Conservation per account and asset over independent sources: what came in (verified deposits, the net
 * output of settled swaps) equals what is held (open credits, in-flight ones included) plus what went out
 * (inputs of settled swaps, confirmed cancels, claimed recoveries' payouts, which are cancels).
 */
function conservation(o: Observed, walked: Map<string, Walked>, out: Violation[]): void {
  type Flow = { deposits: bigint; settled_in: bigint; open: bigint; swapped_out: bigint; cancelled: bigint };
  const flows = new Map<string, Flow>();
  const flow = (account_id: string, asset_key: string): Flow => {
    const k = `${account_id} ${asset_key}`;
    let f = flows.get(k);
    if (!f) flows.set(k, (f = { deposits: 0n, settled_in: 0n, open: 0n, swapped_out: 0n, cancelled: 0n }));
    return f;
  };
  const unknown = new Set<string>();
  for (const d of o.deposits) if (d.status === 'verified') flow(d.account_id, d.asset_key).deposits += BigInt(d.atoms);
  for (const s of o.swaps) {
    const w = walked.get(`${s.kind}:${s.id}`);
    if (w?.status !== 'settled') continue;
    // A settled swap shown as pending_settle (orphan_status) has no history record until it reconfirms.
    if (!s.record) {
      unknown.add(s.account_id);
      continue;
    }
    flow(s.account_id, s.record.to_asset_key).settled_in += BigInt(s.record.amount_out_atoms);
    flow(s.account_id, s.record.from_asset_key).swapped_out += BigInt(s.record.amount_in_atoms);
  }
  for (const c of o.cancels) {
    if (c.body.status === 'confirmed' && c.record) flow(c.account_id, c.record.asset_key).cancelled += BigInt(c.record.amount_atoms);
  }
  for (const c of o.credits) if (c.status === 'open') flow(c.account_id, c.asset_key).open += BigInt(c.atoms);
  for (const [key, f] of flows) {
    const [account_id] = key.split(' ');
    if (unknown.has(account_id)) continue;
    const inflow = f.deposits + f.settled_in;
    const held_and_out = f.open + f.swapped_out + f.cancelled;
    if (inflow !== held_and_out) {
      out.push({
        invariant: 'spec.conservation',
        entity_id: key,
        message: `deposits ${f.deposits} + settlement inflows ${f.settled_in} = ${inflow}, but open credits ${f.open} + settled swap inputs ${f.swapped_out} + confirmed cancels ${f.cancelled} = ${held_and_out} (off by ${held_and_out - inflow})`,
      });
    }
  }
}

/** Which sources may create a credit, how many per source, and for how much. */
function creditSources(o: Observed, walked: Map<string, Walked>, out: Violation[]): void {
  const bad = (entity_id: string, message: string): void => void out.push({ invariant: 'spec.credit_sources', entity_id, message });
  const verified = new Map<string, Body>();
  for (const d of o.deposits) if (d.status === 'verified') verified.set(String(d.tx_hash).toLowerCase(), d);
  const swaps = new Map(o.swaps.map((s) => [s.id, s]));
  const seen = new Map<string, string>();
  const settlementOf = new Map<string, Body>();
  for (const c of o.credits) {
    if (BigInt(c.atoms) <= 0n) bad(c.credit_id, `credit of ${c.atoms} atoms`);
    const once = `${c.source_type}|${String(c.source_id).toLowerCase()}`;
    if (seen.has(once)) bad(c.credit_id, `a second ${c.source_type} credit from ${c.source_id} (the first is ${seen.get(once)})`);
    seen.set(once, c.credit_id);
    if (c.source_type === 'deposit') {
      const d = verified.get(String(c.source_id).toLowerCase());
      if (!d) bad(c.credit_id, `deposit credit from ${c.source_id}, which is no verified deposit`);
      else if (d.account_id !== c.account_id || d.asset_key !== c.asset_key || d.atoms !== c.atoms)
        bad(c.credit_id, `deposit credit ${c.atoms} ${c.asset_key} differs from deposit ${d.atoms} ${d.asset_key}`);
      continue;
    }
    if (c.source_type !== 'trade_settlement' && c.source_type !== 'change') {
      bad(c.credit_id, `source_type ${c.source_type} is not one the spec lists`);
      continue;
    }
    const s = swaps.get(c.source_id);
    if (!s || walked.get(`${s.kind}:${s.id}`)?.status !== 'settled') {
      bad(c.credit_id, `${c.source_type} credit from ${c.source_id}, which is no settled trade or zap`);
      continue;
    }
    if (s.account_id !== c.account_id) bad(c.credit_id, `${c.source_type} credit in another account than ${s.kind} ${s.id}`);
    if (!s.record) continue;
    if (c.source_type === 'trade_settlement') {
      settlementOf.set(s.id, c);
      if (c.asset_key !== s.record.to_asset_key || c.atoms !== s.record.amount_out_atoms)
        bad(
          c.credit_id,
          `settlement credit ${c.atoms} ${c.asset_key}, but ${s.kind} ${s.id} paid out ${s.record.amount_out_atoms} ${s.record.to_asset_key}`,
        );
    } else if (c.asset_key !== s.record.from_asset_key)
      bad(c.credit_id, `change credit in ${c.asset_key}, but ${s.kind} ${s.id} spent ${s.record.from_asset_key}`);
  }
  for (const s of o.swaps) {
    if (walked.get(`${s.kind}:${s.id}`)?.status !== 'settled') continue;
    const c = settlementOf.get(s.id);
    if (!c && s.record) bad(s.id, `settled ${s.kind} without a settlement credit`);
  }
  // credit.created announces each credit once, as it is.
  const announced = new Map<string, Body>();
  for (const { envelope: e } of o.events) if (e.type === 'credit.created') announced.set(String(e.data.credit_id), e.data as Body);
  for (const c of o.credits) {
    const a = announced.get(c.credit_id);
    if (!a) bad(c.credit_id, 'no credit.created for this credit');
    else if (a.atoms !== c.atoms || a.asset_key !== c.asset_key || a.source_type !== c.source_type)
      bad(c.credit_id, 'credit.created differs from the credit');
  }
  // <kind>.settled names the settlement credit.
  for (const { envelope: e } of o.events) {
    const m = SWAP_EVENT.exec(e.type);
    if (m?.[2] !== 'settled') continue;
    const id = String(e.data[`${m[1]}_id`]);
    const c = settlementOf.get(id);
    if (c && e.data.credit_id !== c.credit_id)
      bad(id, `${e.type} names credit ${String(e.data.credit_id)}, the settlement credit is ${c.credit_id}`);
  }
}

function protocol(o: Observed, walked: Map<string, Walked>, out: Violation[]): void {
  const v = (invariant: string, entity_id: string, message: string): void =>
    void out.push({ invariant: `spec.protocol.${invariant}`, entity_id, message });
  const p = o.profile;
  // Deliveries: retried for up to 72 hours (the profile's window), nothing after a 2xx.
  const created = new Map<string, number>();
  for (const { envelope: e } of o.events) created.set(e.event_id, e.created_at_ms);
  const window_ms = Math.min(p.webhook_retry_window_ms, 72 * HOUR_MS);
  for (const d of o.deliveries) {
    const first = d.attempts[0]?.at_ms;
    const start = d.replay ? first : created.get(d.event_id);
    if (start !== undefined) {
      const late = d.attempts.find((a) => a.at_ms > start + window_ms);
      if (late)
        v(
          'retry_window',
          d.delivery_id,
          `attempt at ${late.at_ms}, ${((late.at_ms - start) / HOUR_MS).toFixed(1)} h after ${d.replay ? 'the first attempt' : `event ${d.event_id}`}, past the ${window_ms / HOUR_MS} h retry window`,
        );
    }
    const ok = d.attempts.findIndex((a) => a.http_status >= 200 && a.http_status <= 299);
    if (ok >= 0 && ok < d.attempts.length - 1)
      v('no_retry_after_success', d.delivery_id, `${d.attempts.length - 1 - ok} attempts after a ${d.attempts[ok].http_status}`);
    if (d.status === 'success' && ok < 0) v('delivery_status', d.delivery_id, 'success without a 2xx answer');
    if (d.status === 'failed' && ok >= 0) v('delivery_status', d.delivery_id, 'failed after a 2xx answer');
  }
  // Deposits: verified only once screening (and the partner window, when screened) finished and finality reached.
  const partnerDeadline = new Map<string, number>();
  for (const { envelope: e } of o.events)
    if (e.type === 'deposit.partner_screening')
      partnerDeadline.set(String(e.data.tx_hash).toLowerCase(), Number(e.data.screening_deadline_ms));
  for (const d of o.deposits) {
    const tx = String(d.tx_hash).toLowerCase();
    const deadline = partnerDeadline.get(tx);
    if (d.status === 'verified') {
      const at = Number(d.resolved_at_ms);
      const landed = Number(d.landed_at_ms);
      if (at < landed + p.deposit_screening_ms)
        v(
          'verified_after_screening',
          d.deposit_id,
          `verified ${at - landed} ms after landing, screening takes ${p.deposit_screening_ms} ms`,
        );
      if (deadline !== undefined && at < deadline)
        v('verified_after_partner_window', d.deposit_id, `verified at ${at}, before the partner screening deadline ${deadline}`);
      const chain = o.profile.chains[chainOfAssetKey(d.asset_key) ?? ''];
      if (chain && at < landed + chain.block_ms * chain.finality_confirmations)
        v(
          'verified_at_finality',
          d.deposit_id,
          `verified ${at - landed} ms after landing, finality takes ${chain.block_ms * chain.finality_confirmations} ms`,
        );
    }
  }
  for (const { envelope: e } of o.events) {
    if (e.type !== 'deposit.flagged' || e.data.flagged_by !== 'partner') continue;
    const deadline = partnerDeadline.get(String(e.data.tx_hash).toLowerCase());
    if (deadline === undefined)
      v('partner_window', String(e.data.tx_hash), 'a partner flag on a deposit that was never sent to partner screening');
    else if (e.created_at_ms > deadline)
      v('partner_window', String(e.data.tx_hash), `partner flag honoured at ${e.created_at_ms}, after the deadline ${deadline}`);
  }
  // Recoveries: one per credit, only for a failed zap's open credit, in an organization with recovery on.
  const byCredit = new Map<string, string>();
  for (const r of o.recoveries) {
    const k = `${r.account_id}|${r.credit_id}`;
    if (byCredit.has(k)) v('one_recovery_per_credit', r.recovery_id, `credit ${r.credit_id} is also bound to ${byCredit.get(k)}`);
    byCredit.set(k, r.recovery_id);
  }
  const offered = new Set<string>();
  for (const s of o.swaps) {
    if (s.kind !== 'zap') continue;
    const rec = s.body.recovery as Body | undefined;
    if (rec) {
      offered.add(String(rec.recovery_id));
      if (s.body.status !== 'failed') v('recovery_for_failed_zap', s.id, `a ${s.body.status} zap offers recovery ${rec.recovery_id}`);
      if (!o.orgs.get(o.accounts.get(s.account_id) ?? '')?.recovery_enabled)
        v('recovery_enabled', s.id, 'recovery offered in an organization without recovery');
    }
  }
  for (const r of o.recoveries)
    if (!offered.has(r.recovery_id)) v('recovery_for_failed_zap', r.recovery_id, 'a recovery no failed zap offers');
  const paid = new Map<string, string>();
  for (const c of o.cancels) {
    if (c.body.status !== 'confirmed') continue;
    const credit = String(c.body.credit_id);
    if (paid.has(credit)) v('one_payout_per_credit', c.id, `credit ${credit} was already paid out by ${paid.get(credit)}`);
    paid.set(credit, c.id);
  }
  // zap_expired needs an API-level expiry, and a zap past its expiry before execution never fills.
  // (A `fail: zap_expired` fault rule may end a zap before its expires_at_ms: the timing is the rule's.)
  for (const s of o.swaps) {
    if (s.kind !== 'zap' || s.body.expires_at_ms === undefined) {
      if (s.kind === 'zap' && s.body.failure_code === 'zap_expired') v('zap_expiry', s.id, 'zap_expired on a zap without expires_at_ms');
      continue;
    }
    const filled_at = walked.get(`zap:${s.id}`)?.at.get('filled');
    if (filled_at !== undefined && filled_at > s.body.expires_at_ms)
      v('zap_expiry', s.id, `filled at ${filled_at}, after expires_at_ms ${s.body.expires_at_ms}`);
  }
}

/** Every check of the spec oracle over one observed view. */
export function specViolations(o: Observed): Violation[] {
  const out: Violation[] = [];
  const walked = walkEvents(o, out);
  statusesAgree(o, walked, out);
  fees(o, out);
  conservation(o, walked, out);
  creditSources(o, walked, out);
  protocol(o, walked, out);
  return out;
}

export const SPEC_CHECKS = ['spec.lifecycle', 'spec.conservation', 'spec.credit_sources', 'spec.fees', 'spec.protocol'] as const;
