// Secrets can't be guessed from the seed: keys swapsim makes, webhook secrets and OTPs come from a secret
// stream (random per run unless secret_seed is given); request ids have their own stream; failed
// authentication is a lookup (the throttle: http/auth.test.ts); organizations can be deleted.
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, startTestSim, type TestSim } from './testing/harness.ts';
import { startReceiver } from '../scenarios/dsl/webhook-receiver.ts';
import { publish } from './engine/publish.ts';

const opened = closeAfterEach(afterEach);
const sim = async (opts: Parameters<typeof startTestSim>[0] = {}): Promise<TestSim> => opened(await startTestSim(opts));

/** What a fresh server hands out first: an org's key, a webhook secret, an export OTP. */
async function secretsOf(s: TestSim): Promise<{ api_key: string; webhook_secret: string; otp: string }> {
  const org = await s.newOrg();
  const hook = await s.api('POST', '/webhooks', { key: org.api_key, body: { url: 'https://hooks.example.com/h' } });
  const acct = (await s.api('POST', '/accounts', { body: { label: 'x' } })).body.account.account_id;
  await s.api('PATCH', `/accounts/${acct}`, { body: { email: 'u@example.com' } });
  await s.api('POST', '/public/initiate-export', { key: null, body: { account_id: acct } });
  const otp = (await s.control('GET', `/emails?account_id=${acct}`)).body.emails.at(-1).otp_code;
  return { api_key: org.api_key, webhook_secret: hook.body.webhook.secret, otp };
}

describe('the secret stream', () => {
  it('two servers with the same --seed hand out different keys, webhook secrets and OTPs', async () => {
    const a = await secretsOf(await sim({ seed: 5 }));
    const b = await secretsOf(await sim({ seed: 5 }));
    expect(a.api_key).toMatch(/^sk_sim_[0-9a-f]{48}$/);
    expect(b.api_key).not.toBe(a.api_key);
    expect(b.webhook_secret).not.toBe(a.webhook_secret);
    expect(b.otp).not.toBe(a.otp);
  });

  it('the same seed and secret seed give the same secrets (a run stays reproducible)', async () => {
    const a = await secretsOf(await sim({ seed: 5, secret_seed: 'team-ci' }));
    const b = await secretsOf(await sim({ seed: 5, secret_seed: 'team-ci' }));
    expect(b).toEqual(a);
  });

  it('a request that creates nothing (a readiness probe) shifts no entity id', async () => {
    const plain = await sim({ seed: 9, secret_seed: 'x' });
    const probed = await sim({ seed: 9, secret_seed: 'x' });
    await probed.control('GET', '/clock');
    await probed.api('GET', '/assets?limit=1');
    const first = async (s: TestSim) => [
      (await s.api('POST', '/accounts', { body: {} })).body.account.account_id,
      (await s.newOrg()).organization_id,
    ];
    expect(await first(probed)).toEqual(await first(plain));
  });
});

describe('authentication', () => {
  it('is a lookup: it never walks the organizations', async () => {
    const s = await sim();
    for (let i = 0; i < 20; i++) await s.newOrg();
    const org = await s.newOrg();
    const world = s.running.runtime.world;
    world.orgs.values = () => {
      throw new Error('authentication walked the organizations');
    };
    expect((await s.api('GET', '/webhooks', { key: org.api_key })).status).toBe(200);
    expect((await s.api('GET', '/webhooks', { key: 'sk_nobody' })).status).toBe(401);
    expect(s.running.runtime.bugs).toEqual([]);
  });
});

describe('DELETE /_sim/organizations/{id}', () => {
  it('removes the org and its keys; its webhooks stop; other orgs are untouched', async () => {
    const s = await sim();
    const rx = await startReceiver();
    opened(rx);
    rx.answer = () => 500;
    const gone = await s.newOrg();
    const kept = await s.newOrg();
    await s.api('POST', '/webhooks', { key: gone.api_key, body: { url: rx.url } });
    publish(s.running.runtime.world, gone.organization_id, 'acct_g', 'test.ping', {});
    await s.advance(0);
    expect(rx.received).toHaveLength(1);
    await s.api('POST', '/accounts', { key: gone.api_key, body: {} });

    const del = await s.control('DELETE', `/organizations/${gone.organization_id}`);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ deleted: true, organization_id: gone.organization_id });
    expect((await s.api('GET', '/webhooks', { key: gone.api_key })).status).toBe(401);
    expect((await s.control('GET', '/organizations')).body.organizations.map((o: any) => o.organization_id)).not.toContain(
      gone.organization_id,
    );
    // Its pending retry never goes out.
    await s.advance(3_600_000);
    expect(rx.received).toHaveLength(1);
    expect((await s.api('GET', '/webhooks', { key: kept.api_key })).status).toBe(200);
    expect((await s.control('DELETE', `/organizations/${gone.organization_id}`)).body.error).toMatchObject({
      code: 'not_found',
      param: 'organization_id',
    });
    expect((await s.invariants()).ok).toBe(true);
  });
});
