// Runs one verify scenario against a sim, with the app behind the relay: fresh accounts (leading webhook rules
// installed before their funding), each step with its fault tied to the operation it targets (added right
// after the operation exists, matched by its id), then quiescence (every rule removed, the clock settled).
// Records what verify injected, so the judge can tell the app's answers from verify's own doing.
import type { FaultRuleInput, Sim } from '../../lib/sim.ts';
import { assetAt } from '../arbitraries/steps.ts';
import { cancel, depositInto, forge, quiesce, trade, WEBHOOK_EFFECT, zap, type Account, type ForgedDelivery, type JourneyRun } from '../arbitraries/run.ts';
import { describeScenario, leadingRules, type ApiFaultKind, type VerifyScenario, type VStep } from './scenario.ts';
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
  restarts: number;
}

const LATE_DELAY_MS = 600_000;
/** Sim time after which every earlier operation on the scenario's fast chains has ended (reorgs included). */
const QUIET_MS = 180_000;

/** Paths only the app reads (the verifier never GETs them during a run), so API faults there hit the app's key alone. */
const APP_READ_PATHS = ['/v1/trades/*', '/v1/zaps/*', '/v1/cancels/*', '/v1/events*'];

function apiEffect(f: ApiFaultKind): Extract<FaultRuleInput, { target: 'http' }>['effect'] {
  if (f === '429') return { http_status: 429, retry_after: true };
  if (f === '429_no_retry_after') return { http_status: 429, retry_after: false };
  if (f === 'lost_response') return { lose_response: true, mode: 'reset' };
  return { http_status: Number(f) as 500 | 503 };
}

async function setupAccounts(sim: Sim, s: VerifyScenario, run: VerifyRun, before_funding: (accounts: Account[]) => Promise<void>): Promise<Account[]> {
  const accounts: Account[] = [];
  for (let i = 0; i < s.accounts.length; i++) {
    const created = await sim.api('POST', '/accounts', { body: { label: `verify-${i}` } });
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

async function runStep(sim: Sim, accounts: Account[], s: VStep, step: number, run: VerifyRun, hooks: RunHooks, all_rules: string[]): Promise<string> {
  const account = 'account' in s ? accounts[s.account % accounts.length] : accounts[0];
  const match = { account_id: account.account_id };
  switch (s.kind) {
    case 'deposit': {
      const asset = assetAt(s.asset);
      return `deposit ${await depositInto(sim, account.account_id, asset.asset_key, BigInt(s.usd) * asset.atoms_per_usd)}`;
    }
    case 'trade':
    case 'zap': {
      // A targeted operation starts once the account's earlier ones have ended: its credit is free, and
      // the webhook rules (which match by account and event type) can only meet its own events.
      if (s.fault || s.late || s.dup || s.reverse) await sim.advance(QUIET_MS);
      const list = s.kind === 'trade' ? run.trades : run.zaps;
      const before = list.length;
      const note = s.kind === 'trade' ? await trade(sim, account, s, run) : await zap(sim, account, s, run);
      if (list.length === before) return note;
      const id = list[list.length - 1];
      const family = s.kind;
      const extras: string[] = [];
      if (s.fault) {
        const fault_id = await addRule(sim, all_rules, { target: family, effect: s.fault, match: { ids: [id] }, times: 1 } as FaultRuleInput); // fault codes drawn from FAIL_CODES[family]
        run.op_rules.push({ fault_id, step, what: `${JSON.stringify(s.fault)} on ${id}` });
        extras.push(`fault ${fault_id}`);
      }
      // Webhook rules cannot name an entity, only an account and an event type: the operation just created
      // is the account's only one of its kind in flight when the theme puts it there.
      if (s.late) extras.push(`late ${await addRule(sim, run.webhook_rule_ids, { target: 'webhook', effect: { delay_ms: LATE_DELAY_MS }, match: { ...match, event_type: `${family}.${s.late}` }, times: 1 })}`);
      if (s.reverse) {
        for (const [news, delay_ms] of [['executing', 180_000], ['filled', 120_000], ['pending_settle', 60_000]] as const) {
          extras.push(`${news} ${await addRule(sim, run.webhook_rule_ids, { target: 'webhook', effect: { delay_ms }, match: { ...match, event_type: `${family}.${news}` }, times: 1 })}`);
        }
      }
      if (s.dup) extras.push(`dup ${await addRule(sim, run.webhook_rule_ids, { target: 'webhook', effect: { webhook: 'duplicate' }, match: { ...match, event_type: `${family}.*` }, times: 6 })}`);
      return [note, ...extras].join(', ');
    }
    case 'cancel': {
      if (s.fault) await sim.advance(QUIET_MS);
      const before = run.cancels.length;
      const note = await cancel(sim, account, s, run);
      if (s.fault && run.cancels.length > before) {
        const id = run.cancels[run.cancels.length - 1];
        const fault_id = await addRule(sim, all_rules, { target: 'cancel', effect: s.fault, match: { ids: [id] }, times: 1 } as FaultRuleInput); // fault codes drawn from FAIL_CODES.cancel
        run.op_rules.push({ fault_id, step, what: `${JSON.stringify(s.fault)} on ${id}` });
        return `${note}, fault ${fault_id}`;
      }
      return note;
    }
    case 'advance':
      await sim.advance(s.ms);
      return 'advanced';
    case 'chaos':
      return `fault ${await addRule(sim, run.webhook_rule_ids, { target: 'webhook', effect: WEBHOOK_EFFECT[s.effect], match: { ...match, event_type: s.event_type }, times: s.times })}`;
    case 'concurrent':
      hooks.relay.concurrentCopies(account.account_id, s.event_type, s.times);
      return 'concurrent copies planned';
    case 'outage': {
      const id = await addRule(sim, run.webhook_rule_ids, { target: 'webhook', effect: { webhook: 'drop' }, match });
      await sim.advance(s.hours * 3_600_000);
      await sim.faults.remove(id);
      return `outage ${id} over`;
    }
    case 'forge': {
      // Not awaited: a slow handler's answer overlaps the rest of the run (collected before judging).
      const sending = forge(sim, { url: hooks.app_webhook_url, secret: hooks.secret, header_prefix: hooks.header_prefix, signal: hooks.cut_signal }, account, { ...s, at: 0 }, step).then((forged: ForgedDelivery) => {
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
      if (!held) return 'rotated; no earlier delivery to re-send';
      (hooks.pending ??= []).push(hooks.relay.resend(held).then((record) => run.previous_secret.push({ step, record })));
      return `rotated; ${held.event_id} (${held.event_type}) re-sent signed with the previous secret`;
    }
    case 'restart':
      await hooks.configure(hooks.secret);
      run.restarts++;
      return 'app re-configured';
    case 'probe':
      await Promise.all(hooks.pending ?? []);
      await sim.advance(Math.max(QUIET_MS, hooks.answer_slot_ms + 60_000));
      return hooks.probe(step, run);
    case 'api_fault': {
      const ids: string[] = [];
      for (const path of APP_READ_PATHS) ids.push(await addRule(sim, run.api_rule_ids, { target: 'http', effect: apiEffect(s.fault), match: { method: 'GET', path }, times: s.times }));
      return `api faults ${ids.join(', ')}`;
    }
  }
}

export async function runVerifyScenario(sim: Sim, s: VerifyScenario, hooks: RunHooks): Promise<VerifyRun> {
  const run: VerifyRun = {
    account_ids: [], lines: describeScenario(s), notes: [], forged: [], trades: [], zaps: [], cancels: [],
    started_at_ms: await sim.now_ms(), webhook_rule_ids: [], background_rule_ids: [], api_rule_ids: [], op_rules: [], previous_secret: [], restarts: 0,
  };
  const all_rules: string[] = [];
  const lead = leadingRules(s.steps);
  const offset = run.lines.length - s.steps.length;
  try {
    const accounts = await setupAccounts(sim, s, run, async (accounts) => {
      for (const [kind, p] of Object.entries(s.background)) {
        if (p <= 0) continue;
        for (const a of accounts) await addRule(sim, run.background_rule_ids, { target: 'webhook', effect: WEBHOOK_EFFECT[kind], match: { account_id: a.account_id }, probability: p });
      }
      for (let i = 0; i < lead; i++) run.notes.push(`${offset + i + 1}. ${await runStep(sim, accounts, s.steps[i], offset + i + 1, run, hooks, all_rules)}`);
    });
    for (let i = lead; i < s.steps.length; i++) run.notes.push(`${offset + i + 1}. ${await runStep(sim, accounts, s.steps[i], offset + i + 1, run, hooks, all_rules)}`);
  } finally {
    await quiesce(sim, [...all_rules, ...run.webhook_rule_ids, ...run.background_rule_ids, ...run.api_rule_ids]);
    await Promise.all(hooks.pending ?? []);
  }
  return run;
}
