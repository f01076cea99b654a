// Runs a generated scenario against a sim over HTTP: setup (fresh accounts, destinations, funding), the
// background chaos rules, each step in order, then quiescence: every rule this run added is removed and the
// clock settled, so every operation ends and every pending delivery goes out (or gives up, past 72 h).
import { createHmac, randomBytes } from 'node:crypto';
import type { FaultRuleInput, Reply, Sim } from '../../lib/sim.ts';
import { errorCode } from '../../lib/http-client.ts';
import { WALL } from '../../sim/wall.ts';
import { deriveWallet, type WalletChain } from '../../fake-provider/resources/accounts/wallets.ts';
import { assetByKey } from '../../fake-provider/resources/assets/catalog.ts';
import {
  assetAt,
  describeBackground,
  describeSetup,
  describeStep,
  SCENARIO_ASSETS,
  type AccountSetup,
  type BackgroundChaos,
  type ChaosStep,
  type FaultStep,
  type JourneyStep,
  type Step,
} from './steps.ts';

export interface ScenarioParts {
  accounts: AccountSetup[];
  steps: JourneyStep[];
  faults: FaultStep[];
  chaos: { background: BackgroundChaos; items: ChaosStep[] };
}

/** Where forged deliveries go, and how real ones are signed (to forge a plausible one). */
export interface WebhookTarget {
  url: string;
  secret: string;
  header_prefix?: string;
  /** Ends a forged delivery still waiting for its answer (verify's cut of a run whose handler is too slow). */
  signal?: AbortSignal;
}

export interface ForgedDelivery {
  step: number;
  event_id: string;
  account_id: string;
  forgery: string;
  /** The status the receiver answered (0: no answer). A correct receiver answers 401. */
  answered: number;
}

export interface JourneyRun {
  account_ids: string[];
  /** The numbered, readable scenario (setup, background, steps), as run. */
  lines: string[];
  /** Per step: what happened (ids created, or why it was skipped). */
  notes: string[];
  forged: ForgedDelivery[];
  trades: string[];
  zaps: string[];
  cancels: string[];
}

export interface Account {
  account_id: string;
  /** asset_key → destination_id, registered the first time a step needs one (each costs a screening). */
  destinations: Map<string, string>;
}

/** The journey steps with fault and chaos items inserted before journey position `at % (n + 1)`. */
export function mergeSteps(parts: Pick<ScenarioParts, 'steps' | 'faults' | 'chaos'>): Step[] {
  const slots: Step[][] = parts.steps.map(() => []);
  slots.push([]);
  for (const item of [...parts.faults, ...parts.chaos.items]) slots[item.at % slots.length].push(item);
  return slots.flatMap((inserted, i) => (i < parts.steps.length ? [...inserted, parts.steps[i]] : inserted));
}

/** The scenario as numbered lines: setup, background chaos, then every step. */
export function scenarioLines(parts: ScenarioParts): string[] {
  const lines = parts.accounts.map(describeSetup);
  const background = describeBackground(parts.chaos.background);
  if (background) lines.push(background);
  lines.push(...mergeSteps(parts).map((s) => describeStep(s, parts.accounts.length)));
  return lines.map((l, i) => `${i + 1}. ${l}`);
}

function must<T = any>(r: Reply, what: string): T {
  if (r.status < 200 || r.status > 299) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as T;
}

/** One real-format destination address per scenario asset, derived once from a fixed seed (accounts may share them). */
export const DESTINATION_ADDRESS: ReadonlyMap<string, string> = new Map(
  SCENARIO_ASSETS.map(({ asset_key }) => [
    asset_key,
    deriveWallet(assetByKey(asset_key)!.chain as WalletChain, new Uint8Array(32).fill(0x5a)).address,
  ]),
);

export async function openCredits(sim: Sim, account_id: string): Promise<Array<{ credit_id: string; asset_key: string; atoms: string }>> {
  const body = must(await sim.api('GET', `/accounts/${account_id}/credits?status=open&limit=100`), 'credits');
  return body.credits;
}

export async function depositInto(sim: Sim, account_id: string, asset_key: string, atoms: bigint): Promise<string> {
  const da = must(
    await sim.api('POST', `/accounts/${account_id}/deposit-addresses`, { body: { asset_key } }),
    'deposit address',
  ).deposit_address;
  return (await sim.deposit({ deposit_address_id: da.deposit_address_id, atoms: atoms.toString() })).tx_hash;
}

async function setup(sim: Sim, accounts: AccountSetup[], run_label: string): Promise<Account[]> {
  const out: Account[] = [];
  for (let i = 0; i < accounts.length; i++) {
    const created = must(await sim.api('POST', '/accounts', { body: { label: `${run_label}-${i}` } }), 'create account');
    out.push({ account_id: created.account.account_id, destinations: new Map() });
  }
  await sim.advance(5_000); // wallets are derived a few sim-seconds after creation (the last chain at 3 s)
  for (const [i, a] of out.entries()) {
    const asset = assetAt(accounts[i].asset);
    await depositInto(sim, a.account_id, asset.asset_key, BigInt(accounts[i].usd) * asset.atoms_per_usd);
  }
  await sim.advance(20_000); // finality and screening of the funding deposits (fast chains)
  return out;
}

export async function destinationFor(sim: Sim, a: Account, asset_key: string): Promise<string> {
  let id = a.destinations.get(asset_key);
  if (id === undefined) {
    const d = must(
      await sim.api('POST', `/accounts/${a.account_id}/destinations`, { body: { asset_key, address: DESTINATION_ADDRESS.get(asset_key) } }),
      'destination',
    );
    a.destinations.set(asset_key, (id = d.destination.destination_id as string));
  }
  return id;
}

/** The output side of a trade or zap: the `pick`-th scenario asset other than `from`, and a destination for it. */
async function outputFor(sim: Sim, a: Account, from: string, pick: number): Promise<[string, string]> {
  const outs = SCENARIO_ASSETS.filter((x) => x.asset_key !== from);
  const to = outs[pick % outs.length].asset_key;
  return [to, await destinationFor(sim, a, to)];
}

const refused = (r: Reply<unknown>): string => `skipped: ${r.status} ${errorCode(r.body) ?? ''}`.trim();

/** What a trade or credit-funded zap spends: an open credit (by index), a share of it, and an output. */
async function pickSpend(sim: Sim, a: Account, s: { credit: number; destination: number; fraction_bps: number }) {
  const credits = await openCredits(sim, a.account_id);
  if (credits.length === 0) return null;
  const credit = credits[s.credit % credits.length];
  const [to_asset, destination_id] = await outputFor(sim, a, credit.asset_key, s.destination);
  return { credit, to_asset, destination_id, amount: (BigInt(credit.atoms) * BigInt(s.fraction_bps)) / 10_000n || 1n };
}

export async function trade(sim: Sim, a: Account, s: Extract<JourneyStep, { kind: 'trade' }>, run: JourneyRun): Promise<string> {
  const pick = await pickSpend(sim, a, s);
  if (!pick) return 'skipped: no open credit';
  const { credit, to_asset, destination_id, amount } = pick;
  const body = {
    account_id: a.account_id,
    credit_id: credit.credit_id,
    destination_id,
    from_asset_key: credit.asset_key,
    to_asset_key: to_asset,
    side: 'exact_in',
    amount_in_atoms: amount.toString(),
    mode: 'firm',
    ttl_ms: 30_000,
  };
  const res = await sim.api('POST', '/rfqs', { body });
  if (res.status !== 200 && res.status !== 202) return refused(res);
  let rfq = res.body.rfq;
  for (let i = 0; rfq.status !== 'ready' && i < 20; i++) {
    await sim.advance(rfq.poll_after_ms ?? 250);
    const poll = await sim.api('GET', `/rfqs/${rfq.rfq_id}`);
    if (poll.status !== 200) return refused(poll);
    rfq = poll.body.rfq;
  }
  if (rfq.status !== 'ready') return `skipped: rfq ${rfq.rfq_id} never ready`;
  const accepted = await sim.api('POST', `/quotes/${rfq.best_quote_id}/accept`, { body: { slippage_bps: '100' } });
  if (accepted.status !== 200) return refused(accepted);
  run.trades.push(accepted.body.trade.trade_id);
  return `trade ${accepted.body.trade.trade_id}`;
}

export async function zap(sim: Sim, a: Account, s: Extract<JourneyStep, { kind: 'zap' }>, run: JourneyRun): Promise<string> {
  const pick = await pickSpend(sim, a, s);
  if (!pick) return 'skipped: no open credit';
  const { credit, to_asset, destination_id, amount } = pick;
  const res = await sim.api('POST', '/zaps', {
    body: {
      account_id: a.account_id,
      credit_id: credit.credit_id,
      destination_id,
      from_asset_key: credit.asset_key,
      to_asset_key: to_asset,
      amount_in_atoms: amount.toString(),
      min_amount_out_atoms: s.floor === 'unreachable' ? `1${'0'.repeat(30)}` : '0',
    },
  });
  if (res.status !== 200) return refused(res);
  run.zaps.push(res.body.zap.zap_id);
  return `zap ${res.body.zap.zap_id}`;
}

async function zapFromDeposit(sim: Sim, a: Account, s: Extract<JourneyStep, { kind: 'zap_deposit' }>, run: JourneyRun): Promise<string> {
  const from = assetAt(s.asset);
  const [to_asset, destination_id] = await outputFor(sim, a, from.asset_key, s.destination);
  const atoms = BigInt(s.usd) * from.atoms_per_usd;
  const res = await sim.api('POST', '/zaps', {
    body: {
      account_id: a.account_id,
      destination_id,
      from_asset_key: from.asset_key,
      to_asset_key: to_asset,
      amount_in_atoms: atoms.toString(),
      min_amount_out_atoms: '0',
    },
  });
  if (res.status !== 200) return refused(res);
  const z = res.body.zap;
  run.zaps.push(z.zap_id);
  if (!z.deposit_address) return `zap ${z.zap_id} answered no deposit address`;
  await sim.deposit({ deposit_address_id: z.deposit_address.deposit_address_id, atoms: atoms.toString() });
  return `zap ${z.zap_id}, deposit sent`;
}

export async function cancel(sim: Sim, a: Account, s: Extract<JourneyStep, { kind: 'cancel' }>, run: JourneyRun): Promise<string> {
  const credits = await openCredits(sim, a.account_id);
  if (credits.length === 0) return 'skipped: no open credit';
  const credit = credits[s.credit % credits.length];
  const res = await sim.api('POST', '/cancels', {
    body: { account_id: a.account_id, credit_id: credit.credit_id, destination_id: await destinationFor(sim, a, credit.asset_key) },
  });
  if (res.status !== 200) return refused(res);
  run.cancels.push(res.body.cancel.cancel_id);
  return `cancel ${res.body.cancel.cancel_id}`;
}

export const WEBHOOK_EFFECT: Record<string, Extract<FaultRuleInput, { target: 'webhook' }>['effect']> = {
  duplicate: { webhook: 'duplicate' },
  reorder: { webhook: 'reorder' },
  drop: { webhook: 'drop' },
  bad_signature: { webhook: 'bad_signature' },
  delay_60s: { delay_ms: 60_000 },
  delay_10min: { delay_ms: 600_000 },
  delay: { delay_ms: 45_000 },
};

/** A delivery the provider never sent: a plausible envelope, signed wrongly (or not at all). */
export async function forge(
  sim: Sim,
  target: WebhookTarget,
  a: Account,
  s: Extract<ChaosStep, { kind: 'forge' }>,
  step: number,
): Promise<ForgedDelivery> {
  const now_ms = await sim.now_ms();
  // Stamped as the provider stamps a real attempt (wall time), so only the signature gives it away.
  const stamp_ms = WALL.now_ms();
  const event_id = `evt_forged_${randomBytes(6).toString('hex')}`;
  const data: Record<string, unknown> =
    s.event === 'credit.created'
      ? {
          credit_id: `crd_forged_${randomBytes(4).toString('hex')}`,
          asset_key: SCENARIO_ASSETS[0].asset_key,
          atoms: '777000000000000000',
          source_type: 'deposit',
        }
      : {
          trade_id: `trd_forged_${randomBytes(4).toString('hex')}`,
          quote_id: `qt_forged_${randomBytes(4).toString('hex')}`,
          client_order_id: null,
        };
  const body = JSON.stringify({ event_id, type: s.event, created_at_ms: now_ms, account_id: a.account_id, data });
  const timestamp = String(stamp_ms);
  const sign = (secret: string, text: string): string => `v1=${createHmac('sha256', secret).update(`${timestamp}.${text}`).digest('hex')}`;
  const p = target.header_prefix ?? 'Svc';
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    [`${p}-Event-Id`]: event_id,
    [`${p}-Delivery-Id`]: `dlv_forged_${randomBytes(4).toString('hex')}`,
    [`${p}-Timestamp`]: timestamp,
  };
  let sent = body;
  if (s.forgery === 'wrong_secret') headers[`${p}-Signature`] = sign(`whsec_${randomBytes(32).toString('hex')}`, body);
  if (s.forgery === 'tampered_body') {
    // Signed correctly, then changed in transit: the signature no longer covers what arrives.
    headers[`${p}-Signature`] = sign(target.secret, body);
    sent = body.replace(/"atoms":"7/, '"atoms":"9').replace(/"quote_id":"qt_/, '"quote_id":"qx_');
  }
  let answered = 0;
  try {
    const bound = AbortSignal.timeout(10_000);
    const res = await fetch(target.url, {
      method: 'POST',
      headers,
      body: sent,
      signal: target.signal ? AbortSignal.any([target.signal, bound]) : bound,
    });
    await res.arrayBuffer();
    answered = res.status;
  } catch {
    answered = 0;
  }
  return { step, event_id, account_id: a.account_id, forgery: s.forgery, answered };
}

async function runStep(
  sim: Sim,
  accounts: Account[],
  s: Step,
  step: number,
  run: JourneyRun,
  ctx: { target?: WebhookTarget; rule_ids: string[] },
): Promise<string> {
  const account = 'account' in s ? accounts[s.account % accounts.length] : accounts[0];
  const match = { account_id: account.account_id };
  switch (s.kind) {
    case 'deposit': {
      const asset = assetAt(s.asset);
      return `deposit ${await depositInto(sim, account.account_id, asset.asset_key, BigInt(s.usd) * asset.atoms_per_usd)}`;
    }
    case 'trade':
      return trade(sim, account, s, run);
    case 'zap':
      return zap(sim, account, s, run);
    case 'zap_deposit':
      return zapFromDeposit(sim, account, s, run);
    case 'cancel':
      return cancel(sim, account, s, run);
    case 'advance':
      await sim.advance(s.ms);
      return 'advanced';
    case 'fault': {
      const { kind: _kind, at: _at, account: _account, ...generated } = s;
      const rule = await sim.faults.add({ ...generated, match, times: 1 });
      ctx.rule_ids.push(rule.fault_id);
      return `fault ${rule.fault_id}`;
    }
    case 'chaos': {
      const rule = await sim.faults.add({
        target: 'webhook',
        effect: WEBHOOK_EFFECT[s.effect],
        match: { ...match, event_type: s.event_type },
        times: s.times,
      });
      ctx.rule_ids.push(rule.fault_id);
      return `fault ${rule.fault_id}`;
    }
    case 'outage': {
      const rule = await sim.faults.add({ target: 'webhook', effect: { webhook: 'drop' }, match });
      ctx.rule_ids.push(rule.fault_id); // removed by quiescence too, should the advance fail
      await sim.advance(s.hours * 3_600_000);
      await sim.faults.remove(rule.fault_id);
      return `outage ${rule.fault_id} over`;
    }
    case 'forge': {
      if (!ctx.target) return 'skipped: no webhook target';
      const forged = await forge(sim, ctx.target, account, s, step);
      run.forged.push(forged);
      return `forged ${forged.event_id}, answered ${forged.answered}`;
    }
  }
}

/** Sim time the run plays out with its rules still on: in-flight operations meet their faults (a reorg comes
 *  30 s after settlement, a settlement timeout 10 min past finality, delays add up to 30 min). */
const PLAY_OUT_MS = 3_600_000;

/**
 * Quiescence: the run plays out for PLAY_OUT_MS with its rules on, then they are removed and the clock settles
 * until no work remains: every operation has ended and every pending delivery has gone out (or given up).
 */
export async function quiesce(sim: Sim, rule_ids: string[]): Promise<void> {
  await sim.advance(PLAY_OUT_MS);
  for (const id of rule_ids) await sim.faults.remove(id);
  rule_ids.length = 0;
  for (let i = 0; i < 5; i++) {
    const r = must(await sim.control('POST', '/clock/settle', {}), 'settle');
    if (!r.pending) return;
  }
}

export async function runScenario(
  sim: Sim,
  parts: ScenarioParts,
  opts: { target?: WebhookTarget; label?: string } = {},
): Promise<JourneyRun> {
  const accounts = await setup(sim, parts.accounts, opts.label ?? 'scenario');
  const run: JourneyRun = {
    account_ids: accounts.map((a) => a.account_id),
    lines: scenarioLines(parts),
    notes: [],
    forged: [],
    trades: [],
    zaps: [],
    cancels: [],
  };
  const ctx = { target: opts.target, rule_ids: [] as string[] };
  try {
    for (const [kind, p] of Object.entries(parts.chaos.background)) {
      if (p <= 0) continue;
      for (const a of accounts)
        ctx.rule_ids.push(
          (await sim.faults.add({ target: 'webhook', effect: WEBHOOK_EFFECT[kind], match: { account_id: a.account_id }, probability: p }))
            .fault_id,
        );
    }
    const steps = mergeSteps(parts);
    const offset = run.lines.length - steps.length;
    for (const [i, s] of steps.entries()) run.notes.push(`${offset + i + 1}. ${await runStep(sim, accounts, s, offset + i + 1, run, ctx)}`);
  } finally {
    await quiesce(sim, ctx.rule_ids);
  }
  return run;
}
