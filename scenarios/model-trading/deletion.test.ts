// Property: deleting an organization leaves nothing of it behind. A run builds an organization with the
// trading model (its prelude and a few random commands: accounts, credits, trades, zaps, cancels,
// recoveries, some still in flight), collects every id it can see, then DELETE /_sim/organizations/{id}.
// Afterwards every /v1, public and control route answers for each of those ids exactly as it answers for an
// id that never existed (same status and error code; never a 5xx), with another organization's key, with
// the deleted key (as any unknown key), and without a key on the public routes; nothing of it shows in the
// other organization's listings and feed or in the control views; the invariants hold, then and after the
// clock runs on (its in-flight work must not wake up). The organization has a webhook with deliveries in flight
// when it goes (its receiver failing every attempt, so retries are pending, or a replay just scheduled): its
// webhook routes answer as for an unknown webhook, and nothing of it reaches the receiver after the delete.
// Runs: SWAPSIM_DELETION_RUNS (default 12); SWAPSIM_DELETION_SEED (+ SWAPSIM_DELETION_PATH) reruns a seed.
// A failure prints seed, path and the replayPath of the commands.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type HttpReply, type TestSim } from '../../fake-provider/testing/harness.ts';
import { DEFAULT_PROFILE } from '../../fake-provider/profile.ts';
import { AdvanceClock } from './commands/advance-clock.ts';
import { ZapFromCredit } from './commands/zap-from-credit.ts';
import { api, creditsOf, initialModel, tradingCommands, tradingPrelude, type TradingModel, type TradingReal } from './index.ts';
import { startReceiver, type Receiver } from '../dsl/webhook-receiver.ts';

const RUNS = Number(process.env.SWAPSIM_DELETION_RUNS ?? 12);
const SEED = process.env.SWAPSIM_DELETION_SEED ? Number(process.env.SWAPSIM_DELETION_SEED) : undefined;
const PATH = process.env.SWAPSIM_DELETION_PATH;

let sim: TestSim;
let receiver: Receiver;
beforeAll(async () => {
  sim = await startTestSim({ seed: 'deletion' });
  receiver = await startReceiver('', 'Svc', () => sim.running.runtime.world.sim.now_ms());
});
afterAll(async () => {
  await sim.close();
  await receiver.close();
});

/** How the organization's webhook has deliveries in flight when it is deleted. */
type InFlight = 'retrying' | 'replay_scheduled';

/** Registers the run's webhook; returns its id. */
async function registerWebhook(r: TradingReal, mode: InFlight): Promise<string> {
  receiver.received = [];
  receiver.answer = mode === 'retrying' ? () => 500 : (x) => (x.signature_valid ? 200 : 401);
  const hook = await api(r, 'POST', '/webhooks', { body: { url: receiver.url } });
  expect(hook.status, JSON.stringify(hook.body)).toBe(200);
  receiver.secret = hook.body.webhook.secret;
  return hook.body.webhook.webhook_id;
}

/** Puts deliveries in flight just before the delete, and checks they are (pending retries, or a replay not yet sent). */
async function inFlight(r: TradingReal, webhook_id: string, mode: InFlight): Promise<void> {
  if (mode === 'replay_scheduled') {
    const replay = await api(r, 'POST', `/webhooks/${webhook_id}/replay`, { body: { since_ms: 0, types: ['*'] } });
    expect(replay.status, JSON.stringify(replay.body)).toBe(200);
  }
  const pending = await api(r, 'GET', `/webhooks/${webhook_id}/deliveries?status=pending&limit=100`);
  expect(pending.status, JSON.stringify(pending.body)).toBe(200);
  expect(pending.body.deliveries.length, `webhook ${webhook_id} (${mode}) has deliveries in flight at the delete`).toBeGreaterThan(0);
}

/** An id of the same kind (its prefix) that never existed. */
const unknownLike = (id: string): string => `${id.slice(0, id.indexOf('_') + 1)}0unknown0000000`;

interface Seen {
  accounts: string[];
  credits: Array<{ account_id: string; credit_id: string }>;
  ops: Array<{ kind: string; id: string }>;
  quotes: string[];
  destinations: Array<{ account_id: string; destination_id: string }>;
  deposit_addresses: string[];
  recoveries: Array<{ recovery_id: string; account_id: string; credit_id: string }>;
  events: string[];
  webhooks: string[];
}

async function collect(m: TradingModel, r: TradingReal): Promise<Seen> {
  const seen: Seen = {
    accounts: [],
    credits: [],
    ops: m.ops.map((o) => ({ kind: o.kind, id: o.id })),
    quotes: m.quotes.map((q) => q.quote_id),
    destinations: [],
    deposit_addresses: [],
    recoveries: [],
    events: [],
    webhooks: [],
  };
  const listed = await api(r, 'GET', '/accounts?limit=100');
  seen.accounts = listed.body.accounts.map((a: { account_id: string }) => a.account_id);
  for (const account_id of seen.accounts) {
    for (const status of ['open', 'consumed'] as const)
      for (const c of await creditsOf(r, account_id, status)) seen.credits.push({ account_id, credit_id: c.credit_id });
    const dests = await api(r, 'GET', `/accounts/${account_id}/destinations?limit=100`);
    for (const d of dests.body.destinations) seen.destinations.push({ account_id, destination_id: d.destination_id });
    const rows = (await r.sim.control('GET', `/deposits?account_id=${account_id}`)).body.deposits as Array<{ deposit_address_id: string }>;
    seen.deposit_addresses.push(...rows.map((x) => x.deposit_address_id));
  }
  for (const o of m.ops.filter((x) => x.kind === 'zap')) {
    const zap = (await api(r, 'GET', `/zaps/${o.id}`)).body.zap;
    if (zap.recovery) seen.recoveries.push({ ...zap.recovery, account_id: o.account_id });
  }
  seen.webhooks = (await api(r, 'GET', '/webhooks')).body.webhooks.map((w: { webhook_id: string }) => w.webhook_id);
  let cursor: string | null = null;
  do {
    const page: HttpReply = await api(r, 'GET', `/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    seen.events.push(...page.body.events.map((e: { event_id: string }) => e.event_id));
    cursor = page.body.next_cursor;
  } while (cursor);
  return seen;
}

/** A request, and the same request with each deleted id swapped for one that never existed. */
interface Probe {
  what: string;
  send: (swap: (id: string) => string) => Promise<HttpReply>;
}

function probes(seen: Seen, other: TestSim, deleted_key: string): Probe[] {
  const v1 = (method: string, path: string, body?: unknown, key: string | null = other.api_key) => other.api(method, path, { body, key });
  // Public routes are throttled per IP (the profile's public_per_ip): the clock moves past the window before it fills.
  let publicCalls = 0;
  const pub = async (method: string, path: string, body?: unknown): Promise<HttpReply> => {
    if (++publicCalls % 20 === 0) await other.advance(DEFAULT_PROFILE.public_per_ip.window_ms + 1);
    return other.api(method, path, { key: null, body });
  };
  const out: Probe[] = [];
  const destinationOf = (account_id: string) => seen.destinations.find((d) => d.account_id === account_id)?.destination_id ?? 'dest_none';
  for (const a of seen.accounts) {
    for (const sub of ['', '/credits', '/balances', '/history', '/activity', '/destinations', '/deposit-addresses']) {
      out.push({ what: `GET /accounts/{account}${sub}`, send: (s) => v1('GET', `/accounts/${s(a)}${sub}`) });
    }
    out.push({
      what: 'GET /accounts/{account} with the deleted key',
      send: (s) => v1('GET', `/accounts/${s(a)}`, undefined, s(deleted_key)),
    });
    out.push({ what: 'POST /public/initiate-export', send: (s) => pub('POST', '/public/initiate-export', { account_id: s(a) }) });
    out.push({ what: 'GET /public/export-status', send: (s) => pub('GET', `/public/export-status?account_id=${s(a)}&otp_code=123456`) });
    out.push({
      what: 'POST /accounts/{account}/deposit-addresses',
      send: (s) => v1('POST', `/accounts/${s(a)}/deposit-addresses`, { asset_key: 'native.evm:1' }),
    });
  }
  for (const c of seen.credits) {
    out.push({
      what: 'POST /cancels {credit}',
      send: (s) =>
        v1('POST', '/cancels', { account_id: s(c.account_id), credit_id: s(c.credit_id), destination_id: s(destinationOf(c.account_id)) }),
    });
    out.push({
      what: 'POST /public/recover-funds {credit}',
      send: (s) =>
        pub('POST', '/public/recover-funds', {
          account_id: s(c.account_id),
          credit_id: s(c.credit_id),
          otp_code: '123456',
          destination: { address: '0x000000000000000000000000000000000000dEaD' },
        }),
    });
  }
  for (const o of seen.ops) out.push({ what: `GET /${o.kind}s/{id}`, send: (s) => v1('GET', `/${o.kind}s/${s(o.id)}`) });
  for (const q of seen.quotes) {
    out.push({ what: 'GET /quotes/{id}', send: (s) => v1('GET', `/quotes/${s(q)}`) });
    out.push({ what: 'POST /quotes/{id}/accept', send: (s) => v1('POST', `/quotes/${s(q)}/accept`, { slippage_bps: '50' }) });
  }
  for (const d of seen.deposit_addresses) {
    out.push({
      what: 'POST /deposits/{deposit_address}/flag',
      send: (s) => v1('POST', `/deposits/${s(d)}/flag`, { tx_hash: '0xabc', flag_category: 'fraud', flag_message: 'm' }),
    });
  }
  for (const w of seen.webhooks) {
    out.push({ what: 'GET /webhooks/{id}/deliveries', send: (s) => v1('GET', `/webhooks/${s(w)}/deliveries`) });
    out.push({ what: 'PATCH /webhooks/{id}', send: (s) => v1('PATCH', `/webhooks/${s(w)}`, { active: true }) });
    out.push({ what: 'POST /webhooks/{id}/rotate-secret', send: (s) => v1('POST', `/webhooks/${s(w)}/rotate-secret`) });
    out.push({ what: 'POST /webhooks/{id}/replay', send: (s) => v1('POST', `/webhooks/${s(w)}/replay`, { since_ms: 0, types: ['*'] }) });
    out.push({
      what: 'GET /webhooks/{id}/deliveries with the deleted key',
      send: (s) => v1('GET', `/webhooks/${s(w)}/deliveries`, undefined, s(deleted_key)),
    });
  }
  for (const rc of seen.recoveries) {
    out.push({
      what: 'POST /recoveries/{id}/activate',
      send: (s) => v1('POST', `/recoveries/${s(rc.recovery_id)}/activate`, { account_id: s(rc.account_id), credit_id: s(rc.credit_id) }),
    });
    out.push({
      what: 'POST /public/recover-funds {recovery binding}',
      send: (s) =>
        pub('POST', '/public/recover-funds', {
          account_id: s(rc.account_id),
          credit_id: s(rc.credit_id),
          otp_code: '123456',
          destination: { address: '0x000000000000000000000000000000000000dEaD' },
        }),
    });
  }
  return out;
}

async function deleteAndCheck(m: TradingModel, r: TradingReal): Promise<void> {
  const seen = await collect(m, r);
  const deleted = await r.sim.control('DELETE', `/organizations/${m.org_id}`);
  // What the receiver got up to the delete; anything after it must not be the deleted organization's.
  const delivered_before = receiver.received.length;
  expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
  const inv = await r.sim.invariants();
  expect(inv.violations, `after the delete: ${JSON.stringify(inv.violations)}`).toEqual([]);
  const ids = new Set([
    ...seen.accounts,
    ...seen.credits.map((c) => c.credit_id),
    ...seen.ops.map((o) => o.id),
    ...seen.quotes,
    ...seen.destinations.map((d) => d.destination_id),
    ...seen.deposit_addresses,
    ...seen.recoveries.map((x) => x.recovery_id),
    ...seen.webhooks,
    r.key,
  ]);
  for (const p of probes(seen, r.sim, r.key)) {
    const gone = await p.send((id) => id);
    const never = await p.send((id) => (ids.has(id) ? unknownLike(id) : id));
    const shown = `${p.what} after the organization was deleted: ${gone.status} ${JSON.stringify(gone.body)}; for an id that never existed: ${never.status} ${JSON.stringify(never.body)}`;
    expect(gone.status, shown).toBeLessThan(500);
    expect([gone.status, gone.body?.error?.code], shown).toEqual([never.status, never.body?.error?.code]);
  }
  // Nothing of it in the other organization's listings and feed, nor in the control views.
  const other = r.sim;
  const listedAccounts = (await other.api('GET', '/accounts?limit=100')).body.accounts.map((a: { account_id: string }) => a.account_id);
  expect(
    listedAccounts.filter((id: string) => ids.has(id)),
    'deleted accounts listed for another organization',
  ).toEqual([]);
  const zaps = (await other.api('GET', '/zaps?limit=100')).body.zaps.map((z: { zap_id: string }) => z.zap_id);
  expect(
    zaps.filter((id: string) => ids.has(id)),
    'deleted zaps listed for another organization',
  ).toEqual([]);
  const feed = new Set(seen.events);
  const events = (await other.api('GET', '/events?limit=100')).body.events.map((e: { event_id: string }) => e.event_id);
  expect(
    events.filter((id: string) => feed.has(id)),
    "deleted events in another organization's feed",
  ).toEqual([]);
  for (const account_id of seen.accounts) {
    expect(
      (await other.control('GET', `/deposits?account_id=${account_id}`)).body.deposits,
      `control deposits of deleted ${account_id}`,
    ).toEqual([]);
    expect((await other.control('GET', `/emails?account_id=${account_id}`)).body.emails, `control inbox of deleted ${account_id}`).toEqual(
      [],
    );
  }
  // Its in-flight work does not wake up: the clock runs on past every retry the webhook had left, every check holds.
  await other.advance(3_600_000);
  const after = await other.invariants();
  expect(after.violations, `an hour after the delete: ${JSON.stringify(after.violations)}`).toEqual([]);
  await other.settle(80 * 3_600_000);
  const late = receiver.received.slice(delivered_before).filter((x) => seen.webhooks.includes(x.webhook_id) || feed.has(x.event_id));
  expect(
    late.map((x) => `${x.webhook_id} ${x.event_id} at ${x.received_at_ms}`),
    'deliveries of the deleted organization after its delete',
  ).toEqual([]);
  expect((await other.invariants()).violations, 'after the clock settled').toEqual([]);
}

describe('deleting an organization', () => {
  it(`leaves every route answering as for an organization that never existed (${RUNS} runs)`, { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        tradingPrelude(),
        fc.commands(tradingCommands(), { maxCommands: 6, size: 'max' }),
        fc.constantFrom<InFlight>('retrying', 'replay_scheduled'),
        async (prelude, cmds, mode) => {
          const reset = await sim.control('POST', '/reset');
          expect(reset.status).toBe(200);
          const model = initialModel(reset.body.clock.now_ms, DEFAULT_PROFILE);
          const real: TradingReal = { sim, key: sim.api_key };
          // The organization first (the prelude's SetupOrg), then its webhook, so every event it publishes is delivered or retried.
          const [setup, ...rest] = prelude;
          await setup.run(model, real);
          const webhook_id = await registerWebhook(real, mode);
          for (const c of rest) if (c.check(model)) await c.run(model, real);
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          // A zap that fails at its floor: with recovery on, a recovery bound to its credit exists when the organization goes.
          for (const c of [
            new ZapFromCredit({
              accountIdx: 0,
              creditIdx: 0,
              destinationIdx: 0,
              fraction_bps: 5_000,
              high_floor: true,
              expires_in_ms: null,
            }),
            new AdvanceClock(30_000),
          ])
            if (c.check(model)) await c.run(model, real);
          await inFlight(real, webhook_id, mode);
          await deleteAndCheck(model, real);
        },
      ),
      { numRuns: RUNS, seed: SEED, path: PATH, verbose: 1, includeErrorInReport: true },
    );
  });
});
