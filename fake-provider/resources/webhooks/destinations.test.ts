// Webhooks never reach swapsim's own listening address or /_sim, whatever the URL spells: refused at
// registration (400 webhook_url_forbidden) where the URL decides it, and never connected to at send time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LookupAddress } from 'node:dns';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { startReceiver, type Receiver } from '../../../scenarios/dsl/webhook-receiver.ts';
import { publish } from '../../engine/index.ts';
import { DEFAULT_PROFILE } from '../../profile.ts';
import { destinationGuard } from './destinations.ts';
import { webhookStore } from './model.ts';

let sim: TestSim;
let rx: Receiver;
beforeAll(async () => {
  sim = await startTestSim();
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
  await sim.close();
});

const port = (): number => sim.running.port;

describe('webhook destinations at registration', () => {
  it('refuses every spelling of swapsim itself, /_sim anywhere, and link-local metadata; creates nothing', async () => {
    const org = await sim.newOrg({ rate_limits: { writes: 10_000, reads: 10_000 } });
    const p = port();
    const urls = [
      `http://127.0.0.1:${p}/_sim/reset`,
      `http://127.0.0.1:${p}/v1/accounts`,
      `http://localhost:${p}/hooks`,
      `http://LOCALHOST.:${p}/hooks`,
      `http://tenant.localhost:${p}/hooks`,
      `http://[::1]:${p}/hooks`,
      `http://[0:0:0:0:0:0:0:1]:${p}/hooks`,
      `http://[::ffff:127.0.0.1]:${p}/hooks`,
      `http://0x7f000001:${p}/hooks`,
      `http://2130706433:${p}/hooks`,
      `http://127.1:${p}/hooks`,
      `http://0177.0.0.1:${p}/hooks`,
      `http://127.0.0.2:${p}/hooks`,
      `http://0:${p}/hooks`,
      // The control plane of any swapsim, on any port or host.
      'http://127.0.0.1:9/_sim/reset',
      'https://example.com/%5Fsim/reset',
      'https://example.com//_SIM/organizations',
      'https://example.com/a/../_sim/reset',
      // Cloud metadata and other link-local addresses.
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:169.254.169.254]/',
      'http://[fe80::1]/',
    ];
    for (const url of urls) {
      const r = await sim.api('POST', '/webhooks', { key: org.api_key, body: { url } });
      expect(r.status, url).toBe(400);
      expect(r.body.error, url).toMatchObject({ code: 'webhook_url_forbidden', param: 'url', type: 'invalid_request' });
    }
    expect((await sim.api('GET', '/webhooks', { key: org.api_key })).body.webhooks).toEqual([]);
  });

  it('PATCH refuses the same and leaves the url as it was', async () => {
    const org = await sim.newOrg({ rate_limits: { writes: 10_000, reads: 10_000 } });
    const w = (await sim.api('POST', '/webhooks', { key: org.api_key, body: { url: rx.url } })).body.webhook;
    const r = await sim.api('PATCH', `/webhooks/${w.webhook_id}`, {
      key: org.api_key,
      body: { url: `http://0x7f000001:${port()}/_sim/reset` },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('webhook_url_forbidden');
    expect((await sim.api('GET', '/webhooks', { key: org.api_key })).body.webhooks[0].url).toBe(rx.url);
  });

  it('allows loopback receivers on other ports (the normal local case) and public hosts', async () => {
    const org = await sim.newOrg({ rate_limits: { writes: 10_000, reads: 10_000 } });
    const other = new URL(rx.url).port;
    for (const url of [rx.url, `http://localhost:${other}/hooks`, `http://[::1]:${other}/hooks`, 'https://hooks.example.com/_simple']) {
      const r = await sim.api('POST', '/webhooks', { key: org.api_key, body: { url } });
      expect(r.status, url).toBe(200);
    }
  });

  it('profile webhook_allowed_destinations narrows where webhooks may go', async () => {
    const s = await startTestSim({ profile: { ...DEFAULT_PROFILE, webhook_allowed_destinations: ['10.0.0.0/8'] } });
    try {
      const org = await s.newOrg();
      const refused = await s.api('POST', '/webhooks', { key: org.api_key, body: { url: rx.url } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toContain('webhook_allowed_destinations');
      expect((await s.api('POST', '/webhooks', { key: org.api_key, body: { url: 'http://10.1.2.3:8080/h' } })).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('webhook destinations at send time', () => {
  it('a webhook whose url reaches swapsim (however it got there) never connects: the world is not reset', async () => {
    const s = await startTestSim();
    try {
      const org = await s.newOrg();
      const w = (await s.api('POST', '/webhooks', { key: org.api_key, body: { url: rx.url } })).body.webhook;
      const world = s.running.runtime.world;
      // Past the registration check: as if a resolver or a later setting had made the URL point home.
      webhookStore(world).byId.get(w.webhook_id)!.url = `http://127.0.0.1:${s.running.port}/_sim/reset`;
      const orgs = world.orgs.size;
      publish(world, org.organization_id, 'acct_x', 'test.ping', {});
      await s.advance(1);
      expect(s.running.runtime.world).toBe(world);
      expect(world.orgs.size).toBe(orgs);
      const deliveries = (await s.api('GET', `/webhooks/${w.webhook_id}/deliveries`, { key: org.api_key })).body.deliveries;
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0]).toMatchObject({ status: 'pending', http_status: 0 });
    } finally {
      await s.close();
    }
  });

  it('checks every address a name resolves to, on the port it dials', async () => {
    const answers: Record<string, string[]> = {
      'home.example': ['127.0.0.1'],
      'meta.example': ['203.0.113.5', '169.254.169.254'],
      'ok.example': ['127.0.0.1'],
    };
    const resolver = ((host: string, _o: unknown, cb: (e: Error | null, a: LookupAddress[]) => void) =>
      cb(
        null,
        (answers[host] ?? []).map((address) => ({ address, family: 4 })),
      )) as never;
    const guard = destinationGuard(DEFAULT_PROFILE, { host: '127.0.0.1', port: 4010 }, resolver);
    const resolve = (host: string, p: number) =>
      new Promise<string>((ok) => guard.resolve(host, p, (err, a) => ok(err ? `refused: ${err.message}` : a!)));
    expect(await resolve('home.example', 4010)).toMatch(/^refused: .*own listening address/);
    expect(await resolve('ok.example', 5000)).toBe('127.0.0.1');
    expect(await resolve('meta.example', 80)).toMatch(/^refused: .*denied block/);
    expect(await resolve('[::1]', 4010)).toMatch(/^refused/);
    // A registration cannot decide a name that needs DNS: it is checked when dialled.
    expect(guard.url('http://home.example:4010/h')).toBeNull();
  });
});
