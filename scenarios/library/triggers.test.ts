// Every trigger runs in an app's own organization on one shared server (ephemeral port, virtual clock) with
// the app's webhook receiver registered; then, with the app's key, the test reads the feed, statuses and
// balances itself and checks that the receiver accepted (signed, 2xx) every event of the run's accounts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../fake-provider/server.ts';
import { acceptedEventIds, startReceiver, type Receiver } from '../dsl/webhook-receiver.ts';
import { ETH, formatTrigger, ONE_ETH, request, runTrigger, TriggerRefused, type Scenario, type TriggerRun } from '../dsl/index.ts';
import { SCENARIOS, TRIGGERS } from './index.ts';
import type { ControlBody, V1Body } from '../../lib/api-types.ts';

/** What the app must see for each trigger: event types in this order (others may come between), and codes. */
interface Expected {
  events: string[];
  /** `type: field=value` that some event of that type must carry. */
  data?: Array<[string, string, string]>;
  status?: Array<['trade' | 'zap' | 'cancel', string, string?]>;
}

const kebab = (s: string) => s.replace(/_/g, '-');
const SWAP_CODES = [
  'execution_failed',
  'settlement_failed',
  'settlement_timeout',
  'settlement_orphaned',
  'deposit_insufficient_confirmations',
];

const EXPECTED: Record<string, Expected> = {
  'trade-exact-in': {
    events: ['trade.executing', 'trade.filled', 'trade.pending_settle', 'trade.settled'],
    status: [['trade', 'settled']],
  },
  'trade-exact-out': { events: ['trade.executing', 'trade.settled'], status: [['trade', 'settled']] },
  'rfq-pending-polled': { events: ['trade.executing', 'trade.settled'], status: [['trade', 'settled']] },
  'quote-expired': { events: ['deposit.verified', 'credit.created'] },
  'indicative-quote-accepted': { events: ['trade.executing', 'trade.settled'], status: [['trade', 'settled']] },
  'deactivated-account': { events: ['account.deactivated', 'cancel.created', 'cancel.confirmed'], status: [['cancel', 'confirmed']] },
  'zap-credit-funded': { events: ['zap.executing', 'zap.filled', 'zap.pending_settle', 'zap.settled'], status: [['zap', 'settled']] },
  'zap-deposit-funded': { events: ['zap.awaiting_deposit', 'zap.executing', 'zap.settled'], status: [['zap', 'settled']] },
  'zap-from-asset-mismatch': {
    events: ['zap.awaiting_deposit', 'zap.failed'],
    data: [['zap.failed', 'failure_code', 'from_asset_mismatch']],
    status: [['zap', 'failed', 'from_asset_mismatch']],
  },
  'zap-min-amount-out-not-met': {
    events: ['zap.executing', 'zap.failed'],
    data: [['zap.failed', 'failure_code', 'min_amount_out_not_met']],
  },
  'zap-expired': { events: ['zap.failed', 'zap.awaiting_deposit', 'zap.failed'], data: [['zap.failed', 'failure_code', 'zap_expired']] },
  'zap-deposit-flagged': {
    events: ['zap.awaiting_deposit', 'deposit.flagged', 'zap.failed'],
    data: [['zap.failed', 'failure_code', 'deposit_flagged']],
  },
  'cancel-credit': { events: ['cancel.created', 'cancel.sent', 'cancel.confirmed'], status: [['cancel', 'confirmed']] },
  'cancel-broadcast-failed-retried': {
    events: ['cancel.created', 'cancel.failed', 'cancel.created', 'cancel.confirmed'],
    data: [['cancel.failed', 'failure_code', 'broadcast_failed']],
  },
  'cancel-fails-confirmation-timeout': {
    events: ['cancel.created', 'cancel.sent', 'cancel.failed'],
    data: [['cancel.failed', 'failure_code', 'confirmation_timeout']],
    status: [['cancel', 'failed', 'confirmation_timeout']],
  },
  'destination-suspended-mid-flight': {
    events: ['trade.executing', 'destination.suspended', 'destination.reactivated'],
    status: [['trade', 'settled']],
  },
  'deposit-partner-flagged': {
    events: ['deposit.pending', 'deposit.partner_screening', 'deposit.flagged'],
    data: [['deposit.flagged', 'flag_reason', 'partner_flagged']],
  },
  'deposit-partner-flag-too-late': { events: ['deposit.partner_screening', 'deposit.verified', 'credit.created'] },
  'recovery-happy-path': { events: ['recovery.created', 'zap.failed', 'recovery.claimed', 'cancel.confirmed'] },
  'recovery-wrong-otp': { events: ['recovery.created', 'recovery.claimed'] },
  'recovery-expired-otp': { events: ['recovery.created', 'recovery.claimed'] },
  'recovery-already-claimed': { events: ['recovery.created', 'recovery.claimed'] },
  'recovery-destination-screening-failed': { events: ['recovery.created', 'recovery.failed', 'recovery.claimed'] },
  'export-integrator-assisted': { events: ['account.export_initiated', 'trade.settled', 'account.key_exported'] },
  'export-user-initiated': { events: ['account.key_exported'] },
  'webhook-outage-recovered-from-feed': { events: ['trade.executing', 'trade.settled'], status: [['trade', 'settled']] },
  'webhook-duplicate-and-reordered': { events: ['trade.executing', 'trade.filled', 'trade.settled'], status: [['trade', 'settled']] },
  'rate-limit-storm': { events: [] },
  'lose-response-retry-same-key': { events: ['trade.executing', 'trade.settled'], status: [['trade', 'settled']] },
};
for (const reason of ['sanctions_match', 'high_risk_score', 'mixer_association']) {
  EXPECTED[`deposit-flagged-${kebab(reason)}`] = {
    events: ['deposit.pending', 'deposit.flagged'],
    data: [['deposit.flagged', 'flag_reason', reason]],
  };
}
for (const code of SWAP_CODES) {
  EXPECTED[`trade-fails-${kebab(code)}`] = {
    events: ['trade.executing', 'trade.failed'],
    data: [['trade.failed', 'failure_code', code]],
    status: [['trade', 'failed', code]],
  };
  EXPECTED[`zap-fails-${kebab(code)}`] = {
    events: ['zap.executing', 'recovery.created', 'zap.failed'],
    data: [['zap.failed', 'failure_code', code]],
    status: [['zap', 'failed', code]],
  };
}
for (const kind of ['trade', 'zap'] as const) {
  for (const leg of ['out', 'in'])
    EXPECTED[`${kind}-reorg-${leg}-leg`] = {
      events: [`${kind}.settled`, `${kind}.settlement_orphaned`, `${kind}.settlement_reconfirmed`],
      status: [[kind, 'settled']],
    };
}

let server: RunningServer;
const receivers: Receiver[] = [];

beforeAll(async () => {
  server = await serve({ clock: 'virtual', seed: 'triggers', port: 0 });
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  await server.close();
});

interface App {
  api_key: string;
  organization_id: string;
  receiver: Receiver;
  webhook_id: string;
  get(path: string): Promise<any>;
}

/** An app: its own organization (settings as the case needs), its receiver registered as the org's webhook. */
async function app(settings: Record<string, unknown> = {}): Promise<App> {
  const org = (await request<ControlBody<'POST', '/organizations'>>(`${server.control_url}/organizations`, 'POST', settings, {})).body
    .organization;
  const receiver = await startReceiver();
  receivers.push(receiver);
  const auth = { authorization: `Bearer ${org.api_key}` };
  const hook = await request<V1Body<'POST', '/webhooks'>>(
    `${server.base_url}/webhooks`,
    'POST',
    { url: receiver.url },
    { ...auth, 'idempotency-key': `hook-${org.organization_id}` },
  );
  expect(hook.status).toBe(200);
  receiver.secret = hook.body.webhook.secret ?? '';
  return {
    api_key: org.api_key,
    organization_id: org.organization_id,
    receiver,
    webhook_id: hook.body.webhook.webhook_id,
    get: async (path) => {
      const r = await request(`${server.base_url}${path}`, 'GET', undefined, auth);
      expect(r.status, `GET ${path}: ${JSON.stringify(r.body)}`).toBe(200);
      return r.body;
    },
  };
}

const settingsFor = (s: Scenario): Record<string, unknown> => (s.org?.partner_screening ? { partner_screening: true } : {});

/** Every event of the run's accounts since it began, read with the app's key. */
async function feed(a: App, run: TriggerRun): Promise<any[]> {
  const out: any[] = [];
  for (const account_id of run.ids.account ?? [])
    out.push(...(await a.get(`/events?account_id=${account_id}&since_ms=${run.started_sim_ms}&limit=100`)).events);
  return out.sort((x, y) => x.created_at_ms - y.created_at_ms);
}

function inOrder(seen: string[], wanted: string[]): boolean {
  let i = 0;
  for (const t of seen) if (i < wanted.length && t === wanted[i]) i++;
  return i === wanted.length;
}

async function checkSeenByApp(s: Scenario, a: App, run: TriggerRun): Promise<void> {
  const want = EXPECTED[s.name];
  expect(want, `no expectation written for trigger ${s.name}`).toBeDefined();
  const events = await feed(a, run);
  const types = events.map((e) => e.type);
  expect(inOrder(types, want.events), `${s.name}: feed ${types.join(' → ')}`).toBe(true);
  for (const [type, field, value] of want.data ?? [])
    expect(
      events.some((e) => e.type === type && e.data[field] === value),
      `${type} with ${field}=${value}`,
    ).toBe(true);
  // The app's receiver accepted (valid signature, 2xx) every event of the run, the outage's after the replay.
  const accepted = acceptedEventIds(a.receiver);
  expect(events.filter((e) => !accepted.has(e.event_id)).map((e) => e.type)).toEqual([]);
  for (const [kind, status, code] of want.status ?? []) {
    // A case may make several of one kind (a failed cancel and its retry): one must have ended as expected.
    const ids = run.ids[kind] ?? [];
    expect(ids.length, `${s.name} made a ${kind}`).toBeGreaterThan(0);
    const found: string[] = [];
    for (const id of ids) {
      const x = (await a.get(`/${kind}s/${id}`))[kind];
      found.push(`${x.status}${x.failure_code ? ` ${x.failure_code}` : ''}`);
    }
    expect(found, `${kind} statuses`).toContain(`${status}${code ? ` ${code}` : ''}`);
  }
  // Balances the app reads are the sums of its open credits, per asset.
  for (const account_id of run.ids.account ?? []) {
    const balances = (await a.get(`/accounts/${account_id}/balances?limit=100`)).balances;
    const credits = (await a.get(`/accounts/${account_id}/credits?status=open&limit=100`)).credits;
    const sums = new Map<string, bigint>();
    for (const c of credits) sums.set(c.asset_key, (sums.get(c.asset_key) ?? 0n) + BigInt(c.atoms ?? c.amount_atoms ?? 0));
    for (const b of balances) expect(BigInt(b.available_atoms), `${account_id} ${b.asset_key}`).toBe(sums.get(b.asset_key) ?? 0n);
  }
}

describe('triggers', () => {
  it('are the library cases that can run in your organization; each named in the issue is one', () => {
    const names = new Set(TRIGGERS.map((s) => s.name));
    for (const name of Object.keys(EXPECTED)) expect(names.has(name) || !SCENARIOS.some((s) => s.name === name), name).toBe(true);
    expect(TRIGGERS.filter((s) => !(s.name in EXPECTED)).map((s) => s.name)).toEqual([]);
    expect(
      SCENARIOS.filter((s) => !names.has(s.name))
        .map((s) => s.name)
        .sort(),
    ).toEqual(['canary-must-fail', 'idempotency-replay-and-conflict', 'webhook-secret-rotation']);
  });

  it.each(TRIGGERS.map((s) => [s.name, s] as const))('%s: the app sees its events, statuses and balances', async (_name, s) => {
    const a = await app(settingsFor(s));
    const run = await runTrigger(s, { base_url: server.base_url, api_key: a.api_key, seed: s.name });
    if (!run.ok) console.log(formatTrigger(run));
    expect(run.error).toBeUndefined();
    expect(run.organization_id).toBe(a.organization_id);
    expect(run.expectations.length).toBeGreaterThan(0);
    if (s.name !== 'rate-limit-storm') expect(run.events.length).toBeGreaterThan(0);
    await checkSeenByApp(s, a, run);
    // The app's webhook is still the active one and nothing the case added is left behind.
    const hooks = (await a.get('/webhooks')).webhooks;
    expect(hooks.filter((w: any) => w.active).map((w: any) => w.webhook_id)).toEqual([a.webhook_id]);
    expect((await request<ControlBody<'GET', '/faults'>>(`${server.control_url}/faults`, 'GET', undefined, {})).body.faults).toEqual([]);
  });
});

describe('trigger in an existing account (--account)', () => {
  it('runs there and checks balances as changes from what the account held', async () => {
    const a = await app();
    const first = await runTrigger(TRIGGERS.find((s) => s.name === 'trade-exact-in')!, {
      base_url: server.base_url,
      api_key: a.api_key,
      seed: 'first',
    });
    expect(first.ok).toBe(true);
    const account_id = first.ids.account[0];
    const before = (await a.get(`/accounts/${account_id}/balances?limit=100`)).balances;
    expect(before.find((b: any) => b.asset_key === ETH)?.available_atoms).toBe('500000000000000000');
    const again = await runTrigger(TRIGGERS.find((s) => s.name === 'trade-fails-execution-failed')!, {
      base_url: server.base_url,
      api_key: a.api_key,
      account_id,
      seed: 'second',
    });
    if (!again.ok) console.log(formatTrigger(again));
    expect(again.ok).toBe(true);
    expect(again.ids.account).toEqual([account_id]);
    expect(
      again.steps.some((l) => l.includes('balance of native.evm:42161 is 1000000000000000000 more than before (500000000000000000)')),
    ).toBe(true);
    const after = (await a.get(`/accounts/${account_id}/balances?limit=100`)).balances;
    expect(after.find((b: any) => b.asset_key === ETH)?.available_atoms).toBe((BigInt(ONE_ETH) + 500000000000000000n).toString());
    await checkSeenByApp(TRIGGERS.find((s) => s.name === 'trade-fails-execution-failed')!, a, again);
  });

  it('the same trigger twice in one organization is two runs (new Idempotency-Keys), not a replay', async () => {
    const a = await app();
    const s = TRIGGERS.find((x) => x.name === 'trade-exact-in')!;
    const one = await runTrigger(s, { base_url: server.base_url, api_key: a.api_key });
    const two = await runTrigger(s, { base_url: server.base_url, api_key: a.api_key });
    expect([one.ok, two.ok]).toEqual([true, true]);
    expect(two.ids.trade[0]).not.toBe(one.ids.trade[0]);
  });

  it('refuses what it cannot do: an irreversible case in your account, a scenario-only case, a setting the org lacks, a wrong key', async () => {
    const a = await app();
    const by = (n: string) => SCENARIOS.find((s) => s.name === n)!;
    const opts = { base_url: server.base_url, api_key: a.api_key };
    await expect(runTrigger(by('deactivated-account'), { ...opts, account_id: 'acct_x' })).rejects.toThrow(/new account only/);
    await expect(runTrigger(by('webhook-secret-rotation'), opts)).rejects.toThrow(/scenario only/);
    await expect(runTrigger(by('deposit-partner-flagged'), opts)).rejects.toThrow(/partner_screening true/);
    await expect(runTrigger(by('trade-exact-in'), { ...opts, api_key: 'sk_nobody' })).rejects.toThrow(TriggerRefused);
    // Nothing was done in the organization.
    expect((await a.get('/accounts')).accounts).toEqual([]);
  });

  it('a case that needs your webhook refuses to start when there is none, doing nothing', async () => {
    const org = (await request<ControlBody<'POST', '/organizations'>>(`${server.control_url}/organizations`, 'POST', {}, {})).body
      .organization;
    await expect(
      runTrigger(TRIGGERS.find((s) => s.name === 'webhook-outage-recovered-from-feed')!, {
        base_url: server.base_url,
        api_key: org.api_key,
      }),
    ).rejects.toThrow(/none is active/);
    const accounts = await request<V1Body<'GET', '/accounts'>>(`${server.base_url}/accounts`, 'GET', undefined, {
      authorization: `Bearer ${org.api_key}`,
    });
    expect(accounts.body.accounts).toEqual([]);
  });
});
