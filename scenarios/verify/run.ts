// Runs one verify scenario against a sim, with the app behind the relay: fresh accounts (leading webhook rules
// installed before their funding), each step with its fault tied to the operation it targets (added right
// after the operation exists, matched by its id), then quiescence (every rule removed, the clock settled).
// Records what verify injected, so the judge can tell the app's answers from verify's own doing.
import { listAll, type FaultRuleInput, type Reply, type Sim } from '../../lib/sim.ts';
import { assetAt, SCENARIO_ASSETS, type AccountSetup } from '../arbitraries/steps.ts';
import {
  cancel,
  depositInto,
  DESTINATION_ADDRESS,
  destinationFor,
  forge,
  openCredits,
  quiesce,
  trade,
  WEBHOOK_EFFECT,
  zap,
  type Account,
  type ForgedDelivery,
  type JourneyRun,
} from '../arbitraries/run.ts';
import { WALL } from '../../sim/wall.ts';
import { describeScenario, leadingRules, otherAssetOnChain, type ApiFaultKind, type VerifyScenario, type VStep } from './scenario.ts';
import type { Relay, RelayRecord } from './relay.ts';

export interface RunHooks {
  relay: Relay;
  /** POST /probe/configure with the run's provider, key and the given secret. */
  configure(secret: string): Promise<void>;
  webhook_id: string;
  secret: string;
  app_webhook_url: string;
  header_prefix: string;
  /** Mid-run check at a quiet point: compares the app's state if nothing is in flight; returns what it did. */
  probe(step: number, run: VerifyRun): Promise<string>;
  /** Sim time from a delivery attempt to its answer (a quiet point waits past it). */
  answer_slot_ms: number;
  /** Deliveries verify sends itself (forged ones, previous-secret copies), awaited before the run is judged. */
  pending?: Array<Promise<unknown>>;
  /** Aborted when the run is cut: a forged delivery (posted straight to the app, not through the relay) stops waiting. */
  cut_signal?: AbortSignal;
}

export interface VerifyRun extends JourneyRun {
  started_at_ms: number;
  /** Fault rules verify added on webhook deliveries (their firings are verify's doing) and on the app's key. */
  webhook_rule_ids: string[];
  background_rule_ids: string[];
  api_rule_ids: string[];
  /** Targeted rules on operations, with the step that added them (to say whether each one fired). */
  op_rules: Array<{ fault_id: string; step: number; what: string }>;
  /** Deliveries verify re-sent signed with the previous secret, and what the app answered. */
  previous_secret: Array<{ step: number; record: RelayRecord }>;
  /** Correctly signed re-sends with a stale or future Svc-Timestamp, and what the app answered. */
  stale: Array<{ step: number; when: 'stale' | 'future'; record: RelayRecord }>;
  restarts: number;
  rotations: number;
  /** What each webhook rule verify added does (the effect's name), to tell which delivery effects fired. */
  rule_effects: Record<string, string>;
  /** The API-fault kind of each rule on the app's key. */
  api_rule_kinds: Record<string, ApiFaultKind>;
  /** Mid-run state checks: whether the app's state was compared, and the run's deposits pending or flagged then. */
  probes: Array<{ step: number; compared: boolean; pending_deposits: number; flagged_deposits: number }>;
  /** Recoveries the run activated and claimed (their ids), and the payout cancels. */
  recoveries: string[];
}

const LATE_DELAY_MS = 600_000;
/** Sim time after which every earlier operation on the scenario's fast chains has ended (reorgs included). */
const QUIET_MS = 180_000;

/** Paths only the app reads (the verifier never GETs them during a run), so API faults there hit the app's key alone. */
const APP_READ_PATHS = ['/v1/trades/*', '/v1/zaps/*', '/v1/cancels/*', '/v1/events*'];

export function apiEffect(f: ApiFaultKind): Extract<FaultRuleInput, { target: 'http' }>['effect'] {
  if (f === '429') return { http_status: 429, retry_after: true };
  if (f === '429_no_retry_after') return { http_status: 429, retry_after: false };
  if (f === 'lost_response') return { lose_response: true, mode: 'reset' };
  return { http_status: Number(f) as 500 | 503 };
}

/**
 * A label a delivery body carries as non-ASCII text (UTF-8 on the wire), with characters JSON must escape (a quote,
 * a backslash, a tab, U+2028): an app that reads the body as latin1, or signs anything but the raw bytes, fails.
 */
const unicodeLabel = (i: number): string => `Zoë “verify-${i}” \\ "東京" ✓ 😀\t\u2028`;

async function setupAccounts(
  sim: Sim,
  s: VerifyScenario,
  run: VerifyRun,
  before_funding: (accounts: Account[]) => Promise<void>,
): Promise<Account[]> {
  const accounts: Account[] = [];
  for (let i = 0; i < s.accounts.length; i++) {
    const created = await sim.api('POST', '/accounts', { body: { label: s.labels === 'unicode' ? unicodeLabel(i) : `verify-${i}` } });
    if (created.status !== 200) throw new Error(`create account: ${created.status} ${JSON.stringify(created.body)}`);
    accounts.push({ account_id: created.body.account.account_id, destinations: new Map() });
  }
  run.account_ids = accounts.map((a) => a.account_id);
  await sim.advance(5_000); // wallets are derived a few sim-seconds after creation
  await before_funding(accounts);
  for (const [i, a] of accounts.entries()) {
    const asset = assetAt(s.accounts[i].asset);
    await depositInto(sim, a.account_id, asset.asset_key, BigInt(s.accounts[i].usd) * asset.atoms_per_usd);
  }
  await sim.advance(20_000); // finality and screening of the funding deposits
  return accounts;
}

async function addRule(sim: Sim, list: string[], rule: Parameters<Sim['faults']['add']>[0]): Promise<string> {
  const r = await sim.faults.add(rule);
  list.push(r.fault_id);
  return r.fault_id;
}

async function addWebhookRule(
  sim: Sim,
  run: VerifyRun,
  effect: string,
  rule: Extract<FaultRuleInput, { target: 'webhook' }>,
): Promise<string> {
  const id = await addRule(sim, run.webhook_rule_ids, rule);
  run.rule_effects[id] = effect;
  return id;
}

async function must<T = any>(r: Promise<Reply<unknown>>, what: string): Promise<T> {
  const res = await r;
  if (res.status < 200 || res.status > 299) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as T;
}

/** A deposit address of the account for the asset, then the transfer, with a deposit rule (matched by the address) added in between. */
async function landWith(
  sim: Sim,
  account: Account,
  asset_key: string,
  atoms: bigint,
  rule: Extract<FaultRuleInput, { target: 'deposit' }>['effect'] | null,
  all_rules: string[],
): Promise<string> {
  const da = (await must(sim.api('POST', `/accounts/${account.account_id}/deposit-addresses`, { body: { asset_key } }), 'deposit address'))
    .deposit_address;
  if (rule) await addRule(sim, all_rules, { target: 'deposit', effect: rule, match: { ids: [da.deposit_address_id] }, times: 1 });
  return (await sim.deposit({ deposit_address_id: da.deposit_address_id, atoms: atoms.toString() })).tx_hash;
}

/** How many of the run's deposits are pending (detected, not resolved) and flagged, as the control plane lists them. */
async function depositStates(sim: Sim, run: VerifyRun): Promise<{ pending: number; flagged: number }> {
  const r = await sim.control<{ deposits: Array<{ account_id?: string; status: string }> }>('GET', '/deposits');
  const mine = (r.body.deposits ?? []).filter((d) => d.account_id === undefined || run.account_ids.includes(d.account_id));
  return { pending: mine.filter((d) => d.status === 'pending').length, flagged: mine.filter((d) => d.status === 'flagged').length };
}

/**
 * An account whose credits are all spent (a cancel moves a whole credit) gets a fresh deposit of its funding
 * asset first, so an operation the plan puts after a cancel still runs and reaches its coverage item.
 */
async function topUp(sim: Sim, account: Account, funding: AccountSetup | undefined, force = false): Promise<string> {
  if (!force && (await openCredits(sim, account.account_id)).length > 0) return '';
  const asset = assetAt(funding?.asset ?? 0);
  await depositInto(sim, account.account_id, asset.asset_key, BigInt(TOP_UP_USD) * asset.atoms_per_usd);
  await sim.advance(20_000);
  return `topped up with ${TOP_UP_USD} USD of ${asset.asset_key} (no open credit left), `;
}

const TOP_UP_USD = 1_000;
/** How long a probe waits for retried deliveries to go before it gives up on a quiet point (a held deposit stays pending an hour). */
const PROBE_WAIT_MS = 2_700_000;

async function pendingDeliveries(sim: Sim, webhook_id: string): Promise<number> {
  return (await listAll(sim, `/webhooks/${webhook_id}/deliveries?status=pending`, 'deliveries')).length;
}

const ENDED = new Set(['settled', 'failed', 'confirmed']);

/** Trades, zaps and cancels of the run's accounts that have not ended (a zap awaiting its deposit included). */
async function operationsInFlight(sim: Sim, run: VerifyRun): Promise<number> {
  // The truth reads GET /trades/{id} and /cancels/{id}: with API faults on those paths (the app's), verify would
  // meet them itself; and while they are on a probe compares nothing anyway (lane.ts), so there is nothing to wait for.
  if (run.api_rule_ids.length > 0) return 0;
  let n = 0;
  for (const account_id of run.account_ids) {
    const t = await sim.truth(account_id);
    n += [...t.trades, ...t.zaps, ...t.cancels].filter((e) => !ENDED.has(e.status)).length;
  }
  return n;
}

/**
 * Runs an operation on credit #k, then on the next ones while the credit it picked is still held by an earlier
 * operation (a settlement timeout holds its credit for 10 min): the credit index is where the search starts.
 */
async function onFreeCredit(
  sim: Sim,
  account: Account,
  funding: AccountSetup | undefined,
  k: number,
  op: (credit: number) => Promise<string>,
): Promise<string> {
  let note = '';
  for (let round = 0; round < 2; round++) {
    const n = Math.max(1, (await openCredits(sim, account.account_id)).length);
    for (let i = 0; i < n; i++) {
      note = await op(k + i);
      // Held by an earlier operation, or too small to trade (a share of a small credit under the 1 USD floor).
      if (!note.includes('credit_in_use') && !note.includes('insufficient_liquidity')) return round === 0 ? note : `${TOPPED} ${note}`;
    }
    // Every open credit is held by an earlier operation: a fresh deposit, then the search again.
    if (round === 0) await topUp(sim, account, funding, true);
  }
  return note;
}

const TOPPED = `topped up with ${TOP_UP_USD} USD (every open credit was held or too small),`;
const REACTIVATE_AFTER_MS = 60_000;
const STALE_BY_MS = 600_000;
const ZAP_EXPIRY_MS = 600_000;

async function runStep(
  sim: Sim,
  accounts: Account[],
  s: VStep,
  step: number,
  run: VerifyRun,
  hooks: RunHooks,
  all_rules: string[],
  funding: AccountSetup[],
): Promise<string> {
  const account = 'account' in s ? accounts[s.account % accounts.length] : accounts[0];
  const fund = funding['account' in s ? s.account % accounts.length : 0];
  let topped = '';
  if (s.kind === 'trade' || s.kind === 'zap' || s.kind === 'cancel' || s.kind === 'recover') {
    // Every operation starts once the account's earlier ones have ended (3 min of sim time): its credit is free,
    // a webhook rule (matched by account and event type) can only meet its own events, and a credit an earlier
    // cancel was moving is gone before the top-up looks.
    await sim.advance(QUIET_MS);
    topped = await topUp(sim, account, fund);
  }
  return topped + (await doStep(sim, account, fund, s, step, run, hooks, all_rules));
}

async function doStep(
  sim: Sim,
  account: Account,
  fund: AccountSetup | undefined,
  s: VStep,
  step: number,
  run: VerifyRun,
  hooks: RunHooks,
  all_rules: string[],
): Promise<string> {
  const match = { account_id: account.account_id };
  switch (s.kind) {
    case 'deposit': {
      const asset = assetAt(s.asset);
      const atoms = BigInt(s.usd) * asset.atoms_per_usd;
      if (!s.flag && !s.hold) return `deposit ${await depositInto(sim, account.account_id, asset.asset_key, atoms)}`;
      // Held an hour before its checks start: pending through the probe that follows.
      const tx = await landWith(sim, account, asset.asset_key, atoms, s.flag ? { flag: s.flag } : { delay_ms: 3_600_000 }, all_rules);
      return `deposit ${tx}${s.flag ? ` (to be flagged: ${s.flag})` : ' (held pending)'}`;
    }
    case 'zap_deposit': {
      const from = assetAt(s.asset);
      const outs = SCENARIO_ASSETS.filter((x) => x.asset_key !== from.asset_key);
      const to = outs[s.destination % outs.length].asset_key;
      const destination_id = await destinationFor(sim, account, to);
      const atoms = BigInt(s.usd) * from.atoms_per_usd;
      const body: Record<string, unknown> = {
        account_id: account.account_id,
        destination_id,
        from_asset_key: from.asset_key,
        to_asset_key: to,
        amount_in_atoms: atoms.toString(),
        min_amount_out_atoms: '0',
      };
      if (s.expires) body.expires_at_ms = (await sim.now_ms()) + ZAP_EXPIRY_MS;
      const res = await sim.api<{ zap: { zap_id: string; deposit_address?: { deposit_address_id: string } } }>('POST', '/zaps', { body });
      if (res.status !== 200) return `skipped: ${res.status} ${JSON.stringify(res.body)}`;
      const z = res.body.zap;
      run.zaps.push(z.zap_id);
      const extras: string[] = [];
      if (s.fault) {
        const fault_id = await addRule(sim, all_rules, {
          target: 'zap',
          effect: s.fault,
          match: { ids: [z.zap_id] },
          times: 1,
        } as FaultRuleInput);
        run.op_rules.push({ fault_id, step, what: `${JSON.stringify(s.fault)} on ${z.zap_id}` });
        extras.push(`fault ${fault_id}`);
      }
      const da = z.deposit_address?.deposit_address_id;
      if (!da || s.funding === 'none') return [`zap ${z.zap_id}, awaiting a deposit that never comes`, ...extras].join(', ');
      if (s.funding === 'flagged')
        extras.push(
          `flag ${await addRule(sim, all_rules, { target: 'deposit', effect: { flag: 'sanctions_match' }, match: { ids: [da] }, times: 1 })}`,
        );
      if (s.funding === 'dropped')
        extras.push(
          `drop ${await addRule(sim, all_rules, { target: 'deposit', effect: { fail: 'deposit_insufficient_confirmations' }, match: { ids: [da] }, times: 1 })}`,
        );
      if (s.funding === 'other_asset') {
        const instead = assetAt(otherAssetOnChain(s.asset));
        await sim.deposit({
          deposit_address_id: da,
          atoms: (BigInt(s.usd) * instead.atoms_per_usd).toString(),
          asset_key: instead.asset_key,
        });
      } else await sim.deposit({ deposit_address_id: da, atoms: atoms.toString() });
      return [`zap ${z.zap_id}, deposit sent`, ...extras].join(', ');
    }
    case 'recover': {
      const before = run.zaps.length;
      const note = await onFreeCredit(sim, account, fund, 0, (credit) =>
        zap(sim, account, { kind: 'zap', account: s.account, credit, destination: 0, fraction_bps: 10_000, floor: 'none' }, run),
      );
      if (run.zaps.length === before) return note;
      const zap_id = run.zaps[run.zaps.length - 1];
      await addRule(sim, all_rules, { target: 'zap', effect: { fail: 'execution_failed' }, match: { ids: [zap_id] }, times: 1 });
      await sim.advance(60_000);
      const failed = (
        await must<{ zap: { status: string; recovery?: { recovery_id: string; credit_id: string } } }>(
          sim.api('GET', `/zaps/${zap_id}`),
          'zap',
        )
      ).zap;
      if (!failed.recovery) return `${note}, ended ${failed.status} with no recovery`;
      const { recovery_id, credit_id } = failed.recovery;
      await must(sim.api('PATCH', `/accounts/${account.account_id}`, { body: { email: `verify-${s.account}@example.test` } }), 'email');
      await must(
        sim.api('POST', `/recoveries/${recovery_id}/activate`, { body: { account_id: account.account_id, credit_id } }),
        'activate',
      );
      const otp = (await sim.emails(account.account_id)).filter((e) => e.purpose.includes('recover')).at(-1)?.otp_code;
      if (!otp) return `${note}, recovery ${recovery_id} activated but no OTP was emailed`;
      if (s.fault) {
        const fault_id = await addRule(sim, all_rules, {
          target: 'recovery',
          effect: s.fault,
          match: { ids: [recovery_id] },
          times: 1,
        } as FaultRuleInput);
        run.op_rules.push({ fault_id, step, what: `${JSON.stringify(s.fault)} on ${recovery_id}` });
      }
      const credit = (await openCredits(sim, account.account_id)).find((c) => c.credit_id === credit_id);
      const claim = await sim.api<{ recovery: { cancel_id?: string } }>('POST', '/public/recover-funds', {
        body: {
          account_id: account.account_id,
          credit_id,
          otp_code: otp,
          destination: {
            address: DESTINATION_ADDRESS.get(credit?.asset_key ?? '') ?? DESTINATION_ADDRESS.get(SCENARIO_ASSETS[0].asset_key),
          },
        },
      });
      if (claim.status !== 202)
        return `${note}, recovery ${recovery_id}: recover-funds answered ${claim.status} ${JSON.stringify(claim.body)}`;
      run.recoveries.push(recovery_id);
      return `${note}, recovery ${recovery_id} claimed (payout ${claim.body.recovery.cancel_id})`;
    }
    case 'suspend': {
      const credits = await openCredits(sim, account.account_id);
      const destination_id = await destinationFor(sim, account, credits[0]?.asset_key ?? SCENARIO_ASSETS[1].asset_key);
      await must(sim.control('POST', `/destinations/${destination_id}/suspend`, { reason: 'delta_screening' }), 'suspend');
      if (!s.reactivate) return `destination ${destination_id} suspended`;
      await sim.advance(REACTIVATE_AFTER_MS);
      await must(sim.control('POST', `/destinations/${destination_id}/reactivate`, {}), 'reactivate');
      return `destination ${destination_id} suspended, then reactivated`;
    }
    case 'stale': {
      const held = hooks.relay.lastSigned(account.account_id);
      if (!held) return 'skipped: no delivery to re-send yet';
      const timestamp_ms = WALL.now_ms() + (s.when === 'stale' ? -STALE_BY_MS : STALE_BY_MS);
      (hooks.pending ??= []).push(
        hooks.relay.resendAt(held, timestamp_ms).then((record) => run.stale.push({ step, when: s.when, record })),
      );
      return `${held.event_id} (${held.event_type}) re-sent with a ${s.when} Svc-Timestamp`;
    }
    case 'trade':
    case 'zap': {
      const list = s.kind === 'trade' ? run.trades : run.zaps;
      const before = list.length;
      const note = await onFreeCredit(sim, account, fund, s.credit, (credit) =>
        s.kind === 'trade' ? trade(sim, account, { ...s, credit }, run) : zap(sim, account, { ...s, credit }, run),
      );
      if (list.length === before) return note;
      const id = list[list.length - 1];
      const family = s.kind;
      const extras: string[] = [];
      if (s.fault) {
        const fault_id = await addRule(sim, all_rules, {
          target: family,
          effect: s.fault,
          match: { ids: [id] },
          times: 1,
        } as FaultRuleInput); // fault codes drawn from FAIL_CODES[family]
        run.op_rules.push({ fault_id, step, what: `${JSON.stringify(s.fault)} on ${id}` });
        extras.push(`fault ${fault_id}`);
      }
      // Webhook rules cannot name an entity, only an account and an event type: the operation just created
      // is the account's only one of its kind in flight when the theme puts it there.
      if (s.late)
        extras.push(
          `late ${await addWebhookRule(sim, run, 'late', { target: 'webhook', effect: { delay_ms: LATE_DELAY_MS }, match: { ...match, event_type: `${family}.${s.late}` }, times: 1 })}`,
        );
      if (s.reverse) {
        for (const [news, delay_ms] of [
          ['executing', 180_000],
          ['filled', 120_000],
          ['pending_settle', 60_000],
        ] as const) {
          extras.push(
            `${news} ${await addWebhookRule(sim, run, 'late', { target: 'webhook', effect: { delay_ms }, match: { ...match, event_type: `${family}.${news}` }, times: 1 })}`,
          );
        }
      }
      if (s.dup)
        extras.push(
          `dup ${await addWebhookRule(sim, run, 'duplicate', { target: 'webhook', effect: { webhook: 'duplicate' }, match: { ...match, event_type: `${family}.*` }, times: 6 })}`,
        );
      return [note, ...extras].join(', ');
    }
    case 'cancel': {
      const before = run.cancels.length;
      const note = await onFreeCredit(sim, account, fund, s.credit, (credit) => cancel(sim, account, { ...s, credit }, run));
      if (s.fault && run.cancels.length > before) {
        const id = run.cancels[run.cancels.length - 1];
        const fault_id = await addRule(sim, all_rules, {
          target: 'cancel',
          effect: s.fault,
          match: { ids: [id] },
          times: 1,
        } as FaultRuleInput); // fault codes drawn from FAIL_CODES.cancel
        run.op_rules.push({ fault_id, step, what: `${JSON.stringify(s.fault)} on ${id}` });
        return `${note}, fault ${fault_id}`;
      }
      return note;
    }
    case 'advance':
      await sim.advance(s.ms);
      return 'advanced';
    case 'chaos':
      return `fault ${await addWebhookRule(sim, run, s.effect.startsWith('delay') ? 'delay' : s.effect, { target: 'webhook', effect: WEBHOOK_EFFECT[s.effect], match: { ...match, event_type: s.event_type }, times: s.times })}`;
    case 'concurrent':
      hooks.relay.concurrentCopies(account.account_id, s.event_type, s.times);
      return 'concurrent copies planned';
    case 'outage': {
      const id = await addWebhookRule(sim, run, 'outage', { target: 'webhook', effect: { webhook: 'drop' }, match });
      await sim.advance(s.hours * 3_600_000);
      await sim.faults.remove(id);
      return `outage ${id} over`;
    }
    case 'forge': {
      // Not awaited: a slow handler's answer overlaps the rest of the run (collected before judging).
      const sending = forge(
        sim,
        { url: hooks.app_webhook_url, secret: hooks.secret, header_prefix: hooks.header_prefix, signal: hooks.cut_signal },
        account,
        { ...s, at: 0 },
        step,
      ).then((forged: ForgedDelivery) => {
        run.forged.push(forged);
      });
      (hooks.pending ??= []).push(sending);
      return 'forged delivery posted to the app';
    }
    case 'rotate': {
      // The last delivery the app got for this account, as signed (with the secret about to be replaced).
      const held = hooks.relay.lastSigned(account.account_id);
      const rotated = await sim.api('POST', `/webhooks/${hooks.webhook_id}/rotate-secret`, { body: {} });
      if (rotated.status !== 200) throw new Error(`rotate-secret: ${rotated.status} ${JSON.stringify(rotated.body)}`);
      const secret = rotated.body.webhook.secret;
      if (secret === undefined) throw new Error('rotate-secret answered no secret');
      hooks.secret = secret;
      hooks.relay.setSecret(hooks.secret);
      await hooks.configure(hooks.secret);
      run.rotations++;
      if (!held) return 'rotated; no earlier delivery to re-send';
      (hooks.pending ??= []).push(hooks.relay.resend(held).then((record) => run.previous_secret.push({ step, record })));
      return `rotated; ${held.event_id} (${held.event_type}) re-sent signed with the previous secret`;
    }
    case 'restart':
      await hooks.configure(hooks.secret);
      run.restarts++;
      return 'app re-configured';
    case 'probe': {
      await Promise.all(hooks.pending ?? []);
      // A quiet point: past the answer slot, then on until retried deliveries have gone (at most PROBE_WAIT_MS, inside a held deposit's hour).
      // Operations always end (their timers are the provider's); deliveries an app keeps refusing never do: stop
      // waiting for those once three rounds went by without fewer pending (a dropped one's retry comes 10 min on).
      let waited = 0;
      let pending = Infinity;
      let stalled = 0;
      for (;;) {
        await sim.advance(Math.max(QUIET_MS, hooks.answer_slot_ms + 60_000));
        waited += Math.max(QUIET_MS, hooks.answer_slot_ms + 60_000);
        const now_pending = await pendingDeliveries(sim, hooks.webhook_id);
        stalled = now_pending > 0 && now_pending >= pending ? stalled + 1 : 0;
        if (waited >= PROBE_WAIT_MS || hooks.cut_signal?.aborted || stalled >= 3) break;
        if (now_pending === 0 && (await operationsInFlight(sim, run)) === 0) break;
        pending = Math.min(pending, now_pending);
      }
      const deposits = await depositStates(sim, run);
      const note = await hooks.probe(step, run);
      run.probes.push({
        step,
        compared: note.startsWith('quiet point:'),
        pending_deposits: deposits.pending,
        flagged_deposits: deposits.flagged,
      });
      return note;
    }
    case 'api_fault': {
      const ids: string[] = [];
      for (const path of APP_READ_PATHS) {
        const id = await addRule(sim, run.api_rule_ids, {
          target: 'http',
          effect: apiEffect(s.fault),
          match: { method: 'GET', path },
          times: s.times,
        });
        run.api_rule_kinds[id] = s.fault;
        ids.push(id);
      }
      return `api faults ${ids.join(', ')}`;
    }
  }
}

const CUT_NOTE = 'not run: the run was cut before this step (it and the ones after it)';

export async function runVerifyScenario(sim: Sim, s: VerifyScenario, hooks: RunHooks): Promise<VerifyRun> {
  const run: VerifyRun = {
    account_ids: [],
    lines: describeScenario(s),
    notes: [],
    forged: [],
    trades: [],
    zaps: [],
    cancels: [],
    started_at_ms: await sim.now_ms(),
    webhook_rule_ids: [],
    background_rule_ids: [],
    api_rule_ids: [],
    op_rules: [],
    previous_secret: [],
    stale: [],
    restarts: 0,
    rotations: 0,
    rule_effects: {},
    api_rule_kinds: {},
    probes: [],
    recoveries: [],
  };
  const all_rules: string[] = [];
  const lead = leadingRules(s.steps);
  const offset = run.lines.length - s.steps.length;
  /** Once the run is cut, its remaining steps are not run (and say so once). */
  const cutShort = (i: number): boolean => {
    if (!hooks.cut_signal?.aborted) return false;
    if (!run.notes.some((n) => n.endsWith(CUT_NOTE))) run.notes.push(`${offset + i + 1}. ${CUT_NOTE}`);
    return true;
  };
  try {
    const accounts = await setupAccounts(sim, s, run, async (accounts) => {
      for (const [kind, p] of Object.entries(s.background)) {
        if (p <= 0) continue;
        for (const a of accounts)
          run.rule_effects[
            await addRule(sim, run.background_rule_ids, {
              target: 'webhook',
              effect: WEBHOOK_EFFECT[kind],
              match: { account_id: a.account_id },
              probability: p,
            })
          ] = kind;
      }
      for (let i = 0; i < lead && !cutShort(i); i++)
        run.notes.push(`${offset + i + 1}. ${await runStep(sim, accounts, s.steps[i], offset + i + 1, run, hooks, all_rules, s.accounts)}`);
    });
    for (let i = lead; i < s.steps.length && !cutShort(i); i++)
      run.notes.push(`${offset + i + 1}. ${await runStep(sim, accounts, s.steps[i], offset + i + 1, run, hooks, all_rules, s.accounts)}`);
  } finally {
    // A cut run's verdict is already decided (the handler that did not answer, or the wall-time limit): playing
    // out its hour and 72 h of retries against the relay's 503s would only cost wall time (about 15 s a run).
    // Its API faults still come off: they match the feed's paths, which verify then reads to judge the run.
    if (!hooks.cut_signal?.aborted)
      await quiesce(sim, [...all_rules, ...run.webhook_rule_ids, ...run.background_rule_ids, ...run.api_rule_ids]);
    else for (const id of run.api_rule_ids) await sim.faults.remove(id);
    await Promise.all(hooks.pending ?? []);
  }
  return run;
}
