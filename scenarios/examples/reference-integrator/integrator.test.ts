// The reference integrator against a real sim: it refuses bad signatures with 401 and applies nothing, applies
// a duplicated delivery once, catches up from the feed on /probe/sync after an outage, and refuses malformed
// probe calls. The `no-dedupe` and `no-signature-check` flags visibly change those answers. The unusual-but-correct
// styles (feed-only, nudge, deferred) consume deliveries their own way and end in the same state; the provider
// client holds a 429's Retry-After for every later call, not only its own retries.
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSim, type Sim } from '../../../lib/sim.ts';
import { freshTimestamp, startIntegrator, validSignature, type IntegratorStyle, type RunningIntegrator } from './app.ts';
import type { Bug } from './bugs.ts';
import { get } from './provider.ts';

const ETH = 'native.evm:42161';
let sim: Sim | null = null;
let app: RunningIntegrator | null = null;

afterEach(async () => {
  await app?.close();
  await sim?.close();
  app = sim = null;
});

async function start(bugs: Bug[] = [], style?: IntegratorStyle): Promise<{ sim: Sim; app: RunningIntegrator; secret: string }> {
  sim = await createSim({ seed: 'integrator-test', api_keys: ['sk_driver_0123456789', 'sk_app_0123456789'] });
  app = await startIntegrator({ bugs, style });
  const hook = await sim.webhook(`${app.url}/webhooks`);
  const configured = await fetch(`${app.url}/probe/configure`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ base_url: sim.base_url, api_key: 'sk_app_0123456789', webhook_secret: hook.secret }),
  });
  expect(configured.status).toBe(200);
  return { sim, app, secret: hook.secret };
}

async function fundedAccount(s: Sim, atoms: string): Promise<string> {
  const account_id = (await s.api('POST', '/accounts', { body: {} })).body.account.account_id;
  await s.advance(5_000);
  const da = (await s.api('POST', `/accounts/${account_id}/deposit-addresses`, { body: { asset_key: ETH } })).body.deposit_address;
  await s.deposit({ deposit_address_id: da.deposit_address_id, atoms });
  await s.settle();
  return account_id;
}

const state = async (a: RunningIntegrator, account_id: string): Promise<{ balances: unknown[] }> =>
  (await fetch(`${a.url}/probe/state?account_id=${account_id}`)).json() as Promise<{ balances: unknown[] }>;

/** A credit.created for the account, signed with `secret` and stamped `timestamp_ms` (default now). */
function forged(account_id: string, secret: string, timestamp_ms = Date.now(), event_id = 'evt_forged_1') {
  const body = JSON.stringify({
    event_id,
    type: 'credit.created',
    created_at_ms: 1,
    account_id,
    data: { credit_id: 'crd_x', asset_key: ETH, atoms: '5', source_type: 'deposit' },
  });
  const timestamp = String(timestamp_ms);
  return { body, timestamp, signature: `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}` };
}

describe('reference integrator', () => {
  it('checks signatures over the raw body (the spec scheme)', () => {
    const raw = Buffer.from('{"a":1}');
    const sig = `v1=${createHmac('sha256', 'whsec_k').update('7.').update(raw).digest('hex')}`;
    expect(validSignature('whsec_k', '7', raw, sig)).toBe(true);
    expect(validSignature('whsec_other', '7', raw, sig)).toBe(false);
    expect(validSignature('whsec_k', '8', raw, sig)).toBe(false);
    expect(validSignature('whsec_k', '7', Buffer.from('{"a":2}'), sig)).toBe(false);
    expect(validSignature('whsec_k', '7', raw, '')).toBe(false);
  });

  it('answers 401 to a forged delivery and applies nothing; the no-signature-check variant applies it', async () => {
    for (const [bugs, status, atoms] of [
      [[], 401, '1000'],
      [['no-signature-check'], 200, '1005'],
    ] as const) {
      const t = await start([...bugs]);
      const account_id = await fundedAccount(t.sim, '1000');
      const f = forged(account_id, 'whsec_not_the_secret');
      const res = await fetch(`${t.app.url}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'svc-timestamp': f.timestamp, 'svc-signature': f.signature },
        body: f.body,
      });
      expect(res.status).toBe(status);
      expect((await state(t.app, account_id)).balances).toEqual([{ asset_key: ETH, available_atoms: atoms }]);
      await app!.close();
      await sim!.close();
      app = sim = null;
    }
  });

  it('refuses a correctly signed delivery stamped more than 5 min ago or ahead; the no-timestamp-check variant applies it', async () => {
    expect(freshTimestamp(String(Date.now() - 4 * 60_000), Date.now())).toBe(true);
    expect(freshTimestamp('not-a-number', Date.now())).toBe(false);
    for (const [bugs, statuses, atoms] of [
      [[], [401, 401], '1000'],
      [['no-timestamp-check'], [200, 200], '1010'],
    ] as const) {
      const t = await start([...bugs]);
      const account_id = await fundedAccount(t.sim, '1000');
      const answered: number[] = [];
      for (const [i, at] of [Date.now() - 10 * 60_000, Date.now() + 10 * 60_000].entries()) {
        const f = forged(account_id, t.secret, at, `evt_replayed_${i}`);
        const res = await fetch(`${t.app.url}/webhooks`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'svc-timestamp': f.timestamp, 'svc-signature': f.signature },
          body: f.body,
        });
        answered.push(res.status);
      }
      expect(answered).toEqual([...statuses]);
      expect((await state(t.app, account_id)).balances).toEqual([{ asset_key: ETH, available_atoms: atoms }]);
      await app!.close();
      await sim!.close();
      app = sim = null;
    }
  });

  it('applies a duplicated delivery once; the no-dedupe variant counts it twice', async () => {
    for (const [bugs, atoms] of [
      [[], '1000'],
      [['no-dedupe'], '2000'],
    ] as const) {
      const t = await start([...bugs]);
      await t.sim.faults.add({ target: 'webhook', effect: { webhook: 'duplicate' }, match: { event_type: 'credit.created' } });
      const account_id = await fundedAccount(t.sim, '1000');
      expect((await state(t.app, account_id)).balances).toEqual([{ asset_key: ETH, available_atoms: atoms }]);
      await app!.close();
      await sim!.close();
      app = sim = null;
    }
  });

  it('recovers events lost in an outage from the feed on /probe/sync', async () => {
    const t = await start();
    const outage = await t.sim.faults.add({ target: 'webhook', effect: { webhook: 'drop' } });
    const account_id = await fundedAccount(t.sim, '1000');
    await t.sim.advance(73 * 3_600_000);
    await t.sim.faults.remove(outage.fault_id);
    expect((await state(t.app, account_id)).balances).toEqual([]);
    const sync = await fetch(`${t.app.url}/probe/sync`, { method: 'POST' });
    expect(sync.status).toBe(200);
    expect((await state(t.app, account_id)).balances).toEqual([{ asset_key: ETH, available_atoms: '1000' }]);
    expect((await t.sim.truth(account_id)).balances).toEqual([{ asset_key: ETH, available_atoms: '1000' }]);
  });

  it('feed-only answers 200 and applies nothing until it reads the feed', async () => {
    const t = await start([], 'feed-only');
    const account_id = await fundedAccount(t.sim, '1000');
    expect((await state(t.app, account_id)).balances).toEqual([]);
    await fetch(`${t.app.url}/probe/sync`, { method: 'POST' });
    expect((await state(t.app, account_id)).balances).toEqual([{ asset_key: ETH, available_atoms: '1000' }]);
  });

  it('nudge reads the feed from its last cursor on each delivery', async () => {
    const t = await start([], 'nudge');
    const account_id = await fundedAccount(t.sim, '1000');
    // Nothing applied the delivery itself: the read it nudged did, and a sync finds nothing new.
    await fetch(`${t.app.url}/probe/sync`, { method: 'POST' });
    expect((await state(t.app, account_id)).balances).toEqual([{ asset_key: ETH, available_atoms: '1000' }]);
  });

  it('deferred answers 202 at once and applies later; a sync waits for what it deferred', async () => {
    const t = await start([], 'deferred');
    const account_id = await fundedAccount(t.sim, '1000');
    await fetch(`${t.app.url}/probe/sync`, { method: 'POST' });
    const f = forged(account_id, t.secret);
    const res = await fetch(`${t.app.url}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'svc-timestamp': f.timestamp, 'svc-signature': f.signature },
      body: f.body,
    });
    expect(res.status).toBe(202);
    expect((await state(t.app, account_id)).balances).toEqual([{ asset_key: ETH, available_atoms: '1000' }]);
    await fetch(`${t.app.url}/probe/sync`, { method: 'POST' });
    expect((await state(t.app, account_id)).balances).toEqual([{ asset_key: ETH, available_atoms: '1005' }]);
  });

  it("holds a 429's Retry-After for the next call after one that gave up", async () => {
    // Four 503s, then a 429 with Retry-After: 1 on the last attempt: the call gives up, and the next one must wait.
    const arrivals_ms: number[] = [];
    const server = createServer((_req, res) => {
      arrivals_ms.push(Date.now());
      if (arrivals_ms.length < 5) return void res.writeHead(503).end('{}');
      if (arrivals_ms.length === 5) return void res.writeHead(429, { 'retry-after': '1' }).end('{}');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const cfg = { base_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, api_key: 'sk_app_0123456789' };
    try {
      await expect(get(cfg, '/events')).rejects.toThrow(/429/);
      expect(await get(cfg, '/events')).toEqual({ ok: true });
      expect(arrivals_ms[5] - arrivals_ms[4]).toBeGreaterThanOrEqual(1_000);
    } finally {
      server.close();
    }
  });

  it('refuses malformed probe calls', async () => {
    app = await startIntegrator();
    const bad = await fetch(`${app.url}/probe/configure`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"base_url":1}',
    });
    expect(bad.status).toBe(400);
    expect((await fetch(`${app.url}/probe/state`)).status).toBe(400);
    // Not configured yet: deliveries are refused with a retryable status, never applied.
    expect((await fetch(`${app.url}/webhooks`, { method: 'POST', body: '{}' })).status).toBe(503);
  });
});
