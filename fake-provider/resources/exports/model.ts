// Key export over the world: the integrator-assisted start (export-keys), the user's OTP flow (initiate,
// complete, status), and the sweep that delivers HPKE-sealed keys once the account's in-flight work ends.
import { createHash, timingSafeEqual } from 'node:crypto';
import { defineStore, type Organization, type World } from '../../world.ts';
import { ApiError } from '../../contract/errors.ts';
import { sendEmail } from '../../emails.ts';
import type { Violation } from '../../resource.ts';
import { defineTask, type StoredEvent } from '../../engine/index.ts';
import {
  accountStatus,
  accountStore,
  requireAccount,
  sendAccount,
  walletOf,
  walletReady,
  WALLET_CHAINS,
  type Account,
} from '../accounts/index.ts';
import { tradeState, tradeStore } from '../trades/index.ts';
import { zapState, zapStore } from '../zaps/index.ts';
import { cancelStatus, cancelStore } from '../cancels/index.ts';
import { sealBundle } from './hpke.ts';
import { checkWindow, recordHit, wrongOtpGuess, type GuardedOtp, type Windows } from '../../contract/throttle.ts';
import type { ForgetScope } from '../../resource-records.ts';

type ExportSource = 'integrator' | 'user_email';
type ExportedKeys = NonNullable<Account['exported_keys']>;

export interface ExportRecord {
  account_id: string;
  org_id: string;
  export_source: ExportSource;
  target_public_key: string;
  /** The OTP complete-export consumed: export-status's session proof (public flow only). */
  session_otp: string | null;
  started_at_ms: number;
  exported_at_ms: number | null;
  /** The pending sweep, if one is scheduled. */
  sweep_task_id: number | null;
  sweep_due_ms: number | null;
  seq: number;
}

export const exportStore = defineStore('exports', (world) => ({
  byAccount: new Map<string, ExportRecord>(),
  /** The newest unused OTP per account: initiating again supersedes the previous one (and its wrong guesses). */
  otps: new Map<string, GuardedOtp>(),
  initiations: new Map() as Windows,
  ipHits: new Map() as Windows,
  /** OTP digits come from their own stream so that exports never shift other draws. */
  otpRng: world.sim.secrets.fork('otps'),
}));

const alreadyExported = (account: Account): ApiError =>
  new ApiError('account_already_exported', `account ${account.account_id} is already ${accountStatus(account)}`, { param: 'account_id' });

/** 409 when an export has begun; 409 account_not_operable when a deactivated account may not export. */
function requireExportable(account: Account): void {
  const status = accountStatus(account);
  if (status === 'export_initiated' || status === 'exported') throw alreadyExported(account);
  if (status === 'deactivated' && !account.snapshot.context.deactivated_allows_export) {
    throw new ApiError(
      'account_not_operable',
      `account ${account.account_id} is deactivated; this service does not export deactivated accounts`,
      {
        param: 'account_id',
        details: { account_id: account.account_id, status },
      },
    );
  }
}

/** Constant-time comparison of secrets of any length (digests first, so lengths never differ). */
function sameSecret(a: string, b: string): boolean {
  const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** Locks the account (EXPORT) and schedules the first sweep. Callers have checked everything first. */
function beginExport(
  world: World,
  account: Account,
  source: ExportSource,
  target_public_key: string,
  session_otp: string | null,
): ExportRecord {
  if (!sendAccount(world, account, { type: 'EXPORT', export_source: source })) {
    throw new Error(`account ${account.account_id} refused EXPORT after requireExportable passed`);
  }
  const record: ExportRecord = {
    account_id: account.account_id,
    org_id: account.org_id,
    export_source: source,
    target_public_key: target_public_key.toLowerCase(),
    session_otp,
    started_at_ms: world.sim.now_ms(),
    exported_at_ms: null,
    sweep_task_id: null,
    sweep_due_ms: null,
    seq: world.nextSeq(),
  };
  exportStore(world).byAccount.set(account.account_id, record);
  scheduleSweep(world, record, world.profile.export_sweep_ms);
  return record;
}

/** POST /accounts/{id}/export-keys. */
export function exportKeys(world: World, org: Organization, account_id: string, target_public_key: string): Account {
  const account = requireAccount(world, org.organization_id, account_id);
  requireExportable(account);
  beginExport(world, account, 'integrator', target_public_key, null);
  return account;
}

/** Every public export request counts against its client IP, whatever its outcome. */
function throttleIp(world: World, ip: string): void {
  const store = exportStore(world);
  checkWindow(world, store.ipHits, ip, world.profile.public_per_ip, 'public export requests from this address');
  recordHit(world, store.ipHits, ip);
}

/** POST /public/initiate-export: emails a fresh OTP (superseding any earlier one). */
export function initiateExport(world: World, ip: string, account_id: string): void {
  throttleIp(world, ip);
  const store = exportStore(world);
  const account = accountStore(world).byId.get(account_id);
  if (!account) throw new ApiError('account_not_found', `no account ${account_id}`, { param: 'account_id' });
  requireExportable(account);
  if (account.email === null)
    throw new ApiError('email_not_configured', `account ${account_id} has no email; attach one with PATCH /accounts/{account_id}`);
  checkWindow(world, store.initiations, account_id, world.profile.public_initiate_per_account, 'export initiations for this account');
  recordHit(world, store.initiations, account_id);
  const code = String(store.otpRng.int(0, 999_999)).padStart(6, '0');
  const now = world.sim.now_ms();
  store.otps.set(account_id, { code, expires_at_ms: now + world.profile.otp_validity_ms, wrong_guesses: 0 });
  sendEmail(world, { account_id, email: account.email, purpose: 'export', otp_code: code, sent_at_ms: now });
}

/**
 * POST /public/complete-export: the OTP is consumed here and becomes export-status's session proof. Each
 * wrong code counts against the account's live OTP; `otp_max_attempts` of them burn it (see contract/throttle.ts).
 */
export function completeExport(
  world: World,
  ip: string,
  input: { account_id: string; otp_code: string; target_public_key: string },
): Account {
  throttleIp(world, ip);
  const store = exportStore(world);
  // An unknown account has no OTP: answering invalid_otp (not 404) keeps this endpoint from probing ids.
  const account = accountStore(world).byId.get(input.account_id);
  if (!account) throw new ApiError('invalid_otp', 'the OTP is not valid for this account', { param: 'otp_code' });
  const status = accountStatus(account);
  if (status === 'export_initiated' || status === 'exported') throw alreadyExported(account);
  const otp = store.otps.get(account.account_id) ?? null;
  if (otp === null || !sameSecret(otp.code, input.otp_code)) {
    throw wrongOtpGuess(world, otp, () => store.otps.delete(account.account_id), {
      subject: 'this account',
      again: 'call POST /public/initiate-export',
    });
  }
  if (world.sim.now_ms() >= otp.expires_at_ms)
    throw new ApiError('otp_expired', 'the OTP has expired; call POST /public/initiate-export again', { param: 'otp_code' });
  requireExportable(account);
  store.otps.delete(account.account_id);
  beginExport(world, account, 'user_email', input.target_public_key, otp.code);
  return account;
}

export type ExportStatus = { status: 'export_initiated'; poll_after_ms: number } | { status: 'exported'; keys: ExportedKeys };

/** GET /public/export-status: the OTP complete-export consumed is the session proof. */
export function exportStatus(world: World, ip: string, input: { account_id: string; otp_code: string }): ExportStatus {
  throttleIp(world, ip);
  const record = exportStore(world).byAccount.get(input.account_id);
  if (!record) throw new ApiError('export_not_found', `no export for account ${input.account_id}`, { param: 'account_id' });
  if (record.session_otp === null || !sameSecret(record.session_otp, input.otp_code)) {
    throw new ApiError('invalid_otp', 'the OTP is not the one that completed this export', { param: 'otp_code' });
  }
  const account = accountStore(world).byId.get(record.account_id)!;
  if (accountStatus(account) === 'exported') return { status: 'exported', keys: account.exported_keys! };
  const { min, max } = world.profile.poll_after_ms;
  const wait_ms = record.sweep_due_ms !== null ? record.sweep_due_ms - world.sim.now_ms() : world.profile.export_sweep_ms;
  return { status: 'export_initiated', poll_after_ms: Math.min(max, Math.max(min, wait_ms)) };
}

function scheduleSweep(world: World, record: ExportRecord, delay_ms: number): void {
  if (record.sweep_task_id !== null || record.exported_at_ms !== null) return;
  record.sweep_due_ms = world.sim.now_ms() + delay_ms;
  record.sweep_task_id = world.sim.scheduler.after(delay_ms, 'account.export_sweep', { account_id: record.account_id });
}

defineTask('account.export_sweep', (world, { account_id }: { account_id: string }) => {
  // An export record is never replaced while its sweep is pending (a second initiation is refused).
  const record = exportStore(world).byAccount.get(account_id);
  return record ? sweep(world, record) : undefined;
});

/** True while a wallet is still being derived or a trade, zap or cancel of the account is not terminal. */
function exportBlocked(world: World, account: Account): boolean {
  const id = account.account_id;
  if (!WALLET_CHAINS.every((chain) => walletReady(account, chain))) return true;
  if (tradeStore(world).list.some((t) => t.swap.account_id === id && tradeState(t) !== 'settled' && tradeState(t) !== 'failed'))
    return true;
  if (zapStore(world).list.some((z) => z.account_id === id && zapState(z) !== 'settled' && zapState(z) !== 'failed')) return true;
  return (cancelStore(world).byAccount.get(id) ?? []).some((c) => cancelStatus(c) !== 'confirmed' && cancelStatus(c) !== 'failed');
}

/**
 * Delivers the keys once nothing blocks the export; otherwise waits for the account's next event (a
 * wallet, trade, zap or cancel step), which schedules the next sweep. No polling: an export waiting on
 * work that has nothing scheduled never keeps the clock busy.
 */
async function sweep(world: World, record: ExportRecord): Promise<void> {
  record.sweep_task_id = null;
  record.sweep_due_ms = null;
  const account = accountStore(world).byId.get(record.account_id)!;
  if (accountStatus(account) !== 'export_initiated' || exportBlocked(world, account)) return;
  const keys = await sealKeys(world, account, record.target_public_key);
  // Its organization was deleted while the keys were sealed: nothing of it is stored any more.
  if (accountStore(world).byId.get(record.account_id) !== account) return;
  account.exported_keys = keys;
  // Marked first, so the account.key_exported event this publishes schedules no further sweep.
  record.exported_at_ms = world.sim.now_ms();
  if (!sendAccount(world, account, { type: 'SETTLEMENTS_RESOLVED' }))
    throw new Error(`account ${account.account_id} refused SETTLEMENTS_RESOLVED`);
}

/** Each seal draws a WebCrypto ephemeral key: an outside input, so a journal records the bundle and a replay reuses it. */
async function sealKeys(world: World, account: Account, target_public_key: string): Promise<ExportedKeys> {
  return Promise.all(
    WALLET_CHAINS.map(async (chain) => {
      const wallet = walletOf(account, chain);
      const seal = (): Promise<string> =>
        sealBundle(target_public_key, { chain, address: wallet.address, private_key_hex: wallet.private_key_hex });
      const export_bundle =
        world.sim.journal.mode === 'off' ? await seal() : await world.sim.journal.outside('hpke', `${account.account_id}/${chain}`, seal);
      return { chain, address: wallet.address, export_bundle };
    }),
  );
}

/** The listener installed in every world. */
function sweepExportOf(w: World, event: StoredEvent): void {
  // Most worlds export nothing: no event's envelope is made for this check then.
  const exports = exportStore(w).byAccount;
  const record = exports.size === 0 ? undefined : exports.get(event.envelope.account_id);
  if (record && record.exported_at_ms === null) scheduleSweep(w, record, 0);
}

/** Installed per world: any event of an exporting account may have ended what its export waits on. */
export function installExportSweeps(world: World): void {
  world.hooks.eventPublished.push(sweepExportOf);
}

/** Over the exports this flow started (other suites may drive the account machine directly). */
export function exportInvariants(world: World): Violation[] {
  const out: Violation[] = [];
  for (const record of exportStore(world).byAccount.values()) {
    const account = accountStore(world).byId.get(record.account_id)!;
    const status = accountStatus(account);
    const expected = record.exported_at_ms === null ? 'export_initiated' : 'exported';
    if (status !== expected)
      out.push({
        invariant: 'export_status',
        entity_id: account.account_id,
        message: `export record says ${expected}, account is ${status}`,
      });
    if (record.exported_at_ms === null) continue;
    const keys = account.exported_keys ?? [];
    const ok = keys.length === WALLET_CHAINS.length && keys.every((k) => walletOf(account, k.chain).address === k.address);
    if (!ok)
      out.push({
        invariant: 'exported_keys_match_wallets',
        entity_id: account.account_id,
        message: 'exported keys do not name every wallet address',
      });
  }
  return out;
}

/** A deleted organization: its accounts' export records, OTPs and initiation windows go. */
export function forgetOrganizationExports(world: World, _org: Organization, scope: ForgetScope): void {
  const store = exportStore(world);
  for (const id of scope.accounts) {
    const record = store.byAccount.get(id);
    if (record?.sweep_task_id != null) world.sim.scheduler.cancel(record.sweep_task_id);
    store.byAccount.delete(id);
    store.otps.delete(id);
    store.initiations.delete(id);
  }
}
