// Recoveries over the world: creation for a failed zap's open credit, activation (emailed OTP), the public
// claim (throttle, OTP with a guess limit, address, screening, then a cancel-style transfer of the whole
// credit, whose failure reopens the recovery), invariants.
import { dropWhere, entityStore, lifecycle, publish, statusOf, type MachineSnapshot } from '../../engine/index.ts';
import { createHash, timingSafeEqual } from 'node:crypto';
import { defineStore, type World } from '../../world.ts';
import { ApiError } from '../../contract/errors.ts';
import { sendEmail } from '../../emails.ts';
import type { Violation } from '../../resource.ts';
import { accountStore } from '../accounts/index.ts';
import { addressProblem, assetByKey } from '../assets/index.ts';
import { cancelStatus, cancelStore, launchCancel, serializeCancel, type Cancel } from '../cancels/index.ts';
import { creditHolder, creditStatus, creditStore, type Credit } from '../credits/index.ts';
import { screen } from '../screening/index.ts';
import { checkWindow, recordHit, wrongOtpGuess, type GuardedOtp, type Windows } from '../../contract/throttle.ts';
import { recoveryMachine, type RecoveryEffect, type RecoveryEvent, type RecoveryStatus } from './machine.ts';
import type { Organization } from '../../world.ts';
import type { ForgetScope } from '../../resource-records.ts';

const recoveryLifecycle = lifecycle(recoveryMachine);

export interface Recovery {
  recovery_id: string;
  org_id: string;
  account_id: string;
  credit_id: string;
  asset_key: string;
  /** The newest emailed OTP; null before activation, once a claim attempt used it, or once wrong guesses burned it. */
  otp: GuardedOtp | null;
  activated_at_ms: number | null;
  /** The payout of the current claim; null unless claimed. */
  cancel_id: string | null;
  /** Every payout cancel this recovery started, oldest first: all but a claimed one's last have failed. */
  payouts: string[];
  created_at_ms: number;
  seq: number;
  snapshot: MachineSnapshot<typeof recoveryMachine>;
}

const recoveryIdOf = (x: Recovery): string => x.recovery_id;

export const recoveryStore = defineStore('recoveries', (world) => ({
  ...entityStore<Recovery>('rec', recoveryIdOf),
  /** `account_id|credit_id` → the recovery bound to it. */
  byBinding: new Map<string, Recovery>(),
  ipHits: new Map() as Windows,
  /** OTP digits from their own stream, so recoveries never shift other draws. */
  otpRng: world.sim.secrets.fork('recovery-otps'),
}));

const bindingKey = (account_id: string, credit_id: string): string => `${account_id}|${credit_id}`;

export function recoveryStatus(r: Recovery): RecoveryStatus {
  return statusOf(r.snapshot) as RecoveryStatus;
}

function ids(r: Recovery): Record<string, unknown> {
  return { recovery_id: r.recovery_id, credit_id: r.credit_id, asset_key: r.asset_key };
}

function applyEffects(world: World, r: Recovery, effects: RecoveryEffect[]): void {
  for (const e of effects) {
    if (e.type === 'otp') {
      const email = accountStore(world).byId.get(r.account_id)!.email!;
      const now = world.sim.now_ms();
      const code = String(recoveryStore(world).otpRng.int(0, 999_999)).padStart(6, '0');
      r.otp = { code, expires_at_ms: now + world.profile.otp_validity_ms, wrong_guesses: 0 };
      r.activated_at_ms = now;
      sendEmail(world, { account_id: r.account_id, email, purpose: 'recovery', otp_code: code, sent_at_ms: now });
    } else if (e.type === 'claimed') {
      publish(world, r.org_id, r.account_id, 'recovery.claimed', { ...ids(r), cancel_id: r.cancel_id });
    } else {
      publish(world, r.org_id, r.account_id, 'recovery.failed', { ...ids(r), failure_code: e.failure_code });
    }
  }
}

function sendRecovery(world: World, r: Recovery, event: RecoveryEvent): boolean {
  return recoveryLifecycle.advance(world, r, r.recovery_id, event, applyEffects);
}

/**
 * Called by the zaps resource as a zap fails, before zap.failed is published (which carries these ids).
 * Null when the org has recovery disabled or no open credit is left. An unclaimed recovery already bound to
 * the same account + credit (an earlier failed zap on it) is reused: one recovery per binding.
 */
export function recoveryForFailedZap(
  world: World,
  input: { org_id: string; account_id: string; credit_id: string | null },
): { recovery_id: string; credit_id: string } | null {
  if (input.credit_id === null || !world.orgs.get(input.org_id)?.recovery_enabled) return null;
  const credit = creditStore(world).byId.get(input.credit_id);
  if (!credit || creditStatus(credit) !== 'open' || credit.account_id !== input.account_id) return null;
  const store = recoveryStore(world);
  const key = bindingKey(input.account_id, credit.credit_id);
  const existing = store.byBinding.get(key);
  if (existing && recoveryStatus(existing) !== 'claimed') return { recovery_id: existing.recovery_id, credit_id: existing.credit_id };
  const recovery_id = world.newId('rec');
  const r: Recovery = {
    recovery_id,
    org_id: input.org_id,
    account_id: input.account_id,
    credit_id: credit.credit_id,
    asset_key: credit.asset_key,
    otp: null,
    activated_at_ms: null,
    cancel_id: null,
    payouts: [],
    created_at_ms: world.sim.now_ms(),
    seq: world.nextSeq(),
    snapshot: recoveryLifecycle.start<RecoveryEffect>(world, recovery_id, undefined).snapshot,
  };
  store.byId.insert(r);
  store.byBinding.set(key, r);
  publish(world, r.org_id, r.account_id, 'recovery.created', ids(r));
  return { recovery_id, credit_id: r.credit_id };
}

const notFound = (): ApiError =>
  new ApiError('recovery_not_found', 'no recovery for this account_id and credit_id', { param: 'credit_id' });

function alreadyClaimed(r: Recovery): ApiError {
  const details: Record<string, unknown> = { recovery_id: r.recovery_id };
  if (r.cancel_id !== null) details.cancel_id = r.cancel_id;
  return new ApiError('recovery_already_claimed', `recovery ${r.recovery_id} is already claimed`, { details });
}

function creditOf(world: World, r: Recovery): Credit {
  return creditStore(world).byId.get(r.credit_id)!;
}

function requireOpenCredit(world: World, r: Recovery): Credit {
  const credit = creditOf(world, r);
  if (creditStatus(credit) === 'consumed')
    throw new ApiError('credit_already_consumed', `credit ${r.credit_id} is no longer open`, { param: 'credit_id' });
  return credit;
}

/**
 * POST /recoveries/{id}/activate. The body's account_id + credit_id must be the recovery's binding: any
 * mismatch (or another org's recovery) is 404 recovery_not_found, so the ids cannot be probed. 409
 * recovery_already_claimed (details), 409 credit_already_consumed, 422 email_not_configured.
 */
export function activateRecovery(
  world: World,
  org_id: string,
  recovery_id: string,
  body: { account_id: string; credit_id: string },
): Recovery {
  const r = recoveryStore(world).byId.get(recovery_id);
  if (!r || r.org_id !== org_id || r.account_id !== body.account_id || r.credit_id !== body.credit_id) {
    throw new ApiError('recovery_not_found', `no recovery ${recovery_id} for this account_id and credit_id`, { param: 'recovery_id' });
  }
  if (recoveryStatus(r) === 'claimed') throw alreadyClaimed(r);
  requireOpenCredit(world, r);
  if (accountStore(world).byId.get(r.account_id)!.email === null) {
    throw new ApiError(
      'email_not_configured',
      `account ${r.account_id} has no email; attach one with PATCH /accounts/{account_id}, or use POST /cancels`,
    );
  }
  if (!sendRecovery(world, r, { type: 'ACTIVATE' })) throw new Error(`recovery ${r.recovery_id} refused ACTIVATE`);
  return r;
}

export function serializeActivated(r: Recovery): Record<string, unknown> {
  return {
    recovery_id: r.recovery_id,
    account_id: r.account_id,
    credit_id: r.credit_id,
    status: recoveryStatus(r),
    otp_sent: true,
    activated_at_ms: r.activated_at_ms,
  };
}

/** Constant-time comparison of secrets of any length (digests first, so lengths never differ). */
function sameSecret(a: string, b: string): boolean {
  const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

export interface RecoverFundsInput {
  account_id: string;
  credit_id: string;
  otp_code: string;
  destination: { address: string; memo?: string; tag?: string };
}

/**
 * POST /public/recover-funds, checks in this order: 429 rate_limited (per client IP, every request counts);
 * 404 recovery_not_found; 409 recovery_already_claimed; 409 credit_already_consumed; 401 invalid_otp /
 * otp_expired; 400 invalid_parameter (address format); 409 credit_in_use (another operation holds the
 * credit). All of these change nothing. Then screening: a flagged address uses up the OTP, records the
 * attempt (status failed, recovery.failed) and answers 403 destination_screening_failed; the credit stays open.
 */
export function recoverFunds(world: World, ip: string, input: RecoverFundsInput): Recovery {
  const store = recoveryStore(world);
  checkWindow(world, store.ipHits, ip, world.profile.public_per_ip, 'public recovery requests from this address');
  recordHit(world, store.ipHits, ip);
  const r = store.byBinding.get(bindingKey(input.account_id, input.credit_id));
  if (!r) throw notFound();
  if (recoveryStatus(r) === 'claimed') throw alreadyClaimed(r);
  const credit = requireOpenCredit(world, r);
  if (r.otp === null || !sameSecret(r.otp.code, input.otp_code)) {
    throw wrongOtpGuess(world, r.otp, () => (r.otp = null), { subject: 'this recovery', again: 'activate the recovery again' });
  }
  if (world.sim.now_ms() >= r.otp.expires_at_ms) {
    throw new ApiError('otp_expired', 'the OTP has expired; activate the recovery again to get a new one', { param: 'otp_code' });
  }
  const chain = assetByKey(r.asset_key)!.chain;
  const problem = addressProblem(chain, input.destination.address);
  if (problem !== null) throw new ApiError('invalid_parameter', `destination.address: ${problem}`, { param: 'destination.address' });
  const holder = creditHolder(credit);
  if (holder !== null) {
    throw new ApiError('credit_in_use', `credit ${credit.credit_id} is in use by ${holder}; it can be recovered once that finishes`, {
      param: 'credit_id',
      details: { credit_id: credit.credit_id },
    });
  }
  // The OTP is single-use from here on: a flagged address cannot be retried with it (no screening oracle).
  r.otp = null;
  const flag = screen(world, input.destination.address);
  if (flag !== null) {
    sendRecovery(world, r, { type: 'CLAIM_FAILED' });
    throw new ApiError('destination_screening_failed', 'the destination address failed screening; the credit stays open', {
      param: 'destination.address',
      details: { recovery_id: r.recovery_id },
    });
  }
  const cancel = launchCancel(world, {
    org_id: r.org_id,
    account_id: r.account_id,
    credit,
    destination_id: null,
    destination_address: input.destination.address,
    client_cancel_id: null,
    recovery_id: r.recovery_id,
  });
  r.cancel_id = cancel.cancel_id;
  r.payouts.push(cancel.cancel_id);
  if (!sendRecovery(world, r, { type: 'CLAIM' })) throw new Error(`recovery ${r.recovery_id} refused CLAIM`);
  return r;
}

/**
 * A claim's payout cancel failed (`broadcast_failed`, `confirmation_timeout`): the cancel released the
 * credit, so the recovery records the failed attempt (`recovery.failed` after `cancel.failed`) and can be
 * activated and claimed again. Nothing left the account, so a new payout is not a second one.
 */
function onPayoutFailed(world: World, cancel: Cancel): void {
  const r = cancel.recovery_id === null ? undefined : recoveryStore(world).byId.get(cancel.recovery_id);
  if (!r || r.cancel_id !== cancel.cancel_id) return;
  const failure_code = cancel.snapshot.context.failure_code;
  if (failure_code === null) throw new Error(`cancel ${cancel.cancel_id} failed without a failure_code`);
  r.cancel_id = null;
  if (!sendRecovery(world, r, { type: 'PAYOUT_FAILED', failure_code })) throw new Error(`recovery ${r.recovery_id} refused PAYOUT_FAILED`);
}

/** Installed per world: recoveries hear about their payouts' failures. */
export function installRecoveries(world: World): void {
  cancelStore(world).failureListeners.push(onPayoutFailed);
}

export function serializeClaimed(world: World, r: Recovery): Record<string, unknown> {
  const cancel = cancelStore(world).byId.get(r.cancel_id!)!;
  const poll = serializeCancel(world, cancel).poll_after_ms;
  return {
    recovery_id: r.recovery_id,
    account_id: r.account_id,
    credit_id: r.credit_id,
    status: recoveryStatus(r),
    asset_key: r.asset_key,
    amount_atoms: cancel.amount_atoms.toString(),
    cancel_id: r.cancel_id,
    poll_after_ms: typeof poll === 'number' ? poll : world.profile.cancel_poll_after_ms.min,
  };
}

/**
 * Per recovery: its credit is on its account and asset; a claimed recovery names a cancel of exactly its
 * credit, for the whole amount; only claimed ones name a current cancel; every payout is this recovery's
 * own cancel and no two recoveries share one; every payout but a claimed recovery's current one failed.
 */
export function recoveryInvariants(world: World): Violation[] {
  const out: Violation[] = [];
  const bad = (invariant: string, r: Recovery, message: string) =>
    out.push({ invariant: `recoveries.${invariant}`, entity_id: r.recovery_id, message });
  const seen = new Set<string>();
  for (const r of recoveryStore(world).list) {
    const credit = creditStore(world).byId.get(r.credit_id);
    if (!credit || credit.account_id !== r.account_id || credit.asset_key !== r.asset_key)
      bad('binding', r, 'credit missing or not on the recovery’s account and asset');
    const claimed = recoveryStatus(r) === 'claimed';
    if (claimed !== (r.cancel_id !== null)) bad('claim_has_cancel', r, 'claimed without a cancel, or a cancel without a claim');
    if (r.cancel_id !== null && r.payouts.at(-1) !== r.cancel_id)
      bad('current_payout', r, `cancel ${r.cancel_id} is not the recovery’s latest payout`);
    for (const cancel_id of r.payouts) {
      if (seen.has(cancel_id)) bad('one_payout', r, `cancel ${cancel_id} pays out two recoveries`);
      seen.add(cancel_id);
      const cancel = cancelStore(world).byId.get(cancel_id);
      if (
        !cancel ||
        cancel.recovery_id !== r.recovery_id ||
        cancel.credit_id !== r.credit_id ||
        (credit && cancel.amount_atoms !== credit.atoms)
      ) {
        bad('cancel_is_whole_credit', r, `payout ${cancel_id} is not this recovery’s transfer of its whole credit`);
      } else if (cancel_id !== r.cancel_id && cancelStatus(cancel) !== 'failed') {
        bad('earlier_payouts_failed', r, `payout ${cancel_id} was replaced while ${cancelStatus(cancel)}`);
      }
    }
  }
  return out;
}

/** A deleted organization: its recoveries go (per-address windows are the addresses', not the organization's). */
export function forgetOrganizationRecoveries(world: World, org: Organization, scope: ForgetScope): void {
  const store = recoveryStore(world);
  const mine = (r: Recovery): boolean => r.org_id === org.organization_id;
  for (const r of store.list) if (mine(r)) scope.gone.add(r.recovery_id);
  store.byId.retain((r) => !mine(r));
  dropWhere(store.byBinding, mine);
}
